package plan

import "github.com/loamdb/loam/storage/link"

// refuseExternal is the 42809 error of a statement that would write ti
// (verb: "insert into", "update", "delete from", "merge into") when
// outside engines write it, else nil. It is raised when the statement is
// planned, before any row is read, as PostgreSQL's executor checks a
// result relation before it starts (CheckValidResultRel).
func refuseExternal(ti *TableInfo, verb string) error {
	if ti.External {
		return link.ExternalError(verb, ti.Name)
	}
	return nil
}
