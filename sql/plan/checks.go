package plan

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
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
		e, err := p.BindCheck(c.Name, c.Expr, ti.Name, ti.Columns, ti.Types)
		if err != nil {
			return nil, err
		}
		t.Checks = append(t.Checks, exec.Check{Name: c.Name, E: e})
	}
	t.Ctx = p.ec
	return t, nil
}

// BindCheck binds a CHECK constraint's expression text over a table's
// columns (a row of the table, in column order), as a boolean. CREATE
// TABLE and ADD CONSTRAINT call it to refuse what would never evaluate.
func (p *Planner) BindCheck(name, text, table string, columns []string, colTypes []types.T) (expr.Expr, error) {
	q := "SELECT " + text
	stmts, err := pg.Parse(q)
	if err != nil || len(stmts.Stmts) != 1 || len(stmts.Stmts[0].Stmt.GetSelectStmt().GetTargetList()) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "check constraint %q of relation %q does not parse: %v", name, table, err)
	}
	cols := make([]scopeCol, len(columns))
	for i, c := range columns {
		cols[i] = scopeCol{table: table, name: c, t: colTypes[i]}
	}
	// Bound by a planner of its own text, so positions point into it.
	cp := New(p.ctx, p.cat, p.ec, q, nil, nil)
	cp.deps = p.deps
	b := &binder{p: cp, sc: newScope(cols), where: "check constraint"}
	n := stmts.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	if rawHasSubquery(n) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in check constraint")
	}
	e, err := b.bind(n)
	if err != nil {
		return nil, err
	}
	if e, err = b.coerceBool(e, nodeLocation(n)); err != nil {
		return nil, err
	}
	return cp.fold(e), nil
}

// rawHasSubquery says whether a raw expression holds a sublink.
func rawHasSubquery(n *pg.Node) bool {
	found := false
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg.SubLink); ok {
			found = true
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return !found
		})
	}
	walk(n.ProtoReflect())
	return found
}
