package maint

import (
	"context"
	"io"
	"log/slog"
	"math/rand"
	"slices"
	"sync"
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
	"github.com/loamdb/loam/storage/s3test"
)

// now is the tests' clock: rows are stamped around it.
var now = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

type env struct {
	dir   string
	meta  meta.Store
	store *icetable.Store
	m     *link.Manager
}

// newEnv makes table public.t (id bigint, ts timestamptz, x bigint),
// partitioned by day(ts) and sorted by id, with props.
func newEnv(t testing.TB, props iceberg.Properties) *env {
	t.Helper()
	ctx := context.Background()
	dir, ms, st := openWarehouse(t)
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 3, Name: "x", Type: iceberg.PrimitiveTypes.Int64})
	pid := 1000
	spec, err := iceberg.NewPartitionSpecOpts(iceberg.AddPartitionFieldBySourceID(2, "ts_day", iceberg.DayTransform{}, sc, &pid))
	if err != nil {
		t.Fatal(err)
	}
	order, err := table.NewSortOrder(1, []table.SortField{{SourceIDs: []int{1}, Transform: iceberg.IdentityTransform{},
		Direction: table.SortASC, NullOrder: table.NullsLast}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, "public", "t", sc, &spec, order, props); err != nil {
		t.Fatal(err)
	}
	return &env{dir: dir, meta: ms, store: st, m: openLink(t, st, dir)}
}

// openWarehouse opens a SQLite metastore and file warehouse in a fresh
// directory, with the public namespace.
func openWarehouse(t testing.TB) (string, meta.Store, *icetable.Store) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	wh, whIO := s3test.Warehouse(t, dir)
	ms, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	st := icetable.New(ms.Catalog())
	if err := st.CreateNamespace(ctx, "public"); err != nil {
		t.Fatal(err)
	}
	return dir, ms, st
}

// openLink opens a link over st with its write log in dir, committing only
// when told (the tests call Checkpoint).
func openLink(t testing.TB, st *icetable.Store, dir string) *link.Manager {
	t.Helper()
	m, err := link.Open(context.Background(), st, link.Options{Dir: dir + "/wal", LinkInterval: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

type row struct {
	id int64
	ts *time.Time
	x  int64
}

// insert commits rows as one transaction and links it into Iceberg, as
// one small data file per partition.
func (e *env) insert(t testing.TB, rows []row) {
	t.Helper()
	if err := e.insertErr(rows); err != nil {
		t.Fatal(err)
	}
}

func (e *env) insertErr(rows []row) error {
	ctx := context.Background()
	tx, err := e.m.Begin(ctx, "public", "t")
	if err != nil {
		return err
	}
	sc, err := table.SchemaToArrowSchema(tx.Table().Schema(), nil, true, false)
	if err != nil {
		return err
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, sc.Field(1).Type.(*arrow.TimestampType))
	xb := array.NewInt64Builder(memory.DefaultAllocator)
	for _, r := range rows {
		ib.Append(r.id)
		if r.ts == nil {
			tb.AppendNull()
		} else {
			tb.Append(arrow.Timestamp(r.ts.UnixMicro()))
		}
		xb.Append(r.x)
	}
	rec := array.NewRecordBatch(sc, []arrow.Array{ib.NewArray(), tb.NewArray(), xb.NewArray()}, int64(len(rows)))
	defer rec.Release()
	if err := tx.Add(rec); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return e.m.Checkpoint(ctx)
}

// readBack reads the table as an outside engine does, with iceberg-go's
// own scan: the ids, and each data file's ids in file order.
func (e *env) readBack(t testing.TB) (ids []int64, files map[string][]int64) {
	t.Helper()
	ctx := context.Background()
	tbl, err := e.store.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files = map[string][]int64{}
	for _, task := range tasks {
		_, recs, err := tbl.Scan().ReadTasks(ctx, []table.FileScanTask{task})
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range recs {
			if err != nil {
				t.Fatal(err)
			}
			col := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				files[task.File.FilePath()] = append(files[task.File.FilePath()], col.Value(i))
				ids = append(ids, col.Value(i))
			}
			rec.Release()
		}
	}
	slices.Sort(ids)
	return ids, files
}

func at(d time.Duration) *time.Time { t := now.Add(d); return &t }

func TestCompactMergesSortsAndKeepsRows(t *testing.T) {
	e := newEnv(t, nil)
	r := rand.New(rand.NewSource(1))
	var want []int64
	perm := r.Perm(200)
	for i := 0; i < 20; i++ {
		var rows []row
		for _, p := range perm[i*10 : i*10+10] {
			// Two days: two partitions.
			rows = append(rows, row{id: int64(p), ts: at(time.Duration(p%2) * 24 * time.Hour), x: int64(p)})
			want = append(want, int64(p))
		}
		e.insert(t, rows)
	}
	slices.Sort(want)
	_, before := e.readBack(t)
	if len(before) != 40 {
		t.Fatalf("before: %d files, want 40", len(before))
	}
	rep, err := Compact(context.Background(), e.m, "public", "t", now, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved != 40 || rep.FilesAdded != 2 {
		t.Errorf("report %+v: want 40 files replaced by 2", rep)
	}
	ids, after := e.readBack(t)
	if !slices.Equal(ids, want) {
		t.Fatalf("rows after compaction differ: %d rows, want %d", len(ids), len(want))
	}
	if len(after) != 2 {
		t.Errorf("after: %d files, want 2 (one a partition)", len(after))
	}
	for f, ids := range after {
		if !slices.IsSorted(ids) {
			t.Errorf("%s: rows not in SORTED BY order: %v", f, ids)
		}
	}
	tbl, _ := e.store.Load(context.Background(), "public", "t")
	snap := tbl.CurrentSnapshot()
	if snap.Summary.Operation != table.OpReplace {
		t.Errorf("snapshot operation %q, want replace", snap.Summary.Operation)
	}
	if _, ok := snap.Summary.Properties[link.SummaryKey]; !ok {
		t.Error("the rewrite snapshot lost the log position")
	}
}

func TestCompactSkipsFewFiles(t *testing.T) {
	e := newEnv(t, nil)
	for i := int64(0); i < 3; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	rep, err := Compact(context.Background(), e.m, "public", "t", now, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved != 0 {
		t.Errorf("3 small files, below the background threshold, were compacted: %+v", rep)
	}
	if rep, _ = Compact(context.Background(), e.m, "public", "t", now, CompactOptions{MinInputFiles: 2}); rep.FilesRemoved != 3 {
		t.Errorf("VACUUM's threshold: %+v, want 3 files replaced", rep)
	}
}

func TestCompactDropsExpiredRows(t *testing.T) {
	e := newEnv(t, iceberg.Properties{RetentionSpecProperty: RetentionSpec(0, 7, 0), RetentionColumnProperty: "ts"})
	day := 24 * time.Hour
	e.insert(t, []row{{id: 1, ts: at(-30 * day)}, {id: 2, ts: at(0)}})
	e.insert(t, []row{{id: 3, ts: at(-7*day - time.Microsecond)}}) // just past
	e.insert(t, []row{{id: 4, ts: at(-7 * day)}})                  // just kept
	e.insert(t, []row{{id: 5, ts: nil}, {id: 6, ts: at(-30 * day)}})
	rep, err := Compact(context.Background(), e.m, "public", "t", now, CompactOptions{MinInputFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RowsExpired != 3 {
		t.Errorf("expired %d rows, want 3", rep.RowsExpired)
	}
	ids, _ := e.readBack(t)
	if want := []int64{2, 4, 5}; !slices.Equal(ids, want) {
		t.Errorf("rows %v, want %v", ids, want)
	}
}

func TestCompactKeepsLinkCommitsLandingMeanwhile(t *testing.T) {
	e := newEnv(t, nil)
	for i := int64(0); i < 6; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	// A link commit lands between compaction's read and its commit: it
	// only appends, so the rewrite commits beside it and keeps it.
	beforeCommit = func() { e.insert(t, []row{{id: 100, ts: at(0)}, {id: 101, ts: at(0)}}) }
	defer func() { beforeCommit = nil }()
	rep, err := Compact(context.Background(), e.m, "public", "t", now, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conflict || rep.FilesRemoved != 6 {
		t.Errorf("report %+v, want 6 files replaced", rep)
	}
	ids, files := e.readBack(t)
	if want := []int64{0, 1, 2, 3, 4, 5, 100, 101}; !slices.Equal(ids, want) {
		t.Errorf("rows %v, want %v", ids, want)
	}
	if len(files) != 2 {
		t.Errorf("%d files, want the compacted one and the link's", len(files))
	}
}

func TestCompactConflictRetriesLater(t *testing.T) {
	e := newEnv(t, nil)
	for i := int64(0); i < 6; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	// Another rewrite replaces the same files first: this one must fail
	// validation, drop its output and leave the rows as they are.
	beforeCommit = func() {
		beforeCommit = nil
		if rep, err := Compact(context.Background(), e.m, "public", "t", now, CompactOptions{}); err != nil || rep.FilesRemoved != 6 {
			t.Errorf("inner compaction: %+v %v", rep, err)
		}
		e.insert(t, []row{{id: 100, ts: at(0)}})
	}
	defer func() { beforeCommit = nil }()
	rep, err := Compact(context.Background(), e.m, "public", "t", now, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Conflict {
		t.Errorf("report %+v, want a conflict", rep)
	}
	ids, files := e.readBack(t)
	if want := []int64{0, 1, 2, 3, 4, 5, 100}; !slices.Equal(ids, want) {
		t.Errorf("rows %v, want %v", ids, want)
	}
	if len(files) != 2 {
		t.Errorf("%d files, want 2", len(files))
	}
	// The six replaced files stay until snapshot expiry, beside the inner
	// rewrite's file and the insert's; the failed rewrite's are gone.
	if n := dataFilesOnDisk(t, e); n != 8 {
		t.Errorf("%d data files on disk, want 8: the failed rewrite's output stays behind", n)
	}
}

func TestCompactDuringIngest(t *testing.T) {
	e := newEnv(t, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var written []int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for id := int64(0); ; id++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := e.insertErr([]row{{id: id, ts: at(time.Duration(id%3) * 24 * time.Hour)}}); err != nil {
				t.Error(err)
				return
			}
			written = append(written, id)
		}
	}()
	r := NewRunner(e.m, nil, time.Hour)
	for i := 0; i < 5; i++ {
		if _, err := r.Vacuum(context.Background(), "public", "t"); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	if _, err := r.Vacuum(context.Background(), "public", "t"); err != nil {
		t.Fatal(err)
	}
	ids, files := e.readBack(t)
	if !slices.Equal(ids, written) {
		t.Errorf("after compacting during ingest: %d rows, want %d (lost or duplicated)", len(ids), len(written))
	}
	if len(files) > 3 {
		t.Errorf("%d files after a final VACUUM, want at most one a partition", len(files))
	}
}

func TestMergeManifests(t *testing.T) {
	e := newEnv(t, nil)
	for i := int64(0); i < 5; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	n, err := MergeManifests(context.Background(), e.m, "public", "t", true)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("replaced %d manifests, want 5", n)
	}
	ctx := context.Background()
	tbl, _ := e.store.Load(ctx, "public", "t")
	fs, _ := tbl.FS(ctx)
	mfs, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 1 {
		t.Errorf("%d manifests after merging, want 1", len(mfs))
	}
	if _, ok := tbl.CurrentSnapshot().Summary.Properties[link.SummaryKey]; !ok {
		t.Error("the current snapshot lost the log position")
	}
	if ids, _ := e.readBack(t); !slices.Equal(ids, []int64{0, 1, 2, 3, 4}) {
		t.Errorf("rows %v", ids)
	}
}

// dataFilesOnDisk counts the Parquet files under the warehouse.
func dataFilesOnDisk(t *testing.T, e *env) int {
	wh, _ := s3test.Warehouse(t, e.dir)
	return len(filesUnder(t, wh, ".parquet"))
}

func TestCompactAppliesDeletes(t *testing.T) {
	e := newEnv(t, iceberg.Properties{table.WriteDeleteModeKey: table.WriteModeMergeOnRead})
	for i := int64(0); i < 6; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}, {id: 10 + i, ts: at(0)}})
	}
	// A merge-on-read DELETE (as UPDATE and DELETE will write): its
	// delete files hide rows the data files still hold.
	ctx := context.Background()
	err := e.m.Maintain(ctx, "public", "t", func(ctx context.Context, cur *table.Table, props iceberg.Properties) (*table.Table, error) {
		txn := cur.NewTransaction()
		if err := txn.Delete(ctx, iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(13)), props); err != nil {
			return nil, err
		}
		return txn.Commit(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	deletes := func() int {
		tbl, _ := e.store.Load(ctx, "public", "t")
		tasks, err := tbl.Scan().PlanFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, task := range tasks {
			n += len(task.DeleteFiles) + len(task.DeletionVectorFiles)
		}
		return n
	}
	if deletes() == 0 {
		t.Fatal("the DELETE wrote no delete files: the test needs merge-on-read")
	}
	if _, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	ids, files := e.readBack(t)
	if want := []int64{0, 1, 2, 3, 4, 5, 10, 11, 12}; !slices.Equal(ids, want) {
		t.Errorf("rows %v, want %v", ids, want)
	}
	if len(files) != 1 {
		t.Errorf("%d files, want 1", len(files))
	}
	if n := deletes(); n != 0 {
		t.Errorf("%d delete files still apply after compaction; its output holds only live rows", n)
	}
	// The compacted file itself holds only the live rows.
	for f, ids := range files {
		if len(ids) != 9 {
			t.Errorf("%s holds %d rows, want the 9 live ones", f, len(ids))
		}
	}
}

// The Runner compacts in the background, and Stop ends it.
func TestRunnerCompactsInBackground(t *testing.T) {
	e := newEnv(t, nil)
	for i := int64(0); i < 6; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	r := NewRunner(e.m, nil, 20*time.Millisecond)
	r.Start()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, files := e.readBack(t); len(files) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("6 small files not compacted in the background within 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.Stop()
	r.Stop() // twice is harmless
	if ids, _ := e.readBack(t); !slices.Equal(ids, []int64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("rows %v", ids)
	}
}
