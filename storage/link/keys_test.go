package link

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
)

func builds(t *testing.T, m *Manager) int {
	st, err := m.state(context.Background(), Key{"public", "kt"})
	if err != nil {
		t.Fatal(err)
	}
	st.keys.mu.Lock()
	defer st.keys.mu.Unlock()
	return st.keys.builds
}

func positionsOf(r *Read) *icetable.Positions {
	return &icetable.Positions{Deleted: r.FileDeletes, RowIDs: r.FileRowIDs}
}

// keyedTable creates public.kt (id bigint PRIMARY KEY, k text UNIQUE) in
// the given format version.
func keyedTable(t *testing.T, e *env, version string) {
	t.Helper()
	sc := iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "k", Type: iceberg.PrimitiveTypes.String})
	props := iceberg.Properties{"format-version": version,
		UniqueProperty: EncodeUnique([]KeyConstraint{{Name: "kt_k_key", Fields: []int{2}}})}
	if _, err := e.store.Create(context.Background(), "public", "kt", sc, nil, table.UnsortedSortOrder, props); err != nil {
		t.Fatal(err)
	}
}

// keyRows makes rows of kt: ids, and k = "k<id>" (or NULL for a
// negative id, whose row then gets id -id).
func keyRows(t *testing.T, tx *Txn, ids ...int64) arrow.RecordBatch {
	sc, err := table.SchemaToArrowSchema(tx.Table().Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for _, id := range ids {
		if id < 0 {
			ib.Append(-id)
			sb.AppendNull()
			continue
		}
		ib.Append(id)
		sb.Append(fmt.Sprintf("k%d", id))
	}
	return array.NewRecordBatch(sc, []arrow.Array{ib.NewArray(), sb.NewArray()}, int64(len(ids)))
}

// insertKeys inserts ids into kt in one committed transaction; the error
// is the insert's.
func insertKeys(t *testing.T, m *Manager, ids ...int64) error {
	t.Helper()
	tx, err := m.Begin(context.Background(), "public", "kt")
	if err != nil {
		t.Fatal(err)
	}
	rec := keyRows(t, tx, ids...)
	defer rec.Release()
	if err := tx.Add(rec); err != nil {
		tx.Abort()
		return err
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return nil
}

func wantDup(t *testing.T, err error, constraint string) {
	t.Helper()
	var kv *KeyViolation
	if pgerr.Code(err) != pgerr.UniqueViolation || !errors.As(err, &kv) || kv.Constraint != constraint {
		t.Fatalf("got %v (%s), want a 23505 on %s", err, pgerr.Code(err), constraint)
	}
}

// rowIDOf finds the row id of the row of kt with id, as a statement's
// read with row ids does.
func rowIDOf(t *testing.T, m *Manager, e *env, id int64) int64 {
	t.Helper()
	ctx := context.Background()
	v, err := m.View(ctx, "public", "kt")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	r := v.Read()
	check := func(rec arrow.RecordBatch) (int64, bool) {
		ids := rec.Column(0).(*array.Int64)
		rid := rec.Column(int(rec.NumCols()) - 1).(*array.Int64)
		for i := range ids.Len() {
			if ids.Value(i) == id {
				return rid.Value(i), true
			}
		}
		return 0, false
	}
	for rec, err := range r.Rows(true) {
		if err != nil {
			t.Fatal(err)
		}
		got, ok := check(rec)
		rec.Release()
		if ok {
			return got
		}
	}
	_, rows, _, err := e.store.Scan(ctx, v.Table, iceberg.AlwaysTrue{}, nil, nil, []string{"id", "k"}, positionsOf(r))
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range rows {
		if err != nil {
			t.Fatal(err)
		}
		got, ok := check(rec)
		rec.Release()
		if ok {
			return got
		}
	}
	t.Fatalf("no row with id %d", id)
	return 0
}

func TestKeyIndexAcrossLinkAndRestart(t *testing.T) {
	for _, version := range []string{"2", "3"} {
		t.Run("v"+version, func(t *testing.T) {
			e := newEnv(t)
			keyedTable(t, e, version)
			ctx := context.Background()
			m := e.open(t)
			if err := insertKeys(t, m, 1, 2, 3, -10, -11); err != nil {
				t.Fatal(err) // NULLs in a UNIQUE column are distinct
			}
			wantDup(t, insertKeys(t, m, 4, 2), "kt_pkey") // against the tail
			wantDup(t, insertKeys(t, m, 5, 5), "kt_pkey") // within one statement
			if err := m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			wantDup(t, insertKeys(t, m, 3), "kt_pkey") // against the files, after the link moved the rows
			if n := builds(t, m); n != 1 {
				t.Fatalf("index built %d times; the link commit should have kept it", n)
			}
			if err := insertKeys(t, m, 4, 5); err != nil {
				t.Fatal(err)
			}
			// A delete frees the key, in the files and in the tail.
			for _, id := range []int64{1, 4} {
				tx, err := m.Begin(ctx, "public", "kt")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Delete([]int64{rowIDOf(t, m, e, id)}); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			if err := insertKeys(t, m, 1, 4); err != nil {
				t.Fatal(err)
			}
			wantDup(t, insertKeys(t, m, 1), "kt_pkey")
			if err := m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			if err := insertKeys(t, m, 6); err != nil {
				t.Fatal(err)
			}
			if n := builds(t, m); n != 1 {
				t.Fatalf("index built %d times; commits and link commits should have kept it", n)
			}
			m.Close()

			// After a restart the index is rebuilt from the files and the
			// log's tail.
			m = e.open(t)
			defer m.Close()
			for _, id := range []int64{1, 2, 3, 4, 5, 6} {
				wantDup(t, insertKeys(t, m, id), "kt_pkey")
			}
			if err := insertKeys(t, m, 7, -12); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestKeyIndexUniqueAndBlocks(t *testing.T) {
	e := newEnv(t)
	keyedTable(t, e, "2")
	ctx := context.Background()
	m := e.open(t)
	defer m.Close()
	if err := insertKeys(t, m, 1); err != nil {
		t.Fatal(err)
	}
	// A second constraint: id 2 with k = 'k1'.
	tx, _ := m.Begin(ctx, "public", "kt")
	rec := keyRows(t, tx, 1)
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	ids.Append(2)
	rec2 := array.NewRecordBatch(rec.Schema(), []arrow.Array{ids.NewArray(), rec.Column(1)}, 1)
	wantDup(t, tx.Add(rec2), "kt_k_key")
	tx.Abort()

	// Two statements of one block (one owner): the second sees the
	// first's key, and may take it once it deleted the first's row.
	s1, s2 := m.Statement(), m.Statement()
	s1.SetOwner(42)
	s2.SetOwner(42)
	w1, _ := s1.Table(ctx, "public", "kt", "")
	if err := w1.Add(keyRows(t, w1.(*Txn), 2)); err != nil {
		t.Fatal(err)
	}
	w2, _ := s2.Table(ctx, "public", "kt", "")
	wantDup(t, w2.Add(keyRows(t, w2.(*Txn), 2)), "kt_pkey")
	c, err := w2.(*Txn).Conflicts(keyRows(t, w2.(*Txn), 2, 3), nil)
	if err != nil || c[0].Row < 0 || c[0].Own || c[1].Row != -1 {
		t.Fatalf("conflicts: %+v %v", c, err)
	}
	if _, err := w2.Delete([]int64{c[0].Row}); err != nil {
		t.Fatal(err)
	}
	if err := w2.Add(keyRows(t, w2.(*Txn), 2)); err != nil {
		t.Fatal(err)
	}
	if err := m.CommitAll([]*Txn{w1.(*Txn), w2.(*Txn)}); err != nil {
		t.Fatal(err)
	}
	wantDup(t, insertKeys(t, m, 2), "kt_pkey")
	if err := insertKeys(t, m, 3); err != nil {
		t.Fatal(err)
	}
}

// Two sessions insert one key at once: the second waits for the first
// and fails if it commits, succeeds if it aborts.
func TestKeyIndexConcurrentInserts(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprint("commit=", commit), func(t *testing.T) {
			e := newEnv(t)
			keyedTable(t, e, "3")
			ctx := context.Background()
			m := e.open(t)
			defer m.Close()
			a, _ := m.Begin(ctx, "public", "kt")
			if err := a.Add(keyRows(t, a, 9)); err != nil {
				t.Fatal(err)
			}
			b, _ := m.Begin(ctx, "public", "kt")
			done := make(chan error, 1)
			go func() { done <- b.Add(keyRows(t, b, 9)) }()
			if commit {
				if err := a.Commit(); err != nil {
					t.Fatal(err)
				}
				wantDup(t, <-done, "kt_pkey")
				b.Abort()
			} else {
				a.Abort()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				if err := b.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			wantDup(t, insertKeys(t, m, 9), "kt_pkey")
		})
	}
}

// Two blocks each waiting for the other's key: one is told of the
// deadlock instead of both waiting forever.
func TestKeyIndexDeadlock(t *testing.T) {
	e := newEnv(t)
	keyedTable(t, e, "2")
	ctx := context.Background()
	m := e.open(t)
	defer m.Close()
	a, _ := m.Begin(ctx, "public", "kt")
	b, _ := m.Begin(ctx, "public", "kt")
	if err := a.Add(keyRows(t, a, 1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(keyRows(t, b, 2)); err != nil {
		t.Fatal(err)
	}
	type res struct {
		tx  *Txn
		err error
	}
	done := make(chan res, 2)
	go func() { done <- res{a, a.Add(keyRows(t, a, 2))} }()
	go func() { done <- res{b, b.Add(keyRows(t, b, 1))} }()
	// Whichever waits second closes the cycle and is refused; its abort
	// lets the other go on.
	first := <-done
	if pgerr.Code(first.err) != pgerr.DeadlockDetected {
		t.Fatalf("first to return: %v, want a deadlock", first.err)
	}
	first.tx.Abort()
	if second := <-done; second.err != nil {
		t.Fatal(second.err)
	}
}

// A keyed table at format version 3 keeps Iceberg's row lineage through
// the link's appends and row deltas: each snapshot records its first row
// id and the rows it added, and the table's next row id is their sum;
// iceberg-go's own scan reads the rows Loam does.
func TestKeyedV3RowLineage(t *testing.T) {
	e := newEnv(t)
	keyedTable(t, e, "3")
	ctx := context.Background()
	m := e.open(t)
	defer m.Close()
	if err := insertKeys(t, m, 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	if err := m.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	// Replace row 2, as an upsert does: delete it by row id, add it anew.
	tx, _ := m.Begin(ctx, "public", "kt")
	if _, err := tx.Delete([]int64{rowIDOf(t, m, e, 2)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Add(keyRows(t, tx, 2, 4)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := m.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	tbl, err := e.store.Load(ctx, "public", "kt")
	if err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata()
	if md.Version() != 3 {
		t.Fatalf("format version %d", md.Version())
	}
	var next int64
	for _, s := range md.Snapshots() {
		if s.FirstRowID == nil || s.AddedRows == nil {
			t.Fatalf("snapshot %d lacks row lineage", s.SnapshotID)
		}
		if *s.FirstRowID != next {
			t.Fatalf("snapshot %d: first row id %d, want %d", s.SnapshotID, *s.FirstRowID, next)
		}
		next += *s.AddedRows
	}
	if next != 5 || md.NextRowID() != next {
		t.Fatalf("next row id %d, rows added %d; want 5", md.NextRowID(), next)
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	got := map[int64]bool{}
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	for tr.Next() {
		ids := tr.RecordBatch().Column(0).(*array.Int64)
		for i := range ids.Len() {
			if got[ids.Value(i)] {
				t.Fatalf("id %d twice", ids.Value(i))
			}
			got[ids.Value(i)] = true
		}
	}
	if len(got) != 4 {
		t.Fatalf("iceberg-go reads %v, want ids 1-4", got)
	}
	wantDup(t, insertKeys(t, m, 2), "kt_pkey")
}

// Inserts race the background link, which moves their rows into data
// files while the index is in use: every new key is admitted once and
// every repeated one refused, whichever side of a link commit it meets.
func TestKeyIndexRacesTheLink(t *testing.T) {
	e := newEnv(t)
	keyedTable(t, e, "3")
	m, err := Open(context.Background(), e.store, Options{Dir: e.dir + "/wal", LinkInterval: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), SegmentSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	m.Run()
	defer m.Close()
	const n = 150
	for i := int64(1); i <= n; i++ {
		if err := insertKeys(t, m, i); err != nil {
			t.Fatalf("new key %d: %v", i, err)
		}
		wantDup(t, insertKeys(t, m, i/2+1), "kt_pkey")
	}
	if tbl, err := e.store.Load(context.Background(), "public", "kt"); err == nil {
		t.Logf("%d link commits during the inserts; index built %d times", len(tbl.Metadata().Snapshots()), builds(t, m))
	}
	if err := m.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, ice := seenKT(t, e)
	if len(ice) != n {
		t.Fatalf("%d rows in Iceberg, want %d", len(ice), n)
	}
}

// seenKT is the ids of kt in Iceberg, read with iceberg-go's scan.
func seenKT(t *testing.T, e *env) (int, map[int64]bool) {
	t.Helper()
	ctx := context.Background()
	tbl, err := e.store.Load(ctx, "public", "kt")
	if err != nil {
		t.Fatal(err)
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	got := map[int64]bool{}
	rows := 0
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	for tr.Next() {
		ids := tr.RecordBatch().Column(0).(*array.Int64)
		for i := range ids.Len() {
			rows++
			got[ids.Value(i)] = true
		}
	}
	if rows != len(got) {
		t.Fatalf("%d rows, %d distinct ids", rows, len(got))
	}
	return rows, got
}
