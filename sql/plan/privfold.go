package plan

import (
	"regexp"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// privilegeCall matches the calls that read roles and privileges
// (has_table_privilege and friends, pg_has_role) and the session's roles
// (current_user, session_user): stable, not immutable, so they are
// evaluated as each execution runs, and a kept plan meets a GRANT, REVOKE
// or SET ROLE made since it was planned, as PostgreSQL's does.
var privilegeCall = regexp.MustCompile(`\b(has_[a-z_]+_privilege|pg_has_role|current_user|session_user)\(`)

func readsPrivileges(s string) bool { return privilegeCall.MatchString(s) }

// roleValue is current_user or session_user as the statement runs: the
// session's role and session_authorization settings (SET ROLE, SET
// SESSION AUTHORIZATION), else the value when planned.
func roleValue(name string, planned types.Datum) expr.Expr {
	return &expr.Func{Name: name, T: types.TName, Fn: func(c *expr.Ctx, _ []types.Datum) (types.Datum, error) {
		if c == nil || c.Session == nil {
			return planned, nil
		}
		user, ok := c.Session.Setting("session_authorization")
		if !ok || user == "" {
			return planned, nil
		}
		if role, ok := c.Session.Setting("role"); ok && name == "current_user" && role != "" && role != "none" {
			user = role
		}
		return types.Datum{T: types.TName, S: user}, nil
	}}
}
