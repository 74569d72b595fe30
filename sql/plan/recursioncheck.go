package plan

import (
	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// recursionPlace is where in a recursive term a self reference stands,
// as PostgreSQL's checkWellFormedRecursion tells them apart: "" where it
// may, else the words of the error.
type recursionPlace string

const (
	recursionOK        recursionPlace = ""
	recursionSublink   recursionPlace = "within a subquery"
	recursionOuterJoin recursionPlace = "within an outer join"
	recursionIntersect recursionPlace = "within INTERSECT"
	recursionExcept    recursionPlace = "within EXCEPT"
)

// checkRecursion refuses, as PostgreSQL does (42P19), a reference to the
// recursive query name in its recursive term rarg that stands inside a
// subquery expression, on the nullable side of an outer join, under
// INTERSECT ALL or EXCEPT ALL or on the right of EXCEPT, or that is the
// second one. The
// term is planned once, its self reference reading the running union's
// working table: a subquery, built and run on its own, could not read it.
func (p *Planner) checkRecursion(name string, rarg *pg.SelectStmt) error {
	var once *pg.RangeVar
	var err error
	refuse := func(rv *pg.RangeVar, what string) {
		err = pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear %s", name, what).WithPosition(pos(p.query, rv.Location))
	}
	var walk func(m protoreflect.Message, at recursionPlace)
	walkNode := func(n *pg.Node, at recursionPlace) {
		if n != nil {
			walk(n.ProtoReflect(), at)
		}
	}
	walk = func(m protoreflect.Message, at recursionPlace) {
		if err != nil || !m.IsValid() {
			return
		}
		switch x := m.Interface().(type) {
		case *pg.RangeVar:
			if x.Schemaname != "" || x.Relname != name {
				return
			}
			switch {
			case at != recursionOK:
				refuse(x, string(at))
			case once != nil:
				refuse(x, "more than once")
			}
			once = x
			return
		case *pg.SubLink:
			walkNode(x.Testexpr, at)
			walkNode(x.Subselect, recursionSublink)
			return
		case *pg.JoinExpr:
			left, right := at, at
			switch x.Jointype {
			case pg.JoinType_JOIN_LEFT:
				right = recursionOuterJoin
			case pg.JoinType_JOIN_RIGHT:
				left = recursionOuterJoin
			case pg.JoinType_JOIN_FULL:
				left, right = recursionOuterJoin, recursionOuterJoin
			}
			walkNode(x.Larg, left)
			walkNode(x.Rarg, right)
			walkNode(x.Quals, at)
			return
		case *pg.SelectStmt:
			if x.WithClause != nil && shadows(x.WithClause, name) {
				return // name is a query of its own in there
			}
			if x.Op != pg.SetOperation_SETOP_NONE && x.Larg != nil && x.Rarg != nil {
				left, right := at, at
				// As PostgreSQL: INTERSECT ALL and EXCEPT ALL keep
				// no self reference, EXCEPT none on its right.
				switch x.Op {
				case pg.SetOperation_SETOP_INTERSECT:
					if x.All {
						left, right = recursionIntersect, recursionIntersect
					}
				case pg.SetOperation_SETOP_EXCEPT:
					if x.All {
						left = recursionExcept
					}
					right = recursionExcept
				}
				walk(x.Larg.ProtoReflect(), left)
				walk(x.Rarg.ProtoReflect(), right)
				return
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap() || fd.Message() == nil:
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message(), at)
				}
			default:
				walk(v.Message(), at)
			}
			return true
		})
	}
	walk(rarg.ProtoReflect(), recursionOK)
	return err
}

// shadows tells whether w defines a query called name.
func shadows(w *pg.WithClause, name string) bool {
	for _, n := range w.Ctes {
		if n.GetCommonTableExpr().GetCtename() == name {
			return true
		}
	}
	return false
}
