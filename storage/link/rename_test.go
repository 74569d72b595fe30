package link

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// renameHarness drives one Manager through writes and renames; reopen
// closes it without a link commit, as a crash leaves the log.
type renameHarness struct {
	t *testing.T
	e *env
	m *Manager
}

func (h *renameHarness) begin(name string) *Txn {
	h.t.Helper()
	tx, err := h.m.Begin(context.Background(), "public", name)
	if err != nil {
		h.t.Fatal(err)
	}
	return tx
}

func (h *renameHarness) add(tx *Txn, from, to int64) {
	h.t.Helper()
	if err := tx.Add(rows(h.t, tx, from, to)); err != nil {
		h.t.Fatal(err)
	}
}

func (h *renameHarness) commit(txs ...*Txn) {
	h.t.Helper()
	if err := h.m.CommitAll(txs); err != nil {
		h.t.Fatal(err)
	}
}

func (h *renameHarness) rename(from, to string) {
	h.t.Helper()
	ctx := context.Background()
	err := h.m.Rename(ctx, Key{"public", from}, Key{"public", to}, func() error { return h.e.store.Rename(ctx, "public", from, to) })
	if err != nil {
		h.t.Fatal(err)
	}
}

func (h *renameHarness) create(name string) {
	h.t.Helper()
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "k", Type: iceberg.PrimitiveTypes.String})
	if _, err := h.e.store.Create(context.Background(), "public", name, sc, nil, table.UnsortedSortOrder, nil); err != nil {
		h.t.Fatal(err)
	}
}

func (h *renameHarness) drop(name string) {
	h.t.Helper()
	ctx := context.Background()
	if err := h.m.Drop(ctx, Key{"public", name}, func() error { return h.e.store.Drop(ctx, "public", name) }); err != nil {
		h.t.Fatal(err)
	}
}

// reopen closes the Manager with its tails only in the log and opens it
// again, which replays them.
func (h *renameHarness) reopen() {
	h.t.Helper()
	h.m.Close()
	h.m = h.e.open(h.t)
}

// seenIn is seen for any table: the ids a query reads and those an
// outside reader (iceberg-go's scan) finds in Iceberg.
func seenIn(t *testing.T, m *Manager, e *env, name string) (all, ice map[int64]int) {
	t.Helper()
	ctx := context.Background()
	v, err := m.View(ctx, "public", name)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	all, ice = map[int64]int{}, map[int64]int{}
	count := func(dst map[int64]int, rec arrow.RecordBatch) {
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			dst[ids.Value(i)]++
		}
	}
	tbl, err := e.store.Load(ctx, "public", name)
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
			count(ice, tr.RecordBatch())
			count(all, tr.RecordBatch())
		}
		tr.Release()
		at.Release()
	}
	for rec, err := range v.Tail {
		if err != nil {
			t.Fatal(err)
		}
		count(all, rec)
		rec.Release()
	}
	return all, ice
}

type idRange struct{ from, to int64 }

// Transactions open across ALTER TABLE … RENAME TO commit after it; a
// crash before the link commits them must not lose their rows: replay
// finds the table by UUID whatever name the chunks carry.
func TestRenameReplay(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(h *renameHarness)
		want map[string]idRange // table → the ids it holds after the restart
	}{
		{
			name: "written before, committed after",
			run: func(h *renameHarness) {
				tx := h.begin("t")
				h.add(tx, 0, 10)
				h.rename("t", "u")
				h.commit(tx)
			},
			want: map[string]idRange{"u": {0, 10}},
		},
		{
			name: "written on both sides of the rename",
			run: func(h *renameHarness) {
				tx := h.begin("t")
				h.add(tx, 0, 5)
				h.rename("t", "u")
				h.add(tx, 5, 10)
				h.commit(tx)
			},
			want: map[string]idRange{"u": {0, 10}},
		},
		{
			name: "block with statements before and after",
			run: func(h *renameHarness) {
				a := h.begin("t")
				h.add(a, 0, 5)
				h.rename("t", "u")
				b := h.begin("u")
				h.add(b, 5, 10)
				h.commit(a, b)
			},
			want: map[string]idRange{"u": {0, 10}},
		},
		{
			name: "chained renames",
			run: func(h *renameHarness) {
				tx := h.begin("t")
				h.add(tx, 0, 5)
				h.rename("t", "u")
				h.add(tx, 5, 10)
				h.rename("u", "v")
				h.add(tx, 10, 15)
				h.commit(tx)
			},
			want: map[string]idRange{"v": {0, 15}},
		},
		{
			name: "swap of two names",
			run: func(h *renameHarness) {
				h.create("s")
				a, b := h.begin("t"), h.begin("s")
				h.add(a, 0, 10)
				h.add(b, 100, 110)
				h.rename("t", "tmp")
				h.rename("s", "t")
				h.rename("tmp", "s")
				h.add(a, 10, 20)
				h.commit(a)
				h.commit(b)
			},
			want: map[string]idRange{"s": {0, 20}, "t": {100, 110}},
		},
		{
			name: "renamed and renamed back",
			run: func(h *renameHarness) {
				tx := h.begin("t")
				h.add(tx, 0, 10)
				h.rename("t", "u")
				h.rename("u", "t")
				h.commit(tx)
			},
			want: map[string]idRange{"t": {0, 10}},
		},
		{
			name: "failed rename",
			run: func(h *renameHarness) {
				tx := h.begin("t")
				h.add(tx, 0, 5)
				failed := errors.New("catalog down")
				err := h.m.Rename(context.Background(), Key{"public", "t"}, Key{"public", "u"}, func() error { return failed })
				if !errors.Is(err, failed) {
					h.t.Fatalf("Rename: %v, want %v", err, failed)
				}
				h.add(tx, 5, 10)
				h.commit(tx)
			},
			want: map[string]idRange{"t": {0, 10}},
		},
		{
			name: "old name taken by a new table",
			run: func(h *renameHarness) {
				tx := h.begin("t")
				h.add(tx, 0, 10)
				h.rename("t", "u")
				h.create("t")
				h.commit(tx)
			},
			want: map[string]idRange{"u": {0, 10}, "t": {0, 0}},
		},
		{
			name: "renamed, dropped, and the old name created again",
			run: func(h *renameHarness) {
				tx := h.begin("t")
				h.add(tx, 0, 10)
				h.rename("t", "u")
				h.commit(tx)
				h.drop("u")
				h.create("t")
				h.create("u")
			},
			want: map[string]idRange{"t": {0, 0}, "u": {0, 0}},
		},
		{
			name: "open across the rename while the log is trimmed",
			run: func(h *renameHarness) {
				h.create("s")
				a := h.begin("t")
				h.add(a, 0, 10)
				h.rename("t", "u")
				renamed := h.m.log.End().Segment() // the rename record's segment or a later one
				// Other writes fill segments and are committed into
				// Iceberg; the trim must keep a's chunks and the rename.
				for i := int64(0); i < 20; i++ {
					b := h.begin("s")
					h.add(b, 1000+50*i, 1000+50*(i+1))
					h.commit(b)
					if err := h.m.Checkpoint(context.Background()); err != nil {
						h.t.Fatal(err)
					}
				}
				h.commit(a)
				h.reopen()
				// Now the rename record may go: nothing before it is
				// needed once u's tail is in Iceberg.
				if err := h.m.Checkpoint(context.Background()); err != nil {
					h.t.Fatal(err)
				}
				c := h.begin("u")
				h.add(c, 10, 20)
				for i := int64(20); i < 40; i++ {
					b := h.begin("s")
					h.add(b, 1000+50*i, 1000+50*(i+1))
					h.commit(b)
					if err := h.m.Checkpoint(context.Background()); err != nil {
						h.t.Fatal(err)
					}
				}
				h.commit(c)
				if segs, _ := walSegments(h.e.dir + "/wal"); len(segs) == 0 || segs[0] <= renamed {
					h.t.Fatalf("log segments %v: the rename record in segment %d was not trimmed", segs, renamed)
				}
			},
			want: map[string]idRange{"u": {0, 20}, "s": {1000, 3000}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			h := &renameHarness{t: t, e: e, m: e.open(t)}
			defer func() { h.m.Close() }()
			tc.run(h)
			check := func(when string, iceToo bool) {
				t.Helper()
				for name, r := range tc.want {
					all, ice := seenIn(t, h.m, e, name)
					exactly(t, when+": "+name, all, r.from, r.to)
					if iceToo {
						exactly(t, when+" (iceberg-go): "+name, ice, r.from, r.to)
					}
				}
			}
			check("before the restart", false)
			h.reopen()
			check("after the restart", false)
			if err := h.m.Checkpoint(context.Background()); err != nil {
				t.Fatal(err)
			}
			check("after a checkpoint", true)
		})
	}
}

// Renames racing a transaction's writes: whichever name each chunk
// carries, a restart replays every row into the table once.
func TestRenameWhileWriting(t *testing.T) {
	e := newEnv(t)
	h := &renameHarness{t: t, e: e, m: e.open(t)}
	defer func() { h.m.Close() }()
	tx := h.begin("t")
	const n = 200
	done := make(chan error, 1)
	go func() {
		for i := int64(0); i < n; i++ {
			if err := tx.Add(rows(t, tx, i, i+1)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	names := []string{"t", "u", "v", "w"}
	for i := 0; i < 13; i++ {
		h.rename(names[i%len(names)], names[(i+1)%len(names)])
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	h.commit(tx)
	h.reopen()
	all, _ := seenIn(t, h.m, e, "u") // 13 renames: t→u→v→w→t…→u
	exactly(t, "after the restart", all, 0, n)
}
