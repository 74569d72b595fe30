package maint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/storage/maint/erasetest"
)

// tenantRow is a row of public.e (tenant string, id bigint, note string).
type tenantRow struct {
	tenant string
	id     int64
	note   string
}

// insertTenants commits rows as one transaction, linked into Iceberg
// unless tailOnly.
func insertTenants(t *testing.T, m *link.Manager, rows []tenantRow, tailOnly bool) {
	t.Helper()
	ctx := context.Background()
	tx, err := m.Begin(ctx, "public", "e")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := table.SchemaToArrowSchema(tx.Table().Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	tb := array.NewStringBuilder(memory.DefaultAllocator)
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	nb := array.NewStringBuilder(memory.DefaultAllocator)
	for _, r := range rows {
		tb.Append(r.tenant)
		ib.Append(r.id)
		nb.Append(r.note)
	}
	rec := array.NewRecordBatch(sc, []arrow.Array{tb.NewArray(), ib.NewArray(), nb.NewArray()}, int64(len(rows)))
	defer rec.Release()
	if err := tx.Add(rec); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if !tailOnly {
		if err := m.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// deleteTenant deletes the tenant's rows as DELETE FROM e WHERE tenant =
// … does: under the row lock, by row ids from the files and the tail.
func deleteTenant(t *testing.T, m *link.Manager, st *icetable.Store, tenant string) int64 {
	t.Helper()
	ctx := context.Background()
	unlock, err := m.LockRows(ctx, "public", "e")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	v, err := m.View(ctx, "public", "e")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	tx, err := m.Begin(ctx, "public", "e")
	if err != nil {
		t.Fatal(err)
	}
	r := v.Read(tx)
	var ids []int64
	collect := func(rec arrow.RecordBatch) {
		tc := rec.Column(0).(*array.String)
		rid := rec.Column(int(rec.NumCols()) - 1).(*array.Int64)
		for i := 0; i < tc.Len(); i++ {
			if tc.Value(i) == tenant {
				ids = append(ids, rid.Value(i))
			}
		}
	}
	_, recs, _, err := st.Scan(ctx, v.Table, iceberg.AlwaysTrue{}, nil, nil, []string{"tenant"},
		&icetable.Positions{Deleted: r.FileDeletes, RowIDs: r.FileRowIDs})
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		collect(rec)
		rec.Release()
	}
	for rec, err := range r.Rows(true) {
		if err != nil {
			t.Fatal(err)
		}
		collect(rec)
		rec.Release()
	}
	n, err := tx.Delete(ids)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return n
}

// filesHolding lists the files under dir holding b, inside compressed
// Avro blocks and Parquet values too.
func filesHolding(t *testing.T, dir string, b []byte) []string {
	t.Helper()
	out, err := erasetest.FilesHolding(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// anyEndsWith says whether one of paths ends with suffix.
func anyEndsWith(paths []string, suffix string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return strings.HasSuffix(p, suffix) })
}

// readTenants reads public.e with iceberg-go's own scan: "tenant/id" each.
func readTenants(t *testing.T, st *icetable.Store) []string {
	t.Helper()
	ctx := context.Background()
	tbl, err := st.Load(ctx, "public", "e")
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		tc := rec.Column(0).(*array.String)
		ic := rec.Column(1).(*array.Int64)
		for i := 0; i < tc.Len(); i++ {
			out = append(out, tc.Value(i)+"/"+string(rune('0'+ic.Value(i))))
		}
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// DELETE then VACUUM erases: no file under the data directory (write log,
// metastore, warehouse: data, delete and metadata files) holds a byte of
// the deleted rows afterwards, while the other rows stay readable by an
// outside engine and after a restart. The deleted rows carry a random
// marker, searched for in every file's bytes, in Avro files' inflated
// blocks and in Parquet files' values (a check before the VACUUM proves
// the search finds them in data files, log segments and manifests).
func TestVacuumErasesDeletedRows(t *testing.T) {
	cases := []struct {
		name        string
		version     string
		partitioned bool
		oneFile     bool // the table's only file mixes x's rows with others
	}{
		{"v2 one file", "2", false, true},
		{"v3 one file", "3", false, true},
		{"v2", "2", false, false},
		{"v3", "3", false, false},
		{"v2 partitioned by tenant", "2", true, false},
		{"v3 partitioned by tenant", "3", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			dir, _, st := openWarehouse(t)
			sc := iceberg.NewSchema(0,
				iceberg.NestedField{ID: 1, Name: "tenant", Type: iceberg.PrimitiveTypes.String, Required: true},
				iceberg.NestedField{ID: 2, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
				iceberg.NestedField{ID: 3, Name: "note", Type: iceberg.PrimitiveTypes.String})
			var spec *iceberg.PartitionSpec
			if c.partitioned {
				pid := 1000
				s, err := iceberg.NewPartitionSpecOpts(iceberg.AddPartitionFieldBySourceID(1, "tenant", iceberg.IdentityTransform{}, sc, &pid))
				if err != nil {
					t.Fatal(err)
				}
				spec = &s
			}
			props := iceberg.Properties{"format-version": c.version}
			for k, v := range CreateProperties() {
				props[k] = v
			}
			if _, err := st.Create(ctx, "public", "e", sc, spec, table.UnsortedSortOrder, props); err != nil {
				t.Fatal(err)
			}
			m := openLink(t, st, dir)
			raw := make([]byte, 16)
			rand.Read(raw)
			marker := hex.EncodeToString(raw) // 32 characters
			// The erased tenant is named by the marker too: its partition
			// directory, partition values and bounds hold it.
			rows := func(tenant string, from int64) []tenantRow {
				note := "kept " + tenant
				if tenant == "x" {
					tenant, note = marker, marker
				}
				return []tenantRow{{tenant, from, note}, {tenant, from + 1, note}}
			}
			want := []string{"a/0", "a/1"}
			if c.oneFile {
				insertTenants(t, m, append(rows("a", 0), rows("x", 2)...), false)
				if n := deleteTenant(t, m, st, marker); n != 2 {
					t.Fatalf("deleted %d rows, want 2", n)
				}
			} else {
				// Files mixing tenants, files of x alone, and x's rows
				// still in the log when they are deleted.
				insertTenants(t, m, append(rows("a", 0), rows("x", 2)...), false)
				insertTenants(t, m, rows("x", 4), false)
				insertTenants(t, m, append(rows("b", 6), rows("x", 8)...), false)
				insertTenants(t, m, append(rows("b", 0), rows("x", 2)...), true)
				if n := deleteTenant(t, m, st, marker); n != 8 {
					t.Fatalf("deleted %d rows, want 8", n)
				}
				// A later commit: the files holding x's rows are in
				// older snapshots too.
				insertTenants(t, m, rows("c", 0), false)
				want = []string{"a/0", "a/1", "b/0", "b/1", "b/6", "b/7", "c/0", "c/1"}
			}
			// The search sees the rows where they are: data files, log
			// segments, and manifests' column bounds (a prefix).
			if got := holdingAnywhere(t, dir, []byte(marker)); !anyEndsWith(got, ".parquet") || !anyEndsWith(got, ".seg") {
				t.Fatalf("before VACUUM the marker is in %v: the search does not see data files and log segments", got)
			}
			if got := holdingAnywhere(t, dir, []byte(marker[:12])); !anyEndsWith(got, ".avro") {
				t.Fatalf("before VACUUM the marker's prefix is in %v: the search does not see manifests' bounds", got)
			}
			// A data file a crash left behind, written moments ago: no
			// snapshot references it.
			for _, f := range warehouseHolding(t, dir, []byte(marker)) {
				if strings.HasSuffix(f, ".parquet") {
					putFile(t, sibling(f, "interrupted.parquet"), readFile(t, f))
					break
				}
			}
			// (With one file, the deletes are still only in the log.)
			if got := readTenants(t, st); !c.oneFile && !slices.Equal(got, want) {
				t.Fatalf("rows before VACUUM %v, want %v", got, want)
			}
			rep, err := NewRunner(m, nil, 0).Vacuum(ctx, "public", "e")
			if err != nil {
				t.Fatal(err)
			}
			if rep.LogPinned {
				t.Errorf("report %+v: the log is pinned with no transaction open", rep)
			}
			// The whole marker, and a prefix of it as column bounds in
			// manifests keep it (truncated to 16 characters).
			for _, b := range []string{marker, marker[:12]} {
				if got := holdingAnywhere(t, dir, []byte(b)); len(got) > 0 {
					t.Errorf("after VACUUM %q is still in %v", b, got)
				}
			}
			if got := readTenants(t, st); !slices.Equal(got, want) {
				t.Errorf("rows after VACUUM %v, want %v", got, want)
			}
			// A restart replays what the log still holds: nothing lost,
			// nothing twice.
			m.Close()
			m2 := openLink(t, st, dir)
			v, err := m2.View(ctx, "public", "e")
			if err != nil {
				t.Fatal(err)
			}
			if n := v.TailRows(); n != 0 {
				t.Errorf("%d rows in the tail after a restart, want none", n)
			}
			v.Release()
			insertTenants(t, m2, rows("d", 0), false)
			if got, w := readTenants(t, st), append(slices.Clone(want), "d/0", "d/1"); !slices.Equal(got, w) {
				t.Errorf("rows after a restart and an insert %v, want %v", got, w)
			}
		})
	}
}
