package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// cte is one WITH query. It is planned where it is referenced (inlined),
// with the WITH queries that were visible where it was written.
type cte struct {
	name     string
	sel      *pg.SelectStmt
	colnames []string
	loc      int32
	parent   *cte // the next query out; scope of this one is parent, or itself when recursive
	rec      bool // written under WITH RECURSIVE

	// While the recursive term of a recursive query is planned, a reference
	// to the query itself reads the working table.
	work      *workTable
	inNonRec  bool // planning the non-recursive term: a self reference is an error
	selfFound bool
	read      bool // planned where referenced at least once

	// mat is how it was written (MATERIALIZED or not); once: computed
	// once and spooled to its references (ctematerialize.go).
	mat    pg.CTEMaterialize
	once   bool
	spool  *physical.Spool
	spoolQ *Query
}

type workTable struct {
	ts  []types.T
	ref *physical.WorkTable
}

// with puts the queries of a WITH clause in scope; the caller restores
// p.ctes when the statement is planned.
func (p *Planner) with(w *pg.WithClause) error {
	seen := map[string]bool{}
	for _, n := range w.Ctes {
		ce := n.GetCommonTableExpr()
		if seen[ce.Ctename] {
			return pgerr.New(pgerr.DuplicateAlias, "WITH query name %q specified more than once", ce.Ctename).WithPosition(pos(p.query, ce.Location))
		}
		seen[ce.Ctename] = true
		if ce.SearchClause != nil || ce.CycleClause != nil {
			clause, loc := "SEARCH", int32(0)
			if ce.SearchClause != nil {
				loc = ce.SearchClause.Location
			} else {
				clause, loc = "CYCLE", ce.CycleClause.Location
			}
			return pgerr.New(pgerr.FeatureNotSupported, "the %s clause of WITH RECURSIVE is not supported", clause).WithPosition(pos(p.query, loc))
		}
		sel := ce.Ctequery.GetSelectStmt()
		if sel == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "WITH query %q must be a SELECT: data-modifying statements in WITH are not supported", ce.Ctename).WithPosition(pos(p.query, ce.Location))
		}
		c := &cte{name: ce.Ctename, sel: sel, loc: ce.Location, parent: p.ctes, rec: w.Recursive, mat: ce.Ctematerialized}
		for _, a := range ce.Aliascolnames {
			c.colnames = append(c.colnames, a.GetString_().Sval)
		}
		p.ctes = c
	}
	return nil
}

func (p *Planner) lookupCTE(rv *pg.RangeVar) *cte {
	if rv.Schemaname != "" {
		return nil
	}
	for c := p.ctes; c != nil; c = c.parent {
		if c.name == rv.Relname {
			return c
		}
	}
	return nil
}

// cteItem plans a reference to a WITH query as a FROM item.
func (p *Planner) cteItem(c *cte, rv *pg.RangeVar) (*fromItem, error) {
	alias := c.name
	var aliasCols []string
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
		for _, a := range rv.Alias.Colnames {
			aliasCols = append(aliasCols, a.GetString_().Sval)
		}
	}
	if c.inNonRec {
		return nil, pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", c.name).WithPosition(pos(p.query, rv.Location))
	}
	var q *Query
	var err error
	c.read = true
	if c.work != nil {
		// Inside the recursive term: the working table.
		c.selfFound = true
		q = &Query{Root: &physical.WorkTableScan{Work: c.work.ref}}
		for i, t := range c.work.ts {
			q.Columns = append(q.Columns, Column{Name: c.colnames[i], T: t})
		}
	} else if c.once {
		var read physical.Node
		if q, read, err = p.spooled(c); err != nil {
			return nil, err
		}
		q = &Query{Root: read, Columns: q.Columns}
	} else if q, err = p.planCTE(c); err != nil {
		return nil, err
	}
	names := append([]string{}, c.colnames...)
	for i := len(names); i < len(q.Columns); i++ {
		names = append(names, q.Columns[i].Name)
	}
	copy(names, aliasCols)
	cols := make([]scopeCol, len(q.Columns))
	for i, col := range q.Columns {
		cols[i] = scopeCol{table: alias, name: names[i], t: col.T, origin: origin{col.TableOID, col.ColumnNum}}
	}
	return &fromItem{cols: cols, build: func(sc *scope, off int, _ expr.Expr) (physical.Node, error) {
		if c.rec || c.once {
			return q.Root, nil
		}
		return p.pruneUnread(q.Root, sc.used[off:off+len(cols)]), nil
	}}, nil
}

// planCTE plans the query of c in the scope it was written in.
func (p *Planner) planCTE(c *cte) (*Query, error) {
	saved := p.ctes
	defer func() { p.ctes = saved }()
	p.ctes = c.parent
	if !c.rec {
		q, err := p.Select(c.sel)
		if err != nil {
			return nil, err
		}
		if len(c.colnames) > len(q.Columns) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", c.name, len(q.Columns), len(c.colnames)).WithPosition(pos(p.query, c.loc))
		}
		return q, nil
	}
	p.ctes = c // a recursive query sees itself
	s := c.sel
	if s.Op != pg.SetOperation_SETOP_UNION || s.Larg == nil || s.Rarg == nil || len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || s.WithClause != nil {
		// Not of the recursive form: fine as long as it does not refer to
		// itself, which planning it with itself out of scope finds out.
		p.ctes = c.parent
		q, err := p.Select(s)
		if err != nil {
			if pgerr.Code(err) == pgerr.UndefinedTable {
				return nil, pgerr.New(pgerr.InvalidRecursion, "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", c.name).WithPosition(pos(p.query, c.loc))
			}
			return nil, err
		}
		return q, nil
	}
	c.inNonRec = true
	init, err := p.Select(s.Larg)
	c.inNonRec = false
	if err != nil {
		return nil, err
	}
	if len(c.colnames) > len(init.Columns) {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", c.name, len(init.Columns), len(c.colnames)).WithPosition(pos(p.query, c.loc))
	}
	ts := make([]types.T, len(init.Columns))
	cols := make([]Column, len(init.Columns))
	names := append([]string{}, c.colnames...)
	for i, col := range init.Columns {
		t := col.T
		if t.Kind == types.Unknown {
			t = types.TText
		}
		ts[i] = t
		if i >= len(names) {
			names = append(names, col.Name)
		}
		cols[i] = Column{Name: names[i], T: t}
	}
	initOp := p.conform(init, ts)

	// The recursive term is planned once, its references to the query
	// itself reading the working table, which the recursive union fills
	// for each iteration when the plan runs.
	if err := p.checkRecursion(c.name, s.Rarg); err != nil {
		return nil, err
	}
	work := &physical.WorkTable{Name: c.name, ColumnTypes: ts}
	rec, err := p.recursiveTerm(c, s.Rarg, names, &workTable{ts: ts, ref: work})
	if err != nil {
		return nil, err
	}
	if rec == nil {
		// WITH RECURSIVE over a plain UNION: no recursion.
		p.ctes = c.parent
		return p.Select(s)
	}
	return &Query{Root: &physical.RecursiveUnion{ColumnTypes: ts, Work: work, Init: initOp, Recursive: rec, Distinct: !s.All}, Columns: cols}, nil
}

// recursiveTerm plans the recursive term rarg of c, whose columns are
// names, over the working table work, conformed to its types; nil when
// the term does not refer to c at all.
func (p *Planner) recursiveTerm(c *cte, rarg *pg.SelectStmt, names []string, work *workTable) (physical.Node, error) {
	saved := c.colnames
	c.colnames, c.work, c.selfFound = names, work, false
	defer func() { c.work, c.colnames = nil, saved }()
	q, err := p.Select(rarg)
	if err != nil {
		return nil, err
	}
	ts := work.ts
	if len(q.Columns) != len(ts) {
		return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns").WithPosition(pos(p.query, c.loc))
	}
	for i, col := range q.Columns {
		if col.T.Kind == ts[i].Kind || col.T.Kind == types.Unknown {
			continue
		}
		if t, ok := types.Common(ts[i], col.T); !ok || t.Kind != ts[i].Kind {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall", c.name, i+1, ts[i], col.T).
				WithPosition(pos(p.query, c.loc)).WithHint("Cast the output of the non-recursive term to the correct type.")
		}
	}
	if !c.selfFound {
		return nil, nil
	}
	return p.conform(q, ts), nil
}

// checkUnread plans, and throws away, each WITH query from mine down to
// (not including) outer that the statement did not read: PostgreSQL
// never runs such a query, but analyses it, so its type errors (42804,
// 42883…) are the statement's.
func (p *Planner) checkUnread(mine, outer *cte) error {
	var unread []*cte
	for c := mine; c != nil && c != outer; c = c.parent {
		if !c.read {
			unread = append(unread, c)
		}
	}
	for i := len(unread) - 1; i >= 0; i-- {
		if _, err := p.planCTE(unread[i]); err != nil {
			return err
		}
	}
	return nil
}
