package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Insert plans an INSERT. The plan's root is the sink (exec.NewInsert)
// over the source: the VALUES or query, projected to one column per
// table column in table order (the columns not given take their
// defaults, identity and serial columns their sequence's next value, the
// given ones an assignment cast to the column's type). The sink writes
// through the statement's writer, which the execution context carries,
// and yields the RETURNING rows (Columns are the list's), or, without
// RETURNING (Columns nil), one row holding the number of rows written.
func (p *Planner) Insert(ins *pg.InsertStmt) (*Query, error) {
	if ins.WithClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH before INSERT is not supported yet").
			WithPosition(pos(p.query, ins.WithClause.Location))
	}
	rv := ins.Relation
	if err := p.useSchema(rv); err != nil {
		return nil, err
	}
	ti, err := p.cat.Table(p.ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		if merr := MetaTableWrite(p.ctx, p.cat, rv, err, false, false); merr != err {
			return nil, merr // no position: PostgreSQL's executor raises it
		}
		return nil, pgerr.From(err).WithPosition(pos(p.query, rv.Location))
	}
	if err := p.searchable(rv, ti); err != nil {
		return nil, err
	}
	if ti.Sequence {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot change sequence %q", ti.Name)
	}
	p.need(ti, "INSERT", rv.Location)
	if listReads(ins.ReturningList) {
		p.need(ti, "SELECT", rv.Location)
	}
	if oc := ins.OnConflictClause; oc != nil {
		if oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			p.need(ti, "UPDATE", rv.Location)
			p.need(ti, "SELECT", rv.Location)
		} else if oc.Infer != nil {
			// The conflict target's columns are read, DO NOTHING too.
			p.need(ti, "SELECT", rv.Location)
		}
	}
	if ti.ViewSQL != "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot insert into view %q: Loam views are read-only", ti.Name).WithPosition(pos(p.query, rv.Location))
	}
	if err := refuseExternal(ti, "insert into"); err != nil {
		return nil, err
	}
	src, err := p.insertSource(ins, ti)
	if err != nil {
		return nil, err
	}
	var ret []expr.Expr
	var cols []Column
	if len(ins.ReturningList) > 0 {
		alias := ti.Name
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		if ret, cols, err = p.Returning(ti, alias, ins.ReturningList); err != nil {
			return nil, err
		}
	}
	t, err := p.CheckedTarget(ti)
	if err != nil {
		return nil, err
	}
	alias := ti.Name
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	if t.Conflict, err = p.onConflict(ins.OnConflictClause, ti, alias); err != nil {
		return nil, err
	}
	q := &Query{Root: &physical.Insert{In: src, Target: t, Returning: ret}, Columns: cols}
	if ret == nil {
		// The count row the sink yields is no result column: a plain
		// INSERT returns no rows.
		q.env = p.Env()
		return q, nil
	}
	return p.checked(q)
}

// insertSource plans the rows to insert: one column per table column, in
// table order, of the column types.
func (p *Planner) insertSource(ins *pg.InsertStmt, ti *TableInfo) (physical.Node, error) {
	target, err := p.insertTargets(ins, ti)
	if err != nil {
		return nil, err
	}
	sel := ins.SelectStmt.GetSelectStmt()
	if sel == nil {
		// INSERT … DEFAULT VALUES
		sel = &pg.SelectStmt{ValuesLists: []*pg.Node{{Node: &pg.Node_List{List: &pg.List{}}}}}
		target = nil
	}
	if err := checkIdentityInsert(ins, ti, target, sel); err != nil {
		return nil, err
	}
	// With no column list, fewer expressions than columns fill the first
	// columns; the rest take their defaults, as in PostgreSQL.
	implicit := len(ins.Cols) == 0 && target != nil
	var q *Query
	if len(sel.ValuesLists) > 0 {
		if n := len(sel.ValuesLists[0].GetList().GetItems()); implicit && n < len(target) {
			target = target[:n]
		}
		q, err = p.InsertValues(sel, ti.Types, target, ti.Defaults)
	} else {
		q, err = p.Select(sel)
	}
	if err != nil {
		return nil, err
	}
	if implicit && len(q.Columns) < len(target) {
		target = target[:len(q.Columns)]
	}
	if len(q.Columns) > len(target) {
		return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	if len(q.Columns) < len(target) {
		return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	exprs := make([]expr.Expr, len(ti.Columns))
	for i, t := range ti.Types {
		exprs[i] = &expr.Const{D: types.NullOf(t)}
		if ti.Defaults != nil && ti.Defaults[i] != "" {
			// Columns not given take their default.
			if exprs[i], err = p.BindDefault(ti.Defaults[i], t); err != nil {
				return nil, err
			}
		}
	}
	for k, idx := range target {
		var e expr.Expr = &expr.Col{Idx: k, T: q.Columns[k].T}
		want := ti.Types[idx]
		if q.Columns[k].T.Kind != want.Kind || want.Width >= 0 {
			if _, ok := types.Common(q.Columns[k].T, want); !ok && q.Columns[k].T.Kind != types.Text && !AssignsToString(want) && !ArrayAssigns(q.Columns[k].T, want) {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", ti.Columns[idx], want, q.Columns[k].T).
					WithHint("You will need to rewrite or cast the expression.")
			}
			e = &expr.Cast{Arg: e, T: want}
		}
		exprs[idx] = e
		if ins.Override == pg.OverridingKind_OVERRIDING_USER_VALUE && ti.Identity != nil && ti.Identity[idx] != "" {
			// The values given are ignored: the sequence's are taken.
			if exprs[idx], err = p.BindDefault(ti.Defaults[idx], want); err != nil {
				return nil, err
			}
		}
	}
	return &physical.Project{In: q.Root, Exprs: exprs}, nil
}

// insertTargets resolves the target columns: the list given, else all in
// order.
func (p *Planner) insertTargets(ins *pg.InsertStmt, ti *TableInfo) ([]int, error) {
	target := make([]int, 0, len(ti.Columns))
	if len(ins.Cols) == 0 {
		for i := range ti.Columns {
			target = append(target, i)
		}
		return target, nil
	}
	seen := map[int]bool{}
	for _, c := range ins.Cols {
		rt := c.GetResTarget()
		idx := -1
		for i, name := range ti.Columns {
			if name == rt.Name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, ti.Name).WithPosition(pos(p.query, rt.Location))
		}
		if seen[idx] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", rt.Name).WithPosition(pos(p.query, rt.Location))
		}
		seen[idx] = true
		target = append(target, idx)
	}
	return target, nil
}
