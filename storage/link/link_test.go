package link

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/s3test"
	"github.com/loamdb/loam/storage/wal"
)

type env struct {
	dir   string
	meta  meta.Store
	store *icetable.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newTableEnv(t, nil, nil, table.UnsortedSortOrder)
}

// newTableEnv is newEnv with the table's properties (e.g. its format
// version), partition spec and sort order.
func newTableEnv(t *testing.T, props iceberg.Properties, spec *iceberg.PartitionSpec, order table.SortOrder) *env {
	t.Helper()
	dir := t.TempDir()
	wh, whIO := s3test.Warehouse(t, dir)
	m, err := meta.Open(context.Background(), "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	// With the loaded-table cache, as the engine has it: a server must
	// still see another's commits.
	st := icetable.NewWithPointers(m.Catalog(), m)
	ctx := context.Background()
	if err := st.CreateNamespace(ctx, "public"); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "k", Type: iceberg.PrimitiveTypes.String})
	if _, err := st.Create(ctx, "public", "t", sc, spec, order, props); err != nil {
		t.Fatal(err)
	}
	return &env{dir: dir, meta: m, store: st}
}

func (e *env) open(t *testing.T) *Manager {
	t.Helper()
	m, err := Open(context.Background(), e.store, Options{Dir: e.dir + "/wal", LinkInterval: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), SegmentSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rows makes a batch of ids [from, to) in the table's Iceberg Arrow schema.
func rows(t *testing.T, tx *Txn, from, to int64) arrow.RecordBatch {
	sc, err := table.SchemaToArrowSchema(tx.Table().Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := from; i < to; i++ {
		ib.Append(i)
		sb.Append("k")
	}
	return array.NewRecordBatch(sc, []arrow.Array{ib.NewArray(), sb.NewArray()}, to-from)
}

func write(t *testing.T, m *Manager, from, to int64, chunk int64, commit bool) {
	t.Helper()
	tx, err := m.Begin(context.Background(), "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i += chunk {
		if err := tx.Add(rows(t, tx, i, min(i+chunk, to))); err != nil {
			t.Fatal(err)
		}
	}
	if commit {
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// seen returns the ids a query would see (snapshot + tail) and the ids in
// Iceberg alone, read with iceberg-go's scan.
func seen(t *testing.T, m *Manager, e *env) (all, iceberg map[int64]int) {
	t.Helper()
	ctx := context.Background()
	v, err := m.View(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	all, iceberg = map[int64]int{}, map[int64]int{}
	count := func(dst map[int64]int, rec arrow.RecordBatch) {
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			dst[ids.Value(i)]++
		}
	}
	tbl, err := e.store.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if tbl.CurrentSnapshot() != nil {
		at, err := tbl.Scan().ToArrowTable(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tr := array.NewTableReader(at, 1024)
		for tr.Next() {
			count(iceberg, tr.RecordBatch())
			count(all, tr.RecordBatch())
		}
		tr.Release()
	}
	// The view's snapshot is the one just scanned (no link runs here).
	for rec, err := range v.Tail {
		if err != nil {
			t.Fatal(err)
		}
		count(all, rec)
		rec.Release()
	}
	return all, iceberg
}

func exactly(t *testing.T, what string, got map[int64]int, from, to int64) {
	t.Helper()
	if int64(len(got)) != to-from {
		t.Fatalf("%s: %d distinct ids, want %d", what, len(got), to-from)
	}
	for i := from; i < to; i++ {
		if got[i] != 1 {
			t.Fatalf("%s: id %d seen %d times", what, i, got[i])
		}
	}
}

func TestRestartReplaysCommittedOnly(t *testing.T) {
	e := newEnv(t)
	m := e.open(t)
	write(t, m, 0, 100, 30, true)
	write(t, m, 100, 150, 10, false) // never committed: a crash mid-COPY
	all, ice := seen(t, m, e)
	exactly(t, "before restart", all, 0, 100)
	if len(ice) != 0 {
		t.Fatalf("%d rows in Iceberg before any link", len(ice))
	}
	m.Close()

	m = e.open(t)
	defer m.Close()
	all, _ = seen(t, m, e)
	exactly(t, "after restart", all, 0, 100)
	if err := m.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	all, ice = seen(t, m, e)
	exactly(t, "after checkpoint (all)", all, 0, 100)
	exactly(t, "after checkpoint (iceberg)", ice, 0, 100)
}

// A crash after the catalog swap but before the log is trimmed: the
// restart must not replay what the snapshot already holds.
func TestNoDuplicateAfterCommitBeforeTrim(t *testing.T) {
	e := newEnv(t)
	m := e.open(t)
	write(t, m, 0, 500, 100, true)
	st, _ := m.state(context.Background(), Key{"public", "t"})
	if _, err := m.linkOnce(context.Background(), st); err != nil { // no trim
		t.Fatal(err)
	}
	m.Close()
	m = e.open(t)
	defer m.Close()
	all, ice := seen(t, m, e)
	exactly(t, "all", all, 0, 500)
	exactly(t, "iceberg", ice, 0, 500)
	snap, _ := e.store.Load(context.Background(), "public", "t")
	if _, ok := snap.CurrentSnapshot().Summary.Properties[SummaryKey]; !ok {
		t.Fatalf("snapshot summary lacks %s: %v", SummaryKey, snap.CurrentSnapshot().Summary.Properties)
	}
}

// A large transaction reaches Iceberg in several commits; a crash between
// them resumes from the chunk the snapshot records.
func TestLargeTransactionInSeveralCommits(t *testing.T) {
	old := MaxRowsPerCommit
	MaxRowsPerCommit = 250
	defer func() { MaxRowsPerCommit = old }()
	e := newEnv(t)
	m := e.open(t)
	write(t, m, 0, 1000, 100, true)
	write(t, m, 1000, 1100, 100, true)
	st, _ := m.state(context.Background(), Key{"public", "t"})
	if _, err := m.linkOnce(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	all, ice := seen(t, m, e)
	exactly(t, "all after one commit", all, 0, 1100)
	if len(ice) != 300 {
		t.Fatalf("first commit took %d rows, want 300 (whole chunks up to 250 rows)", len(ice))
	}
	m.Close()
	m = e.open(t)
	defer m.Close()
	all, _ = seen(t, m, e)
	exactly(t, "all after restart", all, 0, 1100)
	if err := m.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, ice = seen(t, m, e)
	exactly(t, "iceberg after checkpoint", ice, 0, 1100)
	// Every segment before the current one is gone once all is committed.
	if segs, _ := walSegments(e.dir + "/wal"); len(segs) > 2 {
		t.Fatalf("%d log segments left after checkpoint", len(segs))
	}
}

// A query's view keeps its snapshot and tail while a link commit lands.
func TestViewIsStableAcrossCommit(t *testing.T) {
	e := newEnv(t)
	m := e.open(t)
	defer m.Close()
	write(t, m, 0, 100, 50, true)
	v, err := m.View(context.Background(), "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Checkpoint(context.Background()) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v.Table.CurrentSnapshot() != nil || v.TailRows() != 100 {
		t.Fatalf("view changed under a commit: snapshot %v, tail %d", v.Table.CurrentSnapshot(), v.TailRows())
	}
	n := 0
	for rec, err := range v.Tail {
		if err != nil {
			t.Fatalf("reading a pinned tail after the commit: %v", err)
		}
		n += int(rec.NumRows())
		rec.Release()
	}
	v.Release()
	if n != 100 {
		t.Fatalf("pinned tail read %d rows", n)
	}
}

func walSegments(dir string) ([]uint32, error) { return wal.Segments(dir) }

// Losing the write log directory must not make new writes look older than
// what the table's snapshot already holds.
func TestLostLogDirectory(t *testing.T) {
	e := newEnv(t)
	m := e.open(t)
	write(t, m, 0, 300, 100, true)
	if err := m.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if err := os.RemoveAll(e.dir + "/wal"); err != nil {
		t.Fatal(err)
	}
	m = e.open(t)
	write(t, m, 300, 310, 10, true)
	m.Close()
	m = e.open(t)
	defer m.Close()
	all, _ := seen(t, m, e)
	exactly(t, "after restart", all, 0, 310)
}

// A transaction block's statements commit with one record: after a
// restart the log replays all of them, and none of the aborted one.
func TestCommitAllReplays(t *testing.T) {
	e := newEnv(t)
	m := e.open(t)
	ctx := context.Background()
	begin := func(from, to int64) *Txn {
		tx, err := m.Begin(ctx, "public", "t")
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Add(rows(t, tx, from, to)); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	a, b, c := begin(0, 10), begin(10, 20), begin(20, 30)
	b.Abort() // a ROLLBACK TO between the two others
	all, _ := seen(t, m, e)
	if len(all) != 0 {
		t.Fatalf("%d rows visible before the commit", len(all))
	}
	// The block reads its own rows before committing.
	n := 0
	v, err := m.View(context.Background(), "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range v.Read(c).Rows(false) {
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
		rec.Release()
	}
	v.Release()
	if n != 10 {
		t.Fatalf("the block's read yielded %d rows, want 10", n)
	}
	if err := m.CommitAll([]*Txn{a, b, c}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		all, _ := seen(t, m, e)
		if len(all) != 20 {
			t.Fatalf("%s: %d rows, want 20", when, len(all))
		}
		for i := int64(0); i < 30; i++ {
			if want := map[bool]int{true: 1, false: 0}[i < 10 || i >= 20]; all[i] != want {
				t.Fatalf("%s: id %d seen %d times, want %d", when, i, all[i], want)
			}
		}
	}
	check("after commit")
	m.Close()
	m = e.open(t)
	defer m.Close()
	check("after restart")
	if err := m.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	check("after checkpoint")
}

// A view shares the tail's array; a commit that lands out of order (two
// syncs racing) must not change what a pinned view reads.
func TestViewSharesTailSafely(t *testing.T) {
	st := &tableState{}
	ref := func(p wal.Pos) txnEntry { return txnEntry{commit: p, chunks: []chunkRef{{pos: p, rows: 1}}} }
	st.insertTail(ref(10))
	st.insertTail(ref(30))
	st.insertTail(ref(40))
	if cap(st.tail) == len(st.tail) {
		t.Fatal("the test needs spare capacity in the tail's array")
	}
	v := &View{tail: st.tail}
	st.insertTail(ref(20)) // out of order
	st.insertTail(ref(50)) // in order: appended
	var got []wal.Pos
	for c := range v.chunks {
		got = append(got, c.pos)
	}
	if !slices.Equal(got, []wal.Pos{10, 30, 40}) {
		t.Fatalf("pinned view reads %v, want [10 30 40]", got)
	}
	var all []wal.Pos
	for _, e := range st.tail {
		all = append(all, e.commit)
	}
	if !slices.Equal(all, []wal.Pos{10, 20, 30, 40, 50}) {
		t.Fatalf("tail %v, want [10 20 30 40 50]", all)
	}
}

// Drop forgets a table only once the drop it runs succeeded: after a
// failed one the rows only the write log holds are still read.
func TestDropKeepsTailOnFailure(t *testing.T) {
	e := newEnv(t)
	m := e.open(t)
	defer m.Close()
	write(t, m, 0, 10, 10, true)
	key := Key{NS: "public", Name: "t"}
	failed := errors.New("metastore down")
	if err := m.Drop(context.Background(), key, func() error { return failed }); !errors.Is(err, failed) {
		t.Fatalf("Drop: %v, want %v", err, failed)
	}
	if all, _ := seen(t, m, e); len(all) != 10 {
		t.Fatalf("after a failed drop %d rows are read, want 10", len(all))
	}
	if err := m.Drop(context.Background(), key, func() error { return e.store.Drop(context.Background(), "public", "t") }); err != nil {
		t.Fatal(err)
	}
	if _, err := m.View(context.Background(), "public", "t"); !errors.Is(err, icetable.ErrNoSuchTable) {
		t.Fatalf("View after Drop: %v, want no such table", err)
	}
}
