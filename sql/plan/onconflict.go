package plan

import (
	"slices"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// onConflict plans INSERT … ON CONFLICT, or the implicit upsert of a
// table WITH (merge = 'last_non_null'), into an exec.Conflict; nil for a
// plain INSERT. alias is the name the target's columns go by in SET and
// WHERE; its proposed row is EXCLUDED.
func (p *Planner) onConflict(oc *pg.OnConflictClause, ti *TableInfo, alias string) (*exec.Conflict, error) {
	if ti.Table == nil {
		return nil, nil
	}
	cons := link.Constraints(ti.Table, ti.Name)
	merge := ti.Table.Properties()[link.MergeProperty] == link.MergeLastNonNull
	if oc == nil {
		if !merge || len(cons) == 0 {
			return nil, nil
		}
		var names []string
		for _, k := range cons {
			names = append(names, k.Name)
		}
		return exec.MergeConflict(ti.Types, names), nil
	}
	c := &exec.Conflict{Update: oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE}
	if inf := oc.Infer; inf != nil {
		arb, err := p.arbiters(inf, ti, cons)
		if err != nil {
			return nil, err
		}
		c.Arbiters = arb
	} else if c.Update {
		return nil, pgerr.New(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
			WithHint("For example, ON CONFLICT (column_name).").WithPosition(pos(p.query, oc.Location))
	}
	for _, a := range c.Arbiters {
		c.Names = append(c.Names, cons[a].Name)
	}
	if !c.Update {
		return c, nil
	}
	b := &binder{p: p, sc: newScope(conflictScope(ti, alias)), where: "ON CONFLICT DO UPDATE"}
	c.Set = make([]expr.Expr, len(ti.Columns))
	for i, t := range ti.Types {
		c.Set[i] = &expr.Col{Idx: i, T: t, Name: ti.Columns[i]}
	}
	for _, n := range oc.TargetList {
		rt := n.GetResTarget()
		idx := slices.Index(ti.Columns, rt.Name)
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, ti.Name).WithPosition(pos(p.query, rt.Location))
		}
		if len(rt.Indirection) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "assignment to a subscript or field of column %q is not supported", rt.Name).WithPosition(pos(p.query, rt.Location))
		}
		e, err := b.bind(rt.Val)
		if err != nil {
			return nil, err
		}
		if e, err = p.assign(b, e, ti, idx, rt.Location); err != nil {
			return nil, err
		}
		c.Set[idx] = p.fold(e)
	}
	if oc.WhereClause != nil {
		b.where = "WHERE"
		w, err := b.bind(oc.WhereClause)
		if err != nil {
			return nil, err
		}
		if w, err = b.coerceBool(w, 0); err != nil {
			return nil, err
		}
		c.Where = p.fold(w)
	}
	return c, nil
}

// conflictScope is what SET and WHERE of ON CONFLICT DO UPDATE see: the
// existing row's columns, then the proposed row's as EXCLUDED.
func conflictScope(ti *TableInfo, alias string) []scopeCol {
	cols := make([]scopeCol, 0, 2*len(ti.Columns))
	for i, c := range ti.Columns {
		cols = append(cols, scopeCol{table: alias, name: c, t: ti.Types[i]})
	}
	for i, c := range ti.Columns {
		cols = append(cols, scopeCol{table: "excluded", name: c, t: ti.Types[i], hidden: true})
	}
	return cols
}

// assign converts a SET value to column idx's type, as an assignment.
func (p *Planner) assign(b *binder, e expr.Expr, ti *TableInfo, idx int, loc int32) (expr.Expr, error) {
	want := ti.Types[idx]
	got := e.Type()
	if got.Kind == types.Unknown {
		return b.coerce(e, want, loc)
	}
	if got.Kind == want.Kind && want.Width < 0 {
		return e, nil
	}
	if _, ok := types.Common(got, want); !ok && got.Kind != types.Text && !AssignsToString(want) && !ArrayAssigns(got, want) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", ti.Columns[idx], want, got).
			WithHint("You will need to rewrite or cast the expression.").WithPosition(pos(p.query, loc))
	}
	return &expr.Cast{Arg: e, T: want}, nil
}

// arbiters are the constraints an ON CONFLICT target names: ON
// CONSTRAINT name, or the one whose columns are the list's.
func (p *Planner) arbiters(inf *pg.InferClause, ti *TableInfo, cons []link.KeyConstraint) ([]int, error) {
	if inf.Conname != "" {
		for i, c := range cons {
			if c.Name == inf.Conname {
				return []int{i}, nil
			}
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", inf.Conname, ti.Name)
	}
	var cols []int
	for _, n := range inf.IndexElems {
		ie := n.GetIndexElem()
		if ie == nil || ie.Name == "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT on an expression is not supported").WithPosition(pos(p.query, inf.Location))
		}
		idx := slices.Index(ti.Columns, ie.Name)
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", ie.Name).WithPosition(pos(p.query, inf.Location))
		}
		f, ok := ti.Table.Schema().FindFieldByName(ie.Name)
		if ok && !slices.Contains(cols, f.ID) {
			cols = append(cols, f.ID)
		}
	}
	// A WHERE (a partial index's predicate) is satisfied by the full
	// indexes keys are, as PostgreSQL infers them.
	var out []int
	for i, c := range cons {
		if len(c.Fields) == len(cols) && !slices.ContainsFunc(c.Fields, func(id int) bool { return !slices.Contains(cols, id) }) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	return out, nil
}
