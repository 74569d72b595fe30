package plan

import (
	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// checkSubqueryRecursion refuses, as PostgreSQL does (42P19), a
// reference to the recursive query name inside a subquery expression (a
// SubLink) of its recursive term rarg, and a second reference: the term
// is planned once, and its self reference reads the running union's
// working table, which a subquery, built and run on its own, has no
// access to.
func (p *Planner) checkSubqueryRecursion(name string, rarg *pg.SelectStmt) error {
	var found, once *pg.RangeVar
	var err error
	var walk func(m protoreflect.Message, inSub bool)
	walk = func(m protoreflect.Message, inSub bool) {
		if found != nil {
			return
		}
		switch x := m.Interface().(type) {
		case *pg.RangeVar:
			if x.Schemaname != "" || x.Relname != name {
				return
			}
			if inSub {
				found = x
				return
			}
			if once != nil {
				err = pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear more than once", name).WithPosition(pos(p.query, x.Location))
				found = x
			}
			once = x
			return
		case *pg.SubLink:
			inSub = true
		case *pg.WithClause:
			for _, n := range x.Ctes {
				if n.GetCommonTableExpr().GetCtename() == name {
					return // shadowed: a query of its own
				}
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap() || fd.Message() == nil:
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message(), inSub)
				}
			default:
				walk(v.Message(), inSub)
			}
			return true
		})
	}
	walk(rarg.ProtoReflect(), false)
	if err != nil {
		return err
	}
	if found != nil {
		return pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within a subquery", name).WithPosition(pos(p.query, found.Location))
	}
	return nil
}
