package plan

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// setOperation plans UNION, INTERSECT and EXCEPT [ALL], then the ORDER BY
// and LIMIT that apply to the whole.
func (p *Planner) setOperation(s *pg.SelectStmt) (*Query, error) {
	l, err := p.Select(s.Larg)
	if err != nil {
		return nil, err
	}
	r, err := p.Select(s.Rarg)
	if err != nil {
		return nil, err
	}
	name := map[pg.SetOperation]string{pg.SetOperation_SETOP_UNION: "UNION", pg.SetOperation_SETOP_INTERSECT: "INTERSECT", pg.SetOperation_SETOP_EXCEPT: "EXCEPT"}[s.Op]
	if len(l.Columns) != len(r.Columns) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", name)
	}
	ts := make([]types.T, len(l.Columns))
	cols := make([]Column, len(l.Columns))
	for i := range ts {
		lt, rt := l.Columns[i].T, r.Columns[i].T
		// An untyped literal (NULL, '…') of a branch takes the other
		// branch's type, as in PostgreSQL (SELECT 2.5 UNION SELECT NULL).
		if untypedLiteral(s.Larg, i) {
			lt = types.Of(types.Unknown)
		}
		if untypedLiteral(s.Rarg, i) {
			rt = types.Of(types.Unknown)
		}
		t, ok := types.Common(lt, rt)
		if !ok {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", name, l.Columns[i].T, r.Columns[i].T)
		}
		if t.Kind == types.Unknown {
			t = types.TText
		}
		ts[i] = t
		cols[i] = Column{Name: l.Columns[i].Name, T: t}
	}
	left, right := p.conform(l, ts), p.conform(r, ts)
	var src physical.Node
	switch s.Op {
	case pg.SetOperation_SETOP_UNION:
		src = &physical.UnionAll{Inputs: []physical.Node{left, right}, ColumnTypes: ts}
		if !s.All {
			src = &physical.HashAgg{In: src, GroupBy: columnsOf(ts)}
		}
	case pg.SetOperation_SETOP_INTERSECT:
		src = &physical.SetOp{Kind: agg.Intersect, All: s.All, Left: left, Right: right, ColumnTypes: ts}
	default:
		src = &physical.SetOp{Kind: agg.Except, All: s.All, Left: left, Right: right, ColumnTypes: ts}
	}
	var keys []exec.SortKey
	for _, o := range s.SortClause {
		sb := o.GetSortBy()
		idx := -1
		if c := sb.Node.GetAConst(); c != nil && c.GetIval() != nil {
			idx = int(c.GetIval().Ival) - 1
		} else if cr := sb.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			for i, c := range cols {
				if c.Name == cr.Fields[0].GetString_().Sval {
					idx = i
					break
				}
			}
		}
		if idx < 0 || idx >= len(cols) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ORDER BY on a %s takes output column names or positions", name).WithPosition(pos(p.query, sb.Location))
		}
		k := exec.SortKey{Expr: &expr.Col{Idx: idx, T: ts[idx]}, Desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
		k.NullsFirst = k.Desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			k.NullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			k.NullsFirst = false
		}
		keys = append(keys, k)
	}
	if len(keys) > 0 {
		src = &physical.Sort{In: src, Keys: keys}
	}
	limit, offset, count, skip, err := p.limits(s)
	if err != nil {
		return nil, err
	}
	if limit >= 0 || offset > 0 || count != nil || skip != nil {
		src = &physical.Limit{In: src, Limit: limit, Offset: offset, Count: count, Skip: skip}
	}
	return &Query{Root: src, Columns: cols}, nil
}

// conform casts a query's columns to the types ts where they differ.
func (p *Planner) conform(q *Query, ts []types.T) physical.Node {
	same := true
	exprs := make([]expr.Expr, len(ts))
	for i, c := range q.Columns {
		exprs[i] = &expr.Col{Idx: i, T: c.T}
		// Any difference, a decimal's carriage (DecPrec) included: the
		// branches' batches must have one Arrow type per column.
		if c.T != ts[i] {
			exprs[i] = &expr.Cast{Arg: exprs[i], T: ts[i]}
			same = false
		}
	}
	if same {
		return q.Root
	}
	return &physical.Project{In: q.Root, Exprs: exprs}
}

func columnsOf(ts []types.T) []expr.Expr {
	out := make([]expr.Expr, len(ts))
	for i, t := range ts {
		out[i] = &expr.Col{Idx: i, T: t}
	}
	return out
}

// untypedLiteral reports whether output column i of a plain SELECT is a
// bare constant whose type is still open: NULL or a quoted string.
func untypedLiteral(s *pg.SelectStmt, i int) bool {
	if s == nil || s.Op != pg.SetOperation_SETOP_NONE || len(s.ValuesLists) > 0 || i >= len(s.TargetList) {
		return false
	}
	rt := s.TargetList[i].GetResTarget()
	if rt == nil {
		return false
	}
	c := rt.Val.GetAConst()
	if c == nil || !(c.Isnull || c.GetSval() != nil) {
		return false
	}
	// A literal the branch sorts, groups or makes distinct by is text
	// there already (PostgreSQL's addTargetToSortList): SELECT DISTINCT
	// 'x' … UNION SELECT 1 is 42804, not 22P02.
	if len(s.DistinctClause) > 0 {
		return false
	}
	for _, n := range s.GroupClause {
		if positionRef(n) == i+1 {
			return false
		}
	}
	for _, n := range s.SortClause {
		if sb := n.GetSortBy(); sb != nil && positionRef(sb.Node) == i+1 {
			return false
		}
	}
	return true
}

// positionRef is n's select-list position when n is an integer constant
// (GROUP BY 1, ORDER BY 1), else 0.
func positionRef(n *pg.Node) int {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		return int(c.GetIval().Ival)
	}
	return 0
}
