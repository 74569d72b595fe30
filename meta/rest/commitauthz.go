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
// overwrite and replace UPDATE: rows rewritten), and pointing a ref at it
// needs nothing more; moving a ref to an older snapshot, removing refs,
// snapshots or statistics UPDATE; any other update changes the table's
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
	added := map[int64]bool{}
	for _, u := range us {
		if u.Action() == table.UpdateAddSnapshot {
			f := updateFields(u)
			added[f.Snapshot.ID] = true
			switch f.Snapshot.Summary.Operation {
			case table.OpAppend:
				add("INSERT")
			case table.OpDelete:
				add("DELETE")
			default: // overwrite, replace, or one not named
				add("UPDATE")
			}
		}
	}
	for _, u := range us {
		switch u.Action() {
		case table.UpdateAddSnapshot:
		case table.UpdateSetSnapshotRef:
			if !added[updateFields(u).SnapshotID] {
				add("UPDATE")
			}
		case table.UpdateRemoveSnapshotRef, table.UpdateRemoveSnapshots,
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

// fields are what commitPrivileges reads of an update, in the spec's
// JSON form (whatever the update's Go type).
type fields struct {
	SnapshotID int64 `json:"snapshot-id"` // set-snapshot-ref
	Snapshot   struct {
		ID      int64 `json:"snapshot-id"`
		Summary struct {
			Operation table.Operation `json:"operation"`
		} `json:"summary"`
	} `json:"snapshot"` // add-snapshot
}

func updateFields(u table.Update) fields {
	var f fields
	if b, err := json.Marshal(u); err == nil {
		_ = json.Unmarshal(b, &f) // what does not parse needs the most (UPDATE)
	}
	return f
}
