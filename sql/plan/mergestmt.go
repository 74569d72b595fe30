package plan

import (
	"fmt"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Merge plans a MERGE (PostgreSQL 15's). The plan's root is the sink
// (exec.NewMerge) over the source joined to the target: source LEFT JOIN
// target when a clause is WHEN NOT MATCHED, else an inner join, with the
// target scanned with its row ids, which come last in the joined row
// (NULL where a source row matched no target row). The WHEN clauses are
// bound over that row: a MATCHED clause sees the source's and target's
// columns, a NOT MATCHED one the source's only. The sink yields one
// row, the number of rows inserted, updated and deleted (Columns nil).
func (p *Planner) Merge(ms *pg.MergeStmt) (q *Query, err error) {
	if ms.WithClause != nil {
		saved := p.ctes
		defer func() { p.ctes = saved }()
		if err := p.with(ms.WithClause); err != nil {
			return nil, err
		}
		mine := p.ctes
		defer func() {
			if err == nil {
				if err = p.checkUnread(mine, saved); err != nil {
					q = nil
				}
			}
		}()
	}
	if err := checkReachable(ms.MergeWhenClauses); err != nil {
		return nil, err
	}
	ti, alias, err := p.mergeTarget(ms.Relation)
	if err != nil {
		return nil, err
	}
	p.need(ti, "SELECT", ms.Relation.Location)
	for _, n := range ms.MergeWhenClauses {
		switch n.GetMergeWhenClause().CommandType {
		case pg.CmdType_CMD_INSERT:
			p.need(ti, "INSERT", ms.Relation.Location)
		case pg.CmdType_CMD_UPDATE:
			p.need(ti, "UPDATE", ms.Relation.Location)
		case pg.CmdType_CMD_DELETE:
			p.need(ti, "DELETE", ms.Relation.Location)
		}
	}
	src, err := p.fromNode(ms.SourceRelation)
	if err != nil {
		return nil, err
	}
	for _, c := range src.cols {
		if c.table == alias {
			e := pgerr.New(pgerr.DuplicateAlias, "name %q specified more than once", alias)
			e.Detail = "The name is used both as MERGE target table and data source."
			return nil, e
		}
	}
	tgt := p.targetItem(ti, alias) // its columns, then its row id
	ns, nt := len(src.cols), len(ti.Columns)
	sc := newScope(append(append([]scopeCol{}, src.cols...), tgt.cols...))

	on, err := p.mergeOn(sc, ms.JoinCondition)
	if err != nil {
		return nil, err
	}
	m := &mergeBinder{p: p, ti: ti, sc: sc, ns: ns, nt: nt}
	kind := exec.InnerJoin
	var actions []exec.MergeAction
	for _, n := range ms.MergeWhenClauses {
		a, err := m.action(n.GetMergeWhenClause())
		if err != nil {
			return nil, err
		}
		if !a.Matched {
			kind = exec.LeftJoin
		}
		actions = append(actions, a)
	}
	b := &binder{p: p, sc: sc, where: "JOIN conditions"}
	join, err := p.joinOp(kind, src, tgt, sc, 0, b, &pg.JoinExpr{}, []expr.Expr{on}, nil, targetOnly(on, ns, nt))
	if err != nil {
		return nil, err
	}
	if src.rows >= 0 && tgt.rows > src.rows {
		join = p.hashSource(join)
	}
	t, err := p.CheckedTarget(ti)
	if err != nil {
		return nil, err
	}
	var as string
	if ms.Relation.Alias != nil {
		as = alias
	}
	q = &Query{Root: &physical.Merge{In: join, Target: t, RowID: ns + nt, Actions: actions, Alias: as}}
	q.env = p.Env()
	return q, nil
}

// hashSource turns the left hash join of the source to the target, which
// hashes (and holds in memory) the target, into target RIGHT JOIN source,
// which hashes the source (swappedHashJoin): the source of a MERGE is
// usually the smaller side, a few rows merged into a large table. Other
// joins are returned as they are.
func (p *Planner) hashSource(n physical.Node) physical.Node {
	j, ok := n.(*physical.HashJoin)
	if !ok || j.Kind != exec.LeftJoin {
		return n
	}
	return p.swappedHashJoin(exec.LeftJoin, j.Left, j.Right, j.LeftKeys, j.RightKeys, j.Extra)
}

// targetOnly are the conjuncts of the join condition that read the
// target's columns alone (at ns…ns+nt-1 of the joined row), over the
// target's columns: its scan prunes files with them, since a row that
// fails one matches no source row.
func targetOnly(on expr.Expr, ns, nt int) []expr.Expr {
	local := map[int]int{}
	for i := 0; i < nt; i++ {
		local[ns+i] = i
	}
	var out []expr.Expr
	for _, c := range expr.Conjuncts(on) {
		if cols, ok := colsOf(c); !ok || len(cols) == 0 || !allIn(cols, local) {
			continue
		}
		if e, ok := remap(c, local); ok {
			out = append(out, e)
		}
	}
	return out
}

// checkReachable refuses a WHEN clause after an unconditional one of the
// same kind (MATCHED or NOT MATCHED), which no row could reach.
func checkReachable(clauses []*pg.Node) error {
	var terminal [2]bool
	for _, n := range clauses {
		wc := n.GetMergeWhenClause()
		k := 0
		if wc.Matched {
			k = 1
		}
		if terminal[k] {
			return pgerr.New(pgerr.SyntaxError, "unreachable WHEN clause specified after unconditional WHEN clause")
		}
		if wc.Condition == nil {
			terminal[k] = true
		}
	}
	return nil
}

// mergeTarget resolves the table a MERGE writes, and the name its
// columns are qualified with.
func (p *Planner) mergeTarget(rv *pg.RangeVar) (*TableInfo, string, error) {
	ti, err := p.lookupTarget(rv)
	if err != nil {
		return nil, "", err
	}
	what := ""
	switch {
	case ti.Sequence:
		what = "sequences"
	case ti.ViewSQL != "":
		what = "views"
	}
	if what != "" {
		e := pgerr.New(pgerr.FeatureNotSupported, "cannot execute MERGE on relation %q", ti.Name)
		e.Detail = "This operation is not supported for " + what + "."
		return nil, "", e
	}
	// A past snapshot, a tag or a branch: as UPDATE's and DELETE's.
	alias, err := p.changeable(ti, rv, "merge into")
	if err != nil {
		return nil, "", err
	}
	return ti, alias, nil
}

// mergeOn binds the join condition over the source's and target's
// columns.
func (p *Planner) mergeOn(sc *scope, n *pg.Node) (expr.Expr, error) {
	b := &binder{p: p, sc: sc, where: "JOIN conditions"}
	e, err := b.bind(n)
	if err != nil {
		return nil, err
	}
	if e, err = b.coerceBool(e, nodeLocation(n)); err != nil {
		return nil, err
	}
	return foldNulls(p.fold(e)), nil
}

// mergeBinder binds a MERGE's WHEN clauses over the joined row: the
// source's ns columns, the target's nt, the row id.
type mergeBinder struct {
	p      *Planner
	ti     *TableInfo
	sc     *scope
	ns, nt int
}

// scope is what a clause may read: everything for WHEN MATCHED, the
// source's columns only for WHEN NOT MATCHED (same indexes, and the
// columns it reads are marked in the statement's scope).
func (m *mergeBinder) scope(matched bool) *scope {
	if matched {
		return m.sc
	}
	return &scope{cols: m.sc.cols[:m.ns], used: m.sc.used[:m.ns]}
}

// bind binds n where the clause sees sc; a NOT MATCHED clause's reference
// to the target is worded as PostgreSQL words it.
func (m *mergeBinder) bind(n *pg.Node, matched bool, where string) (expr.Expr, error) {
	b := &binder{p: m.p, sc: m.scope(matched), where: where}
	e, err := b.bind(n)
	if err != nil {
		if !matched {
			err = notLateralError(err, m.sc.cols[m.ns:m.ns+m.nt])
		}
		return nil, err
	}
	return e, nil
}

func (m *mergeBinder) action(wc *pg.MergeWhenClause) (exec.MergeAction, error) {
	a := exec.MergeAction{Matched: wc.Matched}
	if wc.Condition != nil {
		e, err := m.bind(wc.Condition, wc.Matched, "MERGE WHEN conditions")
		if err != nil {
			return a, err
		}
		b := &binder{p: m.p, sc: m.scope(wc.Matched), where: "WHEN"}
		if e, err = b.coerceBool(e, nodeLocation(wc.Condition)); err != nil {
			return a, err
		}
		a.Cond = foldNulls(m.p.fold(e))
	}
	var err error
	switch wc.CommandType {
	case pg.CmdType_CMD_NOTHING:
		a.Kind = exec.MergeNothing
	case pg.CmdType_CMD_DELETE:
		a.Kind = exec.MergeDelete
	case pg.CmdType_CMD_UPDATE:
		a.Kind = exec.MergeUpdate
		a.Row, err = m.updateRow(wc.TargetList)
	case pg.CmdType_CMD_INSERT:
		a.Kind = exec.MergeInsert
		a.Row, err = m.insertRow(wc)
	default:
		err = pgerr.New(pgerr.FeatureNotSupported, "this MERGE action is not supported")
	}
	return a, err
}

// updateRow is the new version of a matched row: the target's columns,
// those SET replaced by their values (assignment-cast to the column's
// type), resolved and bound as UPDATE's SET (setItems, assigned). The
// target's every column is read.
func (m *mergeBinder) updateRow(list []*pg.Node) ([]expr.Expr, error) {
	ti := m.ti
	sets, err := m.p.setItems(list, ti)
	if err != nil {
		return nil, err
	}
	row := make([]expr.Expr, m.nt)
	for i := range row {
		m.sc.used[m.ns+i] = true
		row[i] = &expr.Col{Idx: m.ns + i, T: ti.Types[i], Name: ti.Columns[i]}
	}
	for _, s := range sets {
		if s.val == nil {
			if row[s.col], err = m.defaultOf(s.col); err != nil {
				return nil, err
			}
			continue
		}
		if row[s.col], err = m.value(s.val, s.col, true, "UPDATE"); err != nil {
			return nil, err
		}
	}
	// Checked after the values bind, as PostgreSQL's rewriter does.
	given := make([]bool, m.nt)
	for _, s := range sets {
		name := ti.Columns[s.col]
		if s.val != nil && ti.Identity != nil && ti.Identity[s.col] == "a" {
			e := pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", name)
			e.Detail = fmt.Sprintf("Column %q is an identity column defined as GENERATED ALWAYS.", name)
			return nil, e
		}
		if given[s.col] {
			return nil, pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", name)
		}
		given[s.col] = true
	}
	return row, nil
}

// insertRow is the row a NOT MATCHED clause inserts: the values given
// for the columns listed (all, in order, without a list), the defaults
// for the rest.
func (m *mergeBinder) insertRow(wc *pg.MergeWhenClause) ([]expr.Expr, error) {
	ti := m.ti
	ins := &pg.InsertStmt{Cols: wc.TargetList, Override: wc.Override}
	target, err := m.p.insertTargets(ins, ti)
	if err != nil {
		return nil, err
	}
	if len(wc.Values) > len(target) {
		return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns").WithPosition(pos(m.p.query, nodeLocation(wc.Values[len(target)])))
	}
	if len(wc.Values) < len(target) {
		if len(wc.TargetList) > 0 {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions").
				WithPosition(pos(m.p.query, wc.TargetList[len(wc.Values)].GetResTarget().Location))
		}
		// Fewer values than columns, without a list (or DEFAULT VALUES):
		// the first columns are given, the rest take their defaults.
		target = target[:len(wc.Values)]
	}
	sel := &pg.SelectStmt{ValuesLists: []*pg.Node{{Node: &pg.Node_List{List: &pg.List{Items: wc.Values}}}}}
	if len(wc.Values) == 0 {
		sel.ValuesLists = nil
	}
	if len(wc.Values) > 0 {
		if err := checkIdentityInsert(ins, ti, target, sel); err != nil {
			return nil, err
		}
	}
	row := make([]expr.Expr, m.nt)
	for i := range row {
		if row[i], err = m.defaultOf(i); err != nil {
			return nil, err
		}
	}
	for k, idx := range target {
		v := wc.Values[k]
		if v.GetSetToDefault() != nil {
			continue
		}
		if wc.Override == pg.OverridingKind_OVERRIDING_USER_VALUE && ti.Identity != nil && ti.Identity[idx] != "" {
			continue // the sequence's value is taken, not the one given
		}
		if row[idx], err = m.value(v, idx, false, "VALUES"); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// defaultOf is column idx's default, or NULL.
func (m *mergeBinder) defaultOf(idx int) (expr.Expr, error) {
	t := m.ti.Types[idx]
	if m.ti.Defaults == nil || m.ti.Defaults[idx] == "" {
		return &expr.Const{D: types.NullOf(t)}, nil
	}
	return m.p.BindDefault(m.ti.Defaults[idx], t)
}

// value binds a value assigned to column idx, assignment-cast to its
// type as UPDATE's and INSERT's are (assigned).
func (m *mergeBinder) value(n *pg.Node, idx int, matched bool, where string) (expr.Expr, error) {
	b := &binder{p: m.p, sc: m.scope(matched), where: where}
	e, err := m.p.assigned(b, n, m.ti.Columns[idx], m.ti.Types[idx])
	if err != nil {
		if !matched {
			err = notLateralError(err, m.sc.cols[m.ns:m.ns+m.nt])
		}
		return nil, err
	}
	return m.p.fold(e), nil
}
