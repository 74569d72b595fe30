package plan

import "regexp"

// privilegeCall matches the calls that read roles and privileges
// (has_table_privilege and friends, pg_has_role): stable, not immutable,
// so they are evaluated as each execution runs and a kept plan meets a
// GRANT or REVOKE made since it was planned, as PostgreSQL's does.
var privilegeCall = regexp.MustCompile(`\b(has_[a-z_]+_privilege|pg_has_role)\(`)

func readsPrivileges(s string) bool { return privilegeCall.MatchString(s) }
