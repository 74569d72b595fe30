package plan

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
)

// CheckedTarget is WriteTarget with ti's CHECK constraints bound over the
// rows written (one column per table column, in table order), which the
// target evaluates on every batch: INSERT, UPDATE, MERGE and COPY refuse
// a row for which one is false (23514), as PostgreSQL does.
func (p *Planner) CheckedTarget(ti *TableInfo) (*exec.Target, error) {
	t, err := WriteTarget(ti, p.ec.Loc)
	if err != nil || ti.Table == nil {
		return t, err
	}
	for _, c := range pgcatalog.Constraints(ti.Table.Properties(), ti.Table.Schema()) {
		if c.Type != "c" {
			continue
		}
		text := "SELECT " + c.Expr
		stmts, err := pg.Parse(text)
		if err != nil || len(stmts.Stmts) != 1 || len(stmts.Stmts[0].Stmt.GetSelectStmt().GetTargetList()) != 1 {
			return nil, pgerr.New(pgerr.InternalError, "check constraint %q of relation %q does not parse: %v", c.Name, ti.Name, err)
		}
		cols := make([]scopeCol, len(ti.Columns))
		for i, name := range ti.Columns {
			cols[i] = scopeCol{table: ti.Name, name: name, t: ti.Types[i]}
		}
		// Bound by a planner of its own text, so positions point into it.
		cp := New(p.ctx, p.cat, p.ec, text, nil, nil)
		cp.deps = p.deps
		b := &binder{p: cp, sc: newScope(cols), where: "CHECK"}
		n := stmts.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
		e, err := b.bind(n)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerceBool(e, nodeLocation(n)); err != nil {
			return nil, err
		}
		t.Checks = append(t.Checks, exec.Check{Name: c.Name, E: cp.fold(e)})
	}
	t.Ctx = p.ec
	return t, nil
}
