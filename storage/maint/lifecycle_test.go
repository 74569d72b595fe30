package maint

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
)

// lifeEnv is a table t (ts timestamptz, n long) with a link over it, as
// a Loam server has it. Rows lie relative to the real clock: iceberg-go
// stamps snapshots with it.
type lifeEnv struct {
	dir   string
	meta  meta.Store
	store *icetable.Store
	m     *link.Manager
}

func newLifeEnv(t *testing.T, partitioned bool, props iceberg.Properties) *lifeEnv {
	t.Helper()
	ctx := context.Background()
	dir, ms, st := openWarehouse(t)
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 2, Name: "n", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	var spec *iceberg.PartitionSpec
	if partitioned {
		s := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1000, Name: "ts_day", Transform: iceberg.DayTransform{}})
		spec = &s
	}
	all := CreateProperties()
	for k, v := range props {
		all[k] = v
	}
	if _, err := st.Create(ctx, "public", "t", sc, spec, table.UnsortedSortOrder, all); err != nil {
		t.Fatal(err)
	}
	return &lifeEnv{dir: dir, meta: ms, store: st, m: openLink(t, st, dir)}
}

var retain30 = iceberg.Properties{RetentionSpecProperty: RetentionSpec(0, 30, 0), RetentionColumnProperty: "ts"}

// write commits rows (n, age before now; age < 0: NULL ts) to the log and
// links them into Iceberg: one snapshot.
func (e *lifeEnv) write(t *testing.T, now time.Time, rows map[int64]time.Duration) {
	t.Helper()
	ctx := context.Background()
	tx, err := e.m.Begin(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := table.SchemaToArrowSchema(tx.Table().Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, sc.Field(0).Type.(*arrow.TimestampType))
	nb := array.NewInt64Builder(memory.DefaultAllocator)
	for _, n := range slices.Sorted(func(yield func(int64) bool) {
		for n := range rows {
			if !yield(n) {
				return
			}
		}
	}) {
		if age := rows[n]; age < 0 {
			tb.AppendNull()
		} else {
			tb.Append(arrow.Timestamp(now.Add(-age).UnixMicro()))
		}
		nb.Append(n)
	}
	rec := array.NewRecordBatch(sc, []arrow.Array{tb.NewArray(), nb.NewArray()}, int64(len(rows)))
	if err := tx.Add(rec); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := e.m.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
}

// outside reads the table as another engine would: iceberg-go's scan of
// the catalog's current snapshot. It returns the n of each row, sorted.
func (e *lifeEnv) outside(t *testing.T) (tbl *table.Table, ns []int64) {
	t.Helper()
	ctx := context.Background()
	tbl, err := e.store.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	for tr.Next() {
		c := tr.RecordBatch().Column(1).(*array.Int64)
		for i := 0; i < c.Len(); i++ {
			ns = append(ns, c.Value(i))
		}
	}
	slices.Sort(ns)
	return tbl, ns
}

func dataFiles(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		out = append(out, task.File.FilePath())
	}
	return out
}

const day = 24 * time.Hour

func TestDropExpiredPartitions(t *testing.T) {
	for _, c := range []struct {
		name        string
		partitioned bool
		// batches, each a link commit (a file per partition)
		batches [][2]int64 // n, age in days (-1: NULL)
		dropped int
		left    []int64
	}{
		{"by day", true, [][2]int64{{1, 40}, {2, 35}, {3, 20}, {4, 1}, {5, -1}}, 2, []int64{3, 4, 5}},
		// Unpartitioned: a file goes when its bounds say all its rows
		// expired; a boundary file or one with NULLs stays.
		{"by bounds", false, nil, 1, []int64{3, 4, 5, 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newLifeEnv(t, c.partitioned, retain30)
			now := time.Now()
			if c.partitioned {
				rows := map[int64]time.Duration{}
				for _, b := range c.batches {
					rows[b[0]] = time.Duration(b[1]) * day
				}
				e.write(t, now, rows)
			} else {
				// One file of two expired rows, one of an expired and a
				// kept row, one of an expired row and a NULL.
				e.write(t, now, map[int64]time.Duration{1: 40 * day, 2: 35 * day})
				e.write(t, now, map[int64]time.Duration{3: 40 * day, 4: day})
				e.write(t, now, map[int64]time.Duration{5: 40 * day, 6: -1})
			}
			before, _ := e.outside(t)
			files, err := DropExpiredPartitions(context.Background(), e.m, "public", "t", now)
			if err != nil {
				t.Fatal(err)
			}
			if files != c.dropped {
				t.Errorf("dropped %d files, want %d", files, c.dropped)
			}
			after, left := e.outside(t)
			if !slices.Equal(left, c.left) {
				t.Errorf("rows after the drop %v, want %v", left, c.left)
			}
			snap := after.CurrentSnapshot()
			if snap.SnapshotID == before.CurrentSnapshot().SnapshotID {
				t.Fatal("no snapshot committed")
			}
			p := snap.Summary.Properties
			if p[link.SummaryKey] != before.CurrentSnapshot().Summary.Properties[link.SummaryKey] || p[OperationProperty] != "retention" {
				t.Errorf("snapshot summary %v lacks the log position or the operation", p)
			}
			if p["added-data-files"] != "" && p["added-data-files"] != "0" {
				t.Errorf("the drop added files: %v", p)
			}
			// Metadata only: the dropped files are still on disk, for the
			// snapshots that hold them.
			for _, f := range dataFiles(t, before) {
				if !exists(t, f) {
					t.Errorf("%s deleted", f)
				}
			}
			// Nothing more to drop.
			if files, err := DropExpiredPartitions(context.Background(), e.m, "public", "t", now); err != nil || files != 0 {
				t.Errorf("second drop: %d files, %v", files, err)
			}
		})
	}
}

func TestDropExpiredPartitionsWithoutRetention(t *testing.T) {
	e := newLifeEnv(t, true, nil)
	now := time.Now()
	e.write(t, now, map[int64]time.Duration{1: 400 * day})
	if files, err := DropExpiredPartitions(context.Background(), e.m, "public", "t", now); err != nil || files != 0 {
		t.Errorf("dropped %d files, %v; want none", files, err)
	}
}

func TestExpireSnapshots(t *testing.T) {
	ctx := context.Background()
	e := newLifeEnv(t, true, retain30)
	now := time.Now()
	e.write(t, now, map[int64]time.Duration{1: 40 * day}) // S1: file A, expired
	s1, _ := e.outside(t)
	fileA := dataFiles(t, s1)[0]
	if files, err := DropExpiredPartitions(ctx, e.m, "public", "t", now); err != nil || files != 1 {
		t.Fatalf("drop: %d files, %v", files, err)
	}
	s2, _ := e.outside(t) // S2: A dropped
	// A tag keeps S2 (and nothing S2 does not reference).
	tag := s2.CurrentSnapshot().SnapshotID
	if err := e.m.Alter(ctx, "public", "t", func(*table.Table) ([]table.Requirement, []table.Update, error) {
		return nil, []table.Update{table.NewSetSnapshotRefUpdate("keep", tag, table.TagRef, 0, 0, 0)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for n := int64(2); n <= 7; n++ { // S3..S8
		e.write(t, now, map[int64]time.Duration{n: time.Duration(n) * time.Hour})
	}
	cur, rows := e.outside(t)
	live := dataFiles(t, cur)
	total := len(cur.Metadata().Snapshots())

	// Young snapshots stay, however many.
	if rep, err := ExpireSnapshots(ctx, e.m, "public", "t", now); err != nil || rep.Snapshots != 0 {
		t.Fatalf("expire at now: %+v, %v", rep, err)
	}
	// Two days on, past the default day: all but the last five and the
	// tagged one go.
	rep, err := ExpireSnapshots(ctx, e.m, "public", "t", now.Add(2*day))
	if err != nil {
		t.Fatal(err)
	}
	after, rowsAfter := e.outside(t)
	var ids []int64
	for _, s := range after.Metadata().Snapshots() {
		ids = append(ids, s.SnapshotID)
	}
	if want := total - SnapshotsKept - 1; rep.Snapshots != want || len(ids) != SnapshotsKept+1 {
		t.Errorf("expired %d snapshots (%d left), want %d (%d left)", rep.Snapshots, len(ids), want, SnapshotsKept+1)
	}
	if !slices.Contains(ids, tag) || after.Metadata().SnapshotByID(s1.CurrentSnapshot().SnapshotID) != nil {
		t.Errorf("snapshots left %v: want the tagged %d and not S1", ids, tag)
	}
	if ref, ok := maps.Collect(after.Metadata().Refs())["keep"]; !ok || ref.SnapshotID != tag {
		t.Errorf("tag keep lost")
	}
	if exists(t, fileA) || rep.Snapshots == 0 {
		t.Errorf("file %s only expired snapshots referenced: exists %v, report %+v", fileA, exists(t, fileA), rep)
	}
	if exists(t, s1.CurrentSnapshot().ManifestList) {
		t.Errorf("S1's manifest list %s left", s1.CurrentSnapshot().ManifestList)
	}
	for _, f := range live {
		if !exists(t, f) {
			t.Errorf("live file %s deleted", f)
		}
	}
	if !slices.Equal(rows, rowsAfter) {
		t.Errorf("rows %v, before %v", rowsAfter, rows)
	}
	if p := after.CurrentSnapshot().Summary.Properties[link.SummaryKey]; p != cur.CurrentSnapshot().Summary.Properties[link.SummaryKey] {
		t.Errorf("log position moved: %s", p)
	}
}

func TestSnapshotRetentionProperty(t *testing.T) {
	ctx := context.Background()
	e := newLifeEnv(t, false, iceberg.Properties{SnapshotRetentionProperty: RetentionSpec(0, 7, 0)})
	now := time.Now()
	for n := int64(1); n <= 8; n++ {
		e.write(t, now, map[int64]time.Duration{n: time.Hour})
	}
	if rep, err := ExpireSnapshots(ctx, e.m, "public", "t", now.Add(2*day)); err != nil || rep.Snapshots != 0 {
		t.Errorf("a week's retention, two days on: %+v, %v", rep, err)
	}
	if rep, err := ExpireSnapshots(ctx, e.m, "public", "t", now.Add(8*day)); err != nil || rep.Snapshots != 8-SnapshotsKept {
		t.Errorf("a week's retention, eight days on: %+v, %v", rep, err)
	}
}

func TestRemoveOrphans(t *testing.T) {
	ctx := context.Background()
	e := newLifeEnv(t, false, nil)
	now := time.Now()
	e.write(t, now, map[int64]time.Duration{1: time.Hour, 2: time.Hour})
	tbl, rows := e.outside(t)
	stray := strings.TrimSuffix(tbl.Location(), "/") + "/data/stray.parquet"
	putFile(t, stray, []byte("left by a crash"))
	// Younger than the margin: kept (a commit may be in flight).
	if n, err := RemoveOrphans(ctx, e.m, "public", "t", now); err != nil || n != 0 || !exists(t, stray) {
		t.Fatalf("at now: removed %d, %v", n, err)
	}
	n, err := RemoveOrphans(ctx, e.m, "public", "t", now.Add(2*OrphanMargin))
	if err != nil || n != 1 || exists(t, stray) {
		t.Errorf("past the margin: removed %d, %v; stray exists %v", n, err, exists(t, stray))
	}
	if _, after := e.outside(t); !slices.Equal(after, rows) {
		t.Errorf("rows %v, want %v", after, rows)
	}
}

// The metadata directory stays bounded: commits delete the metadata files
// that fall out of the log (CreateProperties).
func TestMetadataFilesBounded(t *testing.T) {
	e := newLifeEnv(t, false, nil)
	now := time.Now()
	for n := int64(0); n < 30; n++ {
		e.write(t, now, map[int64]time.Duration{n: time.Hour})
	}
	tbl, _ := e.outside(t)
	mds := filesUnder(t, strings.TrimSuffix(tbl.Location(), "/")+"/metadata", ".metadata.json")
	if want := len(slices.Collect(tbl.Metadata().PreviousFiles())) + 1; len(mds) > want+1 || want > 21 {
		t.Errorf("%d metadata files for a log of %d", len(mds), want)
	}
}

// A table without snapshots has nothing to maintain.
func TestUpkeepOfEmptyTable(t *testing.T) {
	ctx := context.Background()
	e := newLifeEnv(t, true, retain30)
	later := time.Now().Add(30 * day)
	if n, err := DropExpiredPartitions(ctx, e.m, "public", "t", later); err != nil || n != 0 {
		t.Errorf("drop: %d, %v", n, err)
	}
	if rep, err := ExpireSnapshots(ctx, e.m, "public", "t", later); err != nil || rep != (ExpireReport{}) {
		t.Errorf("expire: %+v, %v", rep, err)
	}
	if n, err := RemoveOrphans(ctx, e.m, "public", "t", later); err != nil || n != 0 {
		t.Errorf("orphans: %d, %v", n, err)
	}
}

// With several servers on one metastore only the table's writer maintains
// it: another server's upkeep is refused (55006) and removes nothing.
func TestUpkeepOnlyByTheWriter(t *testing.T) {
	ctx := context.Background()
	e := newLifeEnv(t, true, retain30)
	server := func(id string) *link.Manager {
		m, err := link.Open(ctx, e.store, link.Options{Dir: t.TempDir(), LinkInterval: time.Hour,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Leases: e.meta,
			Holder: meta.Holder{ID: id, Address: "127.0.0.1:" + id}, LeaseTTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	writer, other := server("5001"), server("5002")
	e.m = writer
	now := time.Now()
	e.write(t, now, map[int64]time.Duration{1: 40 * day, 2: day})
	tbl, rows := e.outside(t)
	stray := strings.TrimSuffix(tbl.Location(), "/") + "/data/stray.parquet"
	putFile(t, stray, []byte("in flight"))
	later := now.Add(400 * day)
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "written by another Loam server") {
			t.Errorf("%s on the other server: %v, want 55006", what, err)
		}
	}
	_, err := DropExpiredPartitions(ctx, other, "public", "t", later)
	check("drop", err)
	_, err = ExpireSnapshots(ctx, other, "public", "t", later)
	check("expire", err)
	_, err = RemoveOrphans(ctx, other, "public", "t", later)
	check("orphans", err)
	if _, after := e.outside(t); !slices.Equal(after, rows) || !exists(t, stray) {
		t.Errorf("the other server changed the table: rows %v (want %v), stray kept %v", after, rows, exists(t, stray))
	}
	// The writer may.
	if n, err := RemoveOrphans(ctx, writer, "public", "t", later); err != nil || n != 1 {
		t.Errorf("writer's orphan removal: %d, %v", n, err)
	}
}

// A file without column bounds is judged by its partition value.
func TestFileExpiredByPartition(t *testing.T) {
	e := newLifeEnv(t, true, retain30)
	tbl, _ := e.outside(t)
	spec := tbl.Spec()
	now := time.Now()
	keep := KeepFrom(now.Add(-30*day), false)
	today := int32(now.Unix() / 86400)
	for _, c := range []struct {
		part any
		want bool
	}{
		{today - 40, true},
		{today - 30, false}, // holds the cutoff
		{today, false},
		{nil, false}, // NULL ts
	} {
		b, err := iceberg.NewDataFileBuilder(spec, iceberg.EntryContentData, "file:///x.parquet", iceberg.ParquetFile,
			map[int]any{1000: c.part}, nil, nil, 10, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got := fileExpired(tbl.Metadata(), b.Build(), 1, false, keep); got != c.want {
			t.Errorf("day partition %v: expired %v, want %v", c.part, got, c.want)
		}
	}
}
