package rest

import (
	"encoding/json"
	"slices"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
)

// commitPrivileges are the privileges a commit's updates need, as the
// SQL statement each stands for would (authz.go): a new snapshot needs
// what its operation does to rows (append INSERT, delete DELETE,
// overwrite and replace UPDATE: rows rewritten); moving or removing refs,
// snapshots and statistics UPDATE; any other update changes the table's
// definition (schema, spec, sort order, location, properties, format),
// which is ALTER TABLE's: ownership. A commit of requirements alone reads
// the table's metadata: SELECT.
func commitPrivileges(us table.Updates) []string {
	var out []string
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, u := range us {
		switch u.Action() {
		case table.UpdateAddSnapshot:
			switch snapshotOperation(u) {
			case table.OpAppend:
				add("INSERT")
			case table.OpDelete:
				add("DELETE")
			default: // overwrite, replace, or one not named
				add("UPDATE")
			}
		case table.UpdateSetSnapshotRef, table.UpdateRemoveSnapshotRef, table.UpdateRemoveSnapshots,
			table.UpdateSetStatistics, table.UpdateRemoveStatistics,
			table.UpdateSetPartitionStatistics, table.UpdateRemovePartitionStatistics:
			add("UPDATE")
		default:
			add(meta.OwnerPrivilege)
		}
	}
	if len(out) == 0 {
		add("SELECT")
	}
	return out
}

// snapshotOperation is an add-snapshot update's summary operation: its
// JSON form is the spec's, whatever the update's Go type.
func snapshotOperation(u table.Update) table.Operation {
	b, err := json.Marshal(u)
	if err != nil {
		return ""
	}
	var v struct {
		Snapshot struct {
			Summary struct {
				Operation table.Operation `json:"operation"`
			} `json:"summary"`
		} `json:"snapshot"`
	}
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	return v.Snapshot.Summary.Operation
}
