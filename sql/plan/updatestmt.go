package plan

import (
	"fmt"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Update plans UPDATE t SET … [FROM …] [WHERE …] [RETURNING …]: the sink
// (physical.Modify) over each changed row's id and its new values, one
// column per table column in table order: the SET expression, assignment
// cast to the column's type, or the column's old value.
func (p *Planner) Update(u *pg.UpdateStmt) (q *Query, err error) {
	if u.WithClause != nil {
		saved := p.ctes
		defer func() { p.ctes = saved }()
		if err := p.with(u.WithClause); err != nil {
			return nil, err
		}
		mine := p.ctes
		defer func() {
			if err == nil {
				err = p.checkUnread(mine, saved)
			}
		}()
	}
	ti, alias, err := p.modifyTarget(u.Relation, "update")
	if err != nil {
		return nil, err
	}
	p.need(ti, "UPDATE", u.Relation.Location)
	if reads(u.WhereClause) || listReads(u.ReturningList) || listReads(u.TargetList) {
		p.need(ti, "SELECT", u.Relation.Location) // it reads the rows it changes
	}
	sets, err := p.setItems(u.TargetList, ti)
	if err != nil {
		return nil, err
	}
	in, ret, cols, err := p.modifyRows(ti, alias, u.FromClause, u.WhereClause, u.ReturningList, func(sc *scope) ([]expr.Expr, error) {
		return p.bindSets(sc, ti, sets)
	})
	if err != nil {
		return nil, err
	}
	t, err := p.CheckedTarget(ti)
	if err != nil {
		return nil, err
	}
	return p.modifyQuery(&physical.Modify{Update: true, In: in, Target: t, Returning: ret, Dedupe: len(u.FromClause) > 0}, cols)
}

// setItem is one assignment of SET: the column and its value, nil for
// DEFAULT.
type setItem struct {
	col int
	val *pg.Node
	loc int32
}

// setItems resolves SET's columns, as PostgreSQL's analysis does before
// it binds any value: (a, b) = ROW(x, y) and (a, b) = (SELECT x, y …)
// become one item a column.
func (p *Planner) setItems(list []*pg.Node, ti *TableInfo) ([]setItem, error) {
	var items []setItem
	for _, n := range list {
		rt := n.GetResTarget()
		idx := -1
		for i, c := range ti.Columns {
			if c == rt.Name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, ti.Name).WithPosition(pos(p.query, rt.Location))
		}
		if len(rt.Indirection) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "assignment to a field or an element of column %q is not supported", rt.Name).WithPosition(pos(p.query, rt.Location))
		}
		val := rt.Val
		if m := val.GetMultiAssignRef(); m != nil {
			var err error
			if val, err = p.multiAssignItem(m); err != nil {
				return nil, err
			}
		}
		if val.GetSetToDefault() != nil {
			val = nil
		}
		items = append(items, setItem{col: idx, val: val, loc: rt.Location})
	}
	return items, nil
}

// multiAssignItem is the value of one column of (a, b, …) = source.
func (p *Planner) multiAssignItem(m *pg.MultiAssignRef) (*pg.Node, error) {
	k := int(m.Colno) - 1
	if r := m.Source.GetRowExpr(); r != nil {
		if len(r.Args) != int(m.Ncolumns) {
			return nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values").WithPosition(pos(p.query, r.Location))
		}
		return r.Args[k], nil
	}
	if sl := m.Source.GetSubLink(); sl != nil && (sl.SubLinkType == pg.SubLinkType_MULTIEXPR_SUBLINK || sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK) {
		sel := sl.Subselect.GetSelectStmt()
		if sel != nil && sel.Op == pg.SetOperation_SETOP_NONE && len(sel.ValuesLists) == 0 && !hasStar(sel.TargetList) && len(sel.TargetList) != int(m.Ncolumns) {
			return nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values")
		}
		if sel == nil || sel.Op != pg.SetOperation_SETOP_NONE || len(sel.ValuesLists) > 0 || len(sel.TargetList) != int(m.Ncolumns) || hasStar(sel.TargetList) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "this sub-SELECT of a multiple-column UPDATE item is not supported yet").WithPosition(pos(p.query, sl.Location))
		}
		// Each column reads its own column of the sub-SELECT, as
		// (SELECT x.ck FROM (sub-SELECT) x(c1, …, cn)): the same value
		// while the sub-SELECT has no volatile parts.
		const alias = "?multiassign?"
		names := make([]*pg.Node, m.Ncolumns)
		for i := range names {
			names[i] = &pg.Node{Node: &pg.Node_String_{String_: &pg.String{Sval: "c" + itoa(i+1)}}}
		}
		col := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{
			{Node: &pg.Node_String_{String_: &pg.String{Sval: alias}}},
			{Node: &pg.Node_String_{String_: &pg.String{Sval: "c" + itoa(k+1)}}}}, Location: -1}}}
		one := &pg.SelectStmt{Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
			TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: col, Location: -1}}}},
			FromClause: []*pg.Node{{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
				Subquery: sl.Subselect, Alias: &pg.Alias{Aliasname: alias, Colnames: names}}}}},
		}
		return &pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: pg.SubLinkType_EXPR_SUBLINK,
			Subselect: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: one}}, Location: sl.Location}}}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression").WithPosition(pos(p.query, nodeLocation(m.Source)))
}

func hasStar(list []*pg.Node) bool {
	for _, n := range list {
		if cr := n.GetResTarget().GetVal().GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			return true
		}
	}
	return false
}

// bindSets binds the new row: the row id, then each column's SET value,
// assignment cast to its type, or its old value.
func (p *Planner) bindSets(sc *scope, ti *TableInfo, sets []setItem) ([]expr.Expr, error) {
	exprs := make([]expr.Expr, 1+len(ti.Columns))
	exprs[0] = rowIDExpr(ti)
	b := &binder{p: p, sc: sc, where: "UPDATE"}
	given := make([]bool, len(ti.Columns))
	for _, s := range sets {
		want := ti.Types[s.col]
		var e expr.Expr
		var err error
		switch {
		case s.val == nil && (ti.Defaults == nil || ti.Defaults[s.col] == ""):
			e = &expr.Const{D: types.NullOf(want)}
		case s.val == nil:
			e, err = p.BindDefault(ti.Defaults[s.col], want)
		default:
			e, err = p.assigned(b, s.val, ti.Columns[s.col], want)
		}
		if err != nil {
			return nil, err
		}
		exprs[1+s.col] = e
	}
	// Checked after the values bind, as PostgreSQL's rewriter does.
	for _, s := range sets {
		if given[s.col] {
			return nil, pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", ti.Columns[s.col])
		}
		given[s.col] = true
		if s.val != nil && ti.Identity != nil && ti.Identity[s.col] == "a" {
			col := ti.Columns[s.col]
			e := pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", col)
			e.Detail = fmt.Sprintf("Column %q is an identity column defined as GENERATED ALWAYS.", col)
			return nil, e
		}
	}
	for i, t := range ti.Types {
		if exprs[1+i] == nil {
			sc.used[i] = true
			exprs[1+i] = &expr.Col{Idx: i, T: t, Name: ti.Columns[i]}
		}
	}
	return exprs, nil
}

// assigned binds a value assigned to a column of type want: PostgreSQL's
// assignment rules, as INSERT's VALUES follow them.
func (p *Planner) assigned(b *binder, n *pg.Node, col string, want types.T) (expr.Expr, error) {
	e, err := b.bind(n)
	if err != nil {
		return nil, err
	}
	got := e.Type()
	if _, ok := types.Common(got, want); !ok && got.Kind != types.Unknown && !AssignsToString(want) && !ArrayAssigns(got, want) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", col, want, got).
			WithPosition(pos(p.query, nodeLocation(n))).WithHint("You will need to rewrite or cast the expression.")
	}
	return b.coerce(e, want, nodeLocation(n))
}
