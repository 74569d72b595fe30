package maint

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/icetable"
)

// formatVersions are the table formats row deletes are tested on: v2
// keeps them as position delete files, v3 as deletion vectors.
var formatVersions = []string{"2", "3"}

func newVersionEnv(t *testing.T, version string) *env {
	return newEnv(t, iceberg.Properties{"format-version": version})
}

// deleteWhere deletes the rows whose id match, as DELETE does: under the
// row lock, by the row ids a positional read of the files and the tail
// yields. It commits the delete to the write log (not to Iceberg).
func (e *env) deleteWhere(t testing.TB, match func(id int64) bool) int64 {
	t.Helper()
	n, err := e.deleteWhereErr(match)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *env) deleteWhereErr(match func(id int64) bool) (int64, error) {
	ctx := context.Background()
	unlock, err := e.m.LockRows(ctx, "public", "t")
	if err != nil {
		return 0, err
	}
	defer unlock()
	v, err := e.m.View(ctx, "public", "t")
	if err != nil {
		return 0, err
	}
	defer v.Release()
	tx, err := e.m.Begin(ctx, "public", "t")
	if err != nil {
		return 0, err
	}
	defer tx.Abort()
	r := v.Read(tx)
	var ids []int64
	collect := func(rec arrow.RecordBatch) {
		idc := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		rid := rec.Column(int(rec.NumCols()) - 1).(*array.Int64)
		for i := 0; i < idc.Len(); i++ {
			if match(idc.Value(i)) {
				ids = append(ids, rid.Value(i))
			}
		}
	}
	if v.Table.CurrentSnapshot() != nil {
		_, recs, _, err := e.store.Scan(ctx, v.Table, iceberg.AlwaysTrue{}, nil, nil, []string{"id"},
			&icetable.Positions{Deleted: r.FileDeletes, RowIDs: r.FileRowIDs})
		if err != nil {
			return 0, err
		}
		for rec, err := range recs {
			if err != nil {
				return 0, err
			}
			collect(rec)
			rec.Release()
		}
	}
	for rec, err := range r.Rows(true) {
		if err != nil {
			return 0, err
		}
		collect(rec)
		rec.Release()
	}
	n, err := tx.Delete(ids)
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// deleteFiles counts the delete files applying to the table's live files.
func (e *env) deleteFiles(t testing.TB) int {
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
	n := 0
	for _, task := range tasks {
		n += len(deletePaths(task))
	}
	return n
}

func ids(from, to int64) []row {
	var rows []row
	for i := from; i < to; i++ {
		rows = append(rows, row{id: i, ts: at(0), x: i})
	}
	return rows
}

func idRange(from, to int64, skip ...int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		if !slices.Contains(skip, i) {
			out = append(out, i)
		}
	}
	return out
}

// A file with enough rows deleted is rewritten whatever its size, with
// the deletes applied and its delete file (v2) or vector (v3) dropped;
// one with few is left to VACUUM, which rewrites every file with deletes.
func TestCompactRewritesFilesWithDeletes(t *testing.T) {
	for _, fv := range formatVersions {
		t.Run("v"+fv, func(t *testing.T) {
			ctx := context.Background()
			e := newVersionEnv(t, fv)
			e.insert(t, ids(0, 10)) // one file: too few for a size compaction
			if n := e.deleteWhere(t, func(id int64) bool { return id == 3 }); n != 1 {
				t.Fatalf("deleted %d rows, want 1", n)
			}
			if err := e.m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			if e.deleteFiles(t) != 1 {
				t.Fatalf("%d delete files after the link commit, want 1", e.deleteFiles(t))
			}
			// 10% deleted: background compaction leaves the file.
			rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{})
			if err != nil || rep.FilesRemoved != 0 {
				t.Fatalf("compaction of a file with 10%% deleted: %+v %v", rep, err)
			}
			e.deleteWhere(t, func(id int64) bool { return id >= 7 })
			if err := e.m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			rep, err = Compact(ctx, e.m, "public", "t", now, CompactOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// v2: a position delete file per link commit; v3: one vector.
			wantDels := map[string]int{"2": 2, "3": 1}[fv]
			if rep.FilesRemoved != 1 || rep.FilesAdded != 1 || rep.DeleteFiles != wantDels {
				t.Errorf("report %+v, want the file rewritten and its delete file dropped", rep)
			}
			got, files := e.readBack(t)
			if want := idRange(0, 7, 3); !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
			for f, rows := range files {
				if len(rows) != 6 {
					t.Errorf("%s holds %d rows, want the 6 live ones", f, len(rows))
				}
			}
			if n := e.deleteFiles(t); n != 0 {
				t.Errorf("%d delete files still apply", n)
			}
			// A few more deletes: VACUUM's compaction takes them too.
			e.deleteWhere(t, func(id int64) bool { return id == 0 })
			if err := e.m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			rep, err = Compact(ctx, e.m, "public", "t", now, CompactOptions{AllDeletes: true})
			if err != nil || rep.FilesRemoved != 1 {
				t.Fatalf("VACUUM compaction: %+v %v", rep, err)
			}
			got, _ = e.readBack(t)
			if want := idRange(1, 7, 3); !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
			if n := e.deleteFiles(t); n != 0 {
				t.Errorf("%d delete files still apply", n)
			}
		})
	}
}

// A file whose rows a transaction in the write log deletes is left alone:
// the link's commit of those deletes names it, and must find it.
func TestCompactSkipsFilesWithDeletesInTheLog(t *testing.T) {
	for _, fv := range formatVersions {
		t.Run("v"+fv, func(t *testing.T) {
			ctx := context.Background()
			e := newVersionEnv(t, fv)
			for i := int64(0); i < 6; i++ {
				e.insert(t, ids(10*i, 10*i+2))
			}
			e.deleteWhere(t, func(id int64) bool { return id == 31 }) // in the log only
			rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.FilesRemoved != 5 {
				t.Errorf("report %+v, want the 5 files without deletes in the log rewritten", rep)
			}
			if err := e.m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			got, _ := e.readBack(t)
			if want := []int64{0, 1, 10, 11, 20, 21, 30, 40, 41, 50, 51}; !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
		})
	}
}

// A link commit deleting rows of a file being rewritten lands between the
// rewrite's read and its commit: the rewrite must not commit rows the
// delete removed, nor drop the delete; it reports a conflict and the next
// run takes the file with its new deletes. A delete in a file the rewrite
// does not touch is kept beside it.
func TestCompactConflictsWithRowDelta(t *testing.T) {
	for _, fv := range formatVersions {
		t.Run("v"+fv, func(t *testing.T) {
			ctx := context.Background()
			e := newVersionEnv(t, fv)
			for i := int64(0); i < 6; i++ {
				e.insert(t, ids(10*i, 10*i+2))
			}
			e.insert(t, []row{{id: 99, ts: at(72 * 3600e9)}}) // another partition, alone
			beforeCommit = func() {
				beforeCommit = nil
				e.deleteWhere(t, func(id int64) bool { return id == 99 })
				if err := e.m.Checkpoint(ctx); err != nil {
					t.Error(err)
				}
			}
			defer func() { beforeCommit = nil }()
			rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{})
			if err != nil || rep.Conflict || rep.FilesRemoved != 6 {
				t.Fatalf("a delete in another file: %+v %v; want the rewrite committed", rep, err)
			}
			for i := int64(0); i < 6; i++ {
				e.insert(t, ids(100+10*i, 100+10*i+2))
			}
			beforeCommit = func() {
				beforeCommit = nil
				e.deleteWhere(t, func(id int64) bool { return id == 120 || id == 0 })
				if err := e.m.Checkpoint(ctx); err != nil {
					t.Error(err)
				}
			}
			rep, err = Compact(ctx, e.m, "public", "t", now, CompactOptions{MinInputFiles: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Conflict {
				t.Errorf("report %+v, want a conflict", rep)
			}
			want := []int64{1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51, 100, 101, 110, 111, 121, 130, 131, 140, 141, 150, 151}
			got, _ := e.readBack(t)
			if !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
			rep, err = Compact(ctx, e.m, "public", "t", now, CompactOptions{MinInputFiles: 2, AllDeletes: true})
			if err != nil || rep.Conflict || rep.FilesRemoved == 0 {
				t.Fatalf("retry: %+v %v", rep, err)
			}
			got, files := e.readBack(t)
			if !slices.Equal(got, want) {
				t.Errorf("rows after the retry %v, want %v", got, want)
			}
			// The file with deletes and the partition's small files are
			// rewritten together.
			if len(files) != 1 {
				t.Errorf("%d files, want 1", len(files))
			}
			if n := e.deleteFiles(t); n != 0 {
				t.Errorf("%d delete files still apply", n)
			}
		})
	}
}

// Equality deletes, as another engine writes them (iceberg-go's
// WriteEqualityDeletes): compaction applies them, and drops them once no
// file older than them is left in their partition.
func TestCompactAppliesEqualityDeletes(t *testing.T) {
	ctx := context.Background()
	e := newVersionEnv(t, "2")
	for i := int64(0); i < 3; i++ {
		e.insert(t, ids(10*i, 10*i+3))
	}
	e.equalityDelete(t, 1, 20, 21)
	if e.deleteFiles(t) == 0 {
		t.Fatal("no equality delete applies")
	}
	want := []int64{0, 2, 10, 11, 12, 22}
	if got, _ := e.readBack(t); !slices.Equal(got, want) {
		t.Fatalf("rows before compaction %v, want %v", got, want)
	}
	rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved != 3 || rep.DeleteFiles != 1 {
		t.Errorf("report %+v, want the 3 files rewritten and the equality delete file dropped", rep)
	}
	got, files := e.readBack(t)
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if len(files) != 1 {
		t.Errorf("%d files, want 1", len(files))
	}
	if n := e.deleteFiles(t); n != 0 {
		t.Errorf("%d delete files still apply", n)
	}
}

// Deletes, inserts and link commits run beside compaction passes (VACUUM's
// and the background's) on the same rows: every delete and every insert
// survives, whatever lands between a rewrite's read and its commit.
func TestCompactBesideDeletes(t *testing.T) {
	for _, fv := range formatVersions {
		t.Run("v"+fv, func(t *testing.T) {
			ctx := context.Background()
			e := newVersionEnv(t, fv)
			live := map[int64]bool{}
			var next int64
			for range 8 {
				e.insert(t, ids(next, next+10))
				for i := next; i < next+10; i++ {
					live[i] = true
				}
				next += 10
			}
			var mu sync.Mutex
			done := make(chan error, 1)
			go func() {
				rng := rand.New(rand.NewSource(1))
				for round := 0; round < 8; round++ {
					mu.Lock()
					var victims []int64
					for id := range live {
						if rng.Intn(6) == 0 {
							victims = append(victims, id)
						}
					}
					mu.Unlock()
					gone := map[int64]bool{}
					for _, id := range victims {
						gone[id] = true
					}
					if _, err := e.deleteWhereErr(func(id int64) bool { return gone[id] }); err != nil {
						done <- err
						return
					}
					mu.Lock()
					for id := range gone {
						delete(live, id)
					}
					mu.Unlock()
					if rng.Intn(3) == 0 {
						rows := ids(next, next+3)
						if err := e.insertErr(rows); err != nil { // links too
							done <- err
							return
						}
						mu.Lock()
						for _, r := range rows {
							live[r.id] = true
						}
						mu.Unlock()
						next += 3
					} else if err := e.m.Checkpoint(ctx); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			conflicts := 0
			for running := true; running; {
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
					running = false
				default:
				}
				rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{MinInputFiles: 2, AllDeletes: true})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Conflict {
					conflicts++
				}
			}
			if err := e.m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{MinInputFiles: 2, AllDeletes: true}); err != nil {
				t.Fatal(err)
			}
			var want []int64
			for id := range live {
				want = append(want, id)
			}
			slices.Sort(want)
			got, _ := e.readBack(t)
			if !slices.Equal(got, want) {
				t.Errorf("rows %v,\nwant %v", got, want)
			}
			if n := e.deleteFiles(t); n != 0 {
				t.Errorf("%d delete files apply after a last compaction", n)
			}
			t.Logf("%d rewrites conflicted", conflicts)
		})
	}
}

// A file of an older partition spec with deletes is rewritten by VACUUM
// (erasure), into the current spec; background compaction leaves it.
func TestVacuumRewritesOlderSpecFilesWithDeletes(t *testing.T) {
	for _, fv := range formatVersions {
		t.Run("v"+fv, func(t *testing.T) {
			ctx := context.Background()
			e := newVersionEnv(t, fv)
			e.insert(t, ids(0, 10))
			e.deleteWhere(t, func(id int64) bool { return id%2 == 0 })
			if err := e.m.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			err := e.m.Maintain(ctx, "public", "t", func(ctx context.Context, cur *table.Table, _ iceberg.Properties) (*table.Table, error) {
				tx := cur.NewTransaction()
				if err := tx.UpdateSpec(true).AddField("id", iceberg.BucketTransform{NumBuckets: 2}, "id_bucket").Commit(); err != nil {
					return nil, err
				}
				return tx.Commit(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{})
			if err != nil || rep.FilesRemoved != 0 {
				t.Fatalf("background compaction of an older spec's file: %+v %v", rep, err)
			}
			rep, err = Compact(ctx, e.m, "public", "t", now, CompactOptions{MinInputFiles: 2, AllDeletes: true})
			if err != nil || rep.FilesRemoved != 1 {
				t.Fatalf("VACUUM compaction: %+v %v", rep, err)
			}
			got, files := e.readBack(t)
			if want := []int64{1, 3, 5, 7, 9}; !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
			if n := e.deleteFiles(t); n != 0 {
				t.Errorf("%d delete files still apply", n)
			}
			tbl, err := e.store.Load(ctx, "public", "t")
			if err != nil {
				t.Fatal(err)
			}
			tasks, err := tbl.Scan().PlanFiles(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range tasks {
				if spec := tbl.Spec(); int(task.File.SpecID()) != spec.ID() {
					t.Errorf("%s is of spec %d, not the current %d", task.File.FilePath(), task.File.SpecID(), spec.ID())
				}
			}
			t.Logf("%d files", len(files))
		})
	}
}

// equalityDelete commits an equality delete file on id, as another engine
// writes one (iceberg-go's CommitEqualityDeletes), of the rows with ids.
func (e *env) equalityDelete(t *testing.T, ids ...int64) {
	t.Helper()
	ctx := context.Background()
	err := e.m.Maintain(ctx, "public", "t", func(ctx context.Context, cur *table.Table, props iceberg.Properties) (*table.Table, error) {
		sc, err := table.SchemaToArrowSchema(cur.Schema(), nil, true, false)
		if err != nil {
			return nil, err
		}
		keys := arrow.NewSchema([]arrow.Field{sc.Field(0), sc.Field(1)}, nil)
		ib := array.NewInt64Builder(memory.DefaultAllocator)
		tb := array.NewTimestampBuilder(memory.DefaultAllocator, sc.Field(1).Type.(*arrow.TimestampType))
		for _, id := range ids {
			ib.Append(id)
			tb.Append(arrow.Timestamp(now.UnixMicro()))
		}
		rec := array.NewRecordBatch(keys, []arrow.Array{ib.NewArray(), tb.NewArray()}, int64(len(ids)))
		txn := cur.NewTransaction()
		one := func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
		if err := txn.CommitEqualityDeletes(ctx, []int{1}, one, props); err != nil {
			return nil, fmt.Errorf("equality deletes: %w", err)
		}
		return txn.Commit(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A read by position (an UPDATE's or DELETE's, with row ids) applies
// equality deletes as iceberg-go's reader does, and a delete by row id of
// such a file's rows commits: the rows equal iceberg-go's read after.
func TestPositionalReadAppliesEqualityDeletes(t *testing.T) {
	ctx := context.Background()
	e := newVersionEnv(t, "2")
	for i := int64(0); i < 3; i++ {
		e.insert(t, ids(10*i, 10*i+3))
	}
	e.equalityDelete(t, 1, 20, 21)
	want, _ := e.readBack(t)
	if len(want) != 6 {
		t.Fatalf("iceberg-go reads %v; want 6 rows left", want)
	}
	// Row ids are good while the row lock is held, from before the read.
	unlock, err := e.m.LockRows(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.m.View(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	r := v.Read()
	_, seq, _, err := e.store.Scan(ctx, v.Table, nil, nil, nil, []string{"x"},
		&icetable.Positions{Deleted: r.FileDeletes, RowIDs: r.FileRowIDs})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	var drop []int64 // the row ids of ids 0 and 22
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		idc := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		rid := rec.Column(rec.Schema().FieldIndices(icetable.RowIDColumn)[0]).(*array.Int64)
		for i := 0; i < idc.Len(); i++ {
			got = append(got, idc.Value(i))
			if idc.Value(i) == 0 || idc.Value(i) == 22 {
				drop = append(drop, rid.Value(i))
			}
		}
		rec.Release()
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		v.Release()
		t.Fatalf("positional read %v, iceberg-go %v", got, want)
	}
	tx, err := e.m.Begin(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tx.Delete(drop); err != nil || n != 2 {
		t.Fatalf("Delete: %d, %v; want 2", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	v.Release()
	unlock()
	if err := e.m.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := e.readBack(t)
	if want := []int64{2, 10, 11, 12}; !slices.Equal(after, want) {
		t.Fatalf("after deleting ids 0 and 22: iceberg-go reads %v, want %v", after, want)
	}
}
