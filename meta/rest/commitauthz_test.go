package rest

import (
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
)

// TestRESTCommitPrivileges: what each kind of commit needs.
func TestRESTCommitPrivileges(t *testing.T) {
	snap := func(id int64, op table.Operation) table.Update {
		return table.NewAddSnapshotUpdate(&table.Snapshot{SnapshotID: id, Summary: &table.Summary{Operation: op}})
	}
	ref := func(id int64) table.Update {
		return table.NewSetSnapshotRefUpdate("main", id, table.BranchRef, -1, -1, -1)
	}
	cases := []struct {
		name string
		us   table.Updates
		want []string
	}{
		{"append", table.Updates{snap(5, table.OpAppend), ref(5)}, []string{"INSERT"}},
		{"delete", table.Updates{snap(5, table.OpDelete), ref(5)}, []string{"DELETE"}},
		{"overwrite", table.Updates{snap(5, table.OpOverwrite), ref(5)}, []string{"UPDATE"}},
		{"replace", table.Updates{snap(5, table.OpReplace), ref(5)}, []string{"UPDATE"}},
		{"append and delete", table.Updates{snap(5, table.OpAppend), snap(6, table.OpDelete), ref(6)}, []string{"INSERT", "DELETE"}},
		{"rollback", table.Updates{ref(3)}, []string{"UPDATE"}},
		{"expire", table.Updates{table.NewRemoveSnapshotsUpdate([]int64{1}, false)}, []string{"UPDATE"}},
		{"properties", table.Updates{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})}, []string{meta.OwnerPrivilege}},
		{"schema", table.Updates{table.NewAddSchemaUpdate(iceberg.NewSchema(1)), table.NewSetCurrentSchemaUpdate(-1)}, []string{meta.OwnerPrivilege}},
		{"append with a property", table.Updates{snap(5, table.OpAppend), ref(5), table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})},
			[]string{"INSERT", meta.OwnerPrivilege}},
		{"requirements only", nil, []string{"SELECT"}},
	}
	for _, c := range cases {
		if got := commitPrivileges(c.us); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
