package engine

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// unsupportedObject names the object of a CREATE statement Loam cannot
// run (a function, a trigger, a type…), so that a restore that stops on
// it (pg_restore --exit-on-error, psql -v ON_ERROR_STOP=1) says which:
// "CREATE FUNCTION public.touch() is not supported yet". "" when the
// statement names none.
func unsupportedObject(n *pg.Node) string {
	join := func(names []*pg.Node) string {
		var parts []string
		for _, x := range names {
			if s := x.GetString_(); s != nil {
				parts = append(parts, s.Sval)
			}
		}
		return strings.Join(parts, ".")
	}
	rel := func(rv *pg.RangeVar) string {
		if rv == nil {
			return ""
		}
		if rv.Schemaname != "" {
			return rv.Schemaname + "." + rv.Relname
		}
		return rv.Relname
	}
	switch {
	case n.GetCreateFunctionStmt() != nil:
		f := n.GetCreateFunctionStmt()
		kind := "FUNCTION"
		if f.IsProcedure {
			kind = "PROCEDURE"
		}
		return "CREATE " + kind + " " + join(f.Funcname) + "()"
	case n.GetCreateTrigStmt() != nil:
		t := n.GetCreateTrigStmt()
		return "CREATE TRIGGER " + t.Trigname + " ON " + rel(t.Relation)
	case n.GetCompositeTypeStmt() != nil:
		return "CREATE TYPE " + rel(n.GetCompositeTypeStmt().Typevar)
	case n.GetCreateEnumStmt() != nil:
		return "CREATE TYPE " + join(n.GetCreateEnumStmt().TypeName)
	case n.GetCreateDomainStmt() != nil:
		return "CREATE DOMAIN " + join(n.GetCreateDomainStmt().Domainname)
	case n.GetCreateExtensionStmt() != nil:
		return "CREATE EXTENSION " + n.GetCreateExtensionStmt().Extname
	case n.GetCreatePolicyStmt() != nil:
		p := n.GetCreatePolicyStmt()
		return "CREATE POLICY " + p.PolicyName + " ON " + rel(p.Table)
	case n.GetRuleStmt() != nil:
		r := n.GetRuleStmt()
		return "CREATE RULE " + r.Rulename + " ON " + rel(r.Relation)
	}
	return ""
}
