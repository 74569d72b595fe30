package plan

import (
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// UPDATE and DELETE read the rows they change as a query reads them: the
// target table, with each row's id (link.RowIDColumn), joined to the
// items of FROM (USING) and filtered by WHERE; a sink (physical.Modify)
// deletes the rows by id and, for an UPDATE, adds the new ones. The
// session holds the table's row lock from before the planner's lookup of
// the table until the transaction ends (sql/engine/dml.go), so the ids
// stay valid and no other transaction changes the rows meanwhile.

// modifyTarget resolves the table an UPDATE or DELETE (verb) changes and
// the name its columns are qualified by (its alias, else its name).
func (p *Planner) modifyTarget(rv *pg.RangeVar, verb string) (*TableInfo, string, error) {
	ti, err := p.lookupTarget(rv)
	if err != nil {
		return nil, "", err
	}
	switch {
	case ti.Sequence:
		return nil, "", pgerr.New(pgerr.WrongObjectType, "cannot change sequence %q", ti.Name)
	case ti.ViewSQL != "":
		return nil, "", pgerr.New(pgerr.FeatureNotSupported, "cannot %s view %q: Loam views are read-only", verb, ti.Name).WithPosition(pos(p.query, rv.Location))
	}
	alias, err := p.changeable(ti, rv, verb)
	if err != nil {
		return nil, "", err
	}
	return ti, alias, nil
}

// lookupTarget finds the relation an UPDATE, DELETE or MERGE names.
func (p *Planner) lookupTarget(rv *pg.RangeVar) (*TableInfo, error) {
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
	return ti, nil
}

// changeable checks that ti, which rv names, is a table whose current
// state verb ("update", "merge into"…) may change: not a past snapshot,
// a tag or a branch. It returns the name the table's columns are
// qualified by: its alias, else its name.
func (p *Planner) changeable(ti *TableInfo, rv *pg.RangeVar, verb string) (string, error) {
	if ti.Table == nil {
		return "", pgerr.New(pgerr.WrongObjectType, "cannot change relation %q", ti.Name)
	}
	if err := refuseExternal(ti, verb); err != nil {
		return "", err
	}
	if a, ok := p.asOf(rv.Location); ok {
		return "", pgerr.New(pgerr.FeatureNotSupported, "cannot %s %q as of a past snapshot: time travel only reads", verb, rv.Relname).WithPosition(a.Pos)
	}
	if ti.Ref != "" && ti.Ref != table.MainBranch {
		if r, ok := icetable.Ref(ti.Table, ti.Ref); ok && r.SnapshotRefType == table.TagRef {
			return "", link.TagWriteError(ti.Name, ti.Ref)
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "UPDATE, DELETE and MERGE on a branch (%s@%s) are not supported", ti.Name, ti.Ref)
	}
	if rv.Alias != nil {
		return rv.Alias.Aliasname, nil
	}
	return ti.Name, nil
}

// targetItem is the FROM item of the table an UPDATE or DELETE changes:
// its columns, then its row id, a system column reachable only
// qualified (alias._loam_rowid), which makes its scan read row ids.
func (p *Planner) targetItem(ti *TableInfo, alias string) *fromItem {
	cols := append(p.tableCols(ti, alias), scopeCol{table: alias, name: link.RowIDColumn, t: types.TInt8, hidden: true, system: true})
	width := len(ti.Columns)
	return &fromItem{cols: cols, rows: tableRows(ti), build: func(sc *scope, off int, filter expr.Expr) (physical.Node, error) {
		scan := &physical.Scan{Source: p.scanSource(ti), Expiry: p.expiry(ti), RowIDs: true}
		if filter != nil {
			scan.Prune, scan.Names = filter, append(append([]string(nil), ti.Columns...), link.RowIDColumn)
		}
		var positions []int
		all := make([]types.T, len(cols))
		for i, c := range cols {
			all[i] = c.t
			if i < width && sc.used[off+i] {
				scan.Columns = append(scan.Columns, c.name)
				scan.ColumnTypes = append(scan.ColumnTypes, c.t)
				positions = append(positions, i)
			}
		}
		// The scan yields the row ids after the columns.
		positions = append(positions, width)
		return &physical.Widen{In: scan, Positions: positions, All: all}, nil
	}}
}

// modifyRows plans the rows an UPDATE or DELETE changes: the target's
// rows joined to the items of from, those for which where holds, each
// projected by the expressions project binds over the scope (the
// target's columns, its row id at len(ti.Columns), then the columns of
// the from items): the row id first, then, if any, one per table column.
// A RETURNING list (returning) is bound last, over the same scope, where
// the target's columns stand for the row project makes; the columns of
// the from items it reads are added after project's, and the list is
// returned as it reads the sink's rows (the table's columns, then
// those).
func (p *Planner) modifyRows(ti *TableInfo, alias string, from []*pg.Node, where *pg.Node, returning []*pg.Node,
	project func(sc *scope) ([]expr.Expr, error)) (physical.Node, []expr.Expr, []Column, error) {
	items := []*fromItem{p.targetItem(ti, alias)}
	cols := append([]scopeCol(nil), items[0].cols...)
	for _, n := range from {
		if isLateral(n) || joinHasLateral(n) {
			return nil, nil, nil, pgerr.New(pgerr.FeatureNotSupported, "LATERAL in the FROM or USING of UPDATE or DELETE is not supported yet")
		}
		it, err := p.fromNode(n)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, c := range it.cols {
			if c.table == alias {
				return nil, nil, nil, pgerr.New(pgerr.DuplicateAlias, "table name %q specified more than once", alias)
			}
		}
		items = append(items, it)
		cols = append(cols, it.cols...)
	}
	sc := newScope(cols)
	var pred expr.Expr
	if where != nil {
		if where.GetCurrentOfExpr() != nil {
			return nil, nil, nil, pgerr.New(pgerr.FeatureNotSupported, "WHERE CURRENT OF is not supported")
		}
		b := &binder{p: p, sc: sc, where: "WHERE"}
		e, err := b.bind(where)
		if err != nil {
			return nil, nil, nil, err
		}
		if pred, err = b.coerceBool(e, nodeLocation(where)); err != nil {
			return nil, nil, nil, err
		}
		pred = p.fold(pred)
	}
	width := len(ti.Columns)
	sc.used[width] = true // the row id
	exprs, err := project(sc)
	if err != nil {
		return nil, nil, nil, err
	}
	var ret []expr.Expr
	var retCols []Column
	if len(returning) > 0 {
		if ret, retCols, err = p.bindReturning(sc, returning); err != nil {
			return nil, nil, nil, err
		}
		// The sink's rows: the table's columns, then the from items'
		// columns the statement reads.
		m := map[int]int{}
		for i := 0; i < width; i++ {
			m[i] = i
		}
		for i := width + 1; i < len(sc.cols); i++ {
			if sc.used[i] {
				m[i] = len(exprs) - 1
				exprs = append(exprs, &expr.Col{Idx: i, T: sc.cols[i].t, Name: sc.label(i)})
			}
		}
		for k, e := range ret {
			if len(m) == width {
				break // the table's columns alone: nothing moves
			}
			r, ok := remap(e, m)
			if !ok {
				return nil, nil, nil, pgerr.New(pgerr.FeatureNotSupported, "this RETURNING expression is not supported with FROM or USING")
			}
			ret[k] = r
		}
	}
	var root node = &sourceNode{what: "FROM list", build: func(w expr.Expr) (physical.Node, error) {
		return p.joinList(sc, items, w)
	}}
	if pred != nil {
		root = &filterNode{in: root, pred: pred}
	}
	root = &projectNode{in: root, exprs: exprs}
	root = p.rewrite(root)
	op, err := p.lower(root)
	return op, ret, retCols, err
}

// bindReturning binds a RETURNING list over sc; * is every column but
// the system ones, t.* those of t.
func (p *Planner) bindReturning(sc *scope, list []*pg.Node) ([]expr.Expr, []Column, error) {
	b := &binder{p: p, sc: sc, where: "RETURNING"}
	var exprs []expr.Expr
	var out []Column
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			tbl := ""
			if len(cr.Fields) > 1 {
				tbl = cr.Fields[len(cr.Fields)-2].GetString_().Sval
			}
			found := false
			for i, c := range sc.cols {
				if !c.system && (tbl == "" && !c.hidden || tbl != "" && c.table == tbl) {
					sc.used[i] = true
					found = true
					exprs = append(exprs, &expr.Col{Idx: i, T: c.t, Name: sc.label(i)})
					out = append(out, Column{Name: c.name, T: c.t, TableOID: c.origin.table, ColumnNum: c.origin.attnum})
				}
			}
			if !found {
				return nil, nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", tbl).WithPosition(pos(p.query, cr.Location))
			}
			continue
		}
		e, err := b.bind(rt.Val)
		if err != nil {
			return nil, nil, err
		}
		if e.Type().Kind == types.Unknown {
			e, _ = b.coerce(e, types.TText, rt.Location)
		}
		name := rt.Name
		if name == "" {
			name = columnName(rt.Val)
		}
		o := sc.originOf(rt.Val)
		exprs = append(exprs, p.fold(e))
		out = append(out, Column{Name: name, T: e.Type(), TableOID: o.table, ColumnNum: o.attnum})
	}
	return exprs, out, nil
}

// rowIDExpr is the row id column of the target in modifyRows' scope.
func rowIDExpr(ti *TableInfo) expr.Expr {
	return &expr.Col{Idx: len(ti.Columns), T: types.TInt8, Name: link.RowIDColumn}
}

// modifyQuery is the query of an UPDATE's or DELETE's sink.
func (p *Planner) modifyQuery(m *physical.Modify, cols []Column) (*Query, error) {
	q := &Query{Root: m, Columns: cols}
	if m.Returning == nil {
		// The count row the sink yields is no result column.
		q.env = p.Env()
		return q, nil
	}
	return p.checked(q)
}
