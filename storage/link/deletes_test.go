package link

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/icetable"
)

// A layout is one kind of table the delete tests run on: Iceberg format
// version 2 (position delete files) or 3 (deletion vectors), partitioned
// by k or not, sorted by id (descending, so a file's positions are not
// the rows' write order) or not.
type layout struct {
	version     int
	partitioned bool
	sorted      bool
}

func (l layout) String() string {
	s := fmt.Sprintf("v%d", l.version)
	if l.partitioned {
		s += "/partitioned"
	}
	if l.sorted {
		s += "/sorted"
	}
	return s
}

func layouts() []layout {
	var out []layout
	for _, v := range []int{2, 3} {
		for _, p := range []bool{false, true} {
			for _, s := range []bool{false, true} {
				out = append(out, layout{v, p, s})
			}
		}
	}
	return out
}

func (l layout) env(t *testing.T) *env {
	t.Helper()
	props := iceberg.Properties{"format-version": fmt.Sprint(l.version)}
	var spec *iceberg.PartitionSpec
	if l.partitioned {
		s := iceberg.NewPartitionSpec(iceberg.PartitionField{
			SourceIDs: []int{2}, FieldID: 1000, Name: "k", Transform: iceberg.IdentityTransform{}})
		spec = &s
	}
	order := table.UnsortedSortOrder
	if l.sorted {
		var err error
		order, err = table.NewSortOrder(1, []table.SortField{{SourceIDs: []int{1}, Transform: iceberg.IdentityTransform{},
			Direction: table.SortDESC, NullOrder: table.NullsLast}})
		if err != nil {
			t.Fatal(err)
		}
	}
	e := newTableEnv(t, props, spec, order)
	// As the server has it: the column cache must never hold a file's
	// rows with some deleted.
	e.store.SetScanCache(64 << 20)
	return e
}

// harness runs statements against one table as the engine does and keeps
// the rows the table must hold (id → k; id is a key).
type harness struct {
	t    *testing.T
	l    layout
	e    *env
	m    *Manager
	want map[int64]string
}

func newHarness(t *testing.T, l layout) *harness {
	e := l.env(t)
	h := &harness{t: t, l: l, e: e, m: e.open(t), want: map[int64]string{}}
	t.Cleanup(func() { h.m.Close() })
	return h
}

// restart closes the Manager, as a server stopping (or killed: the log is
// on disk up to every acknowledged commit), and opens it again.
func (h *harness) restart() {
	h.t.Helper()
	if err := h.m.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.m = h.e.open(h.t)
}

type row struct {
	id    int64
	k     string
	rowID int64
}

// read reads the table as a statement of the transaction whose earlier
// statements wrote own reads it: the pinned snapshot's files through
// Store.Scan, by position when rows of them are deleted beyond it or row
// ids are asked for, then the tail's rows and own's.
func (h *harness) read(ids bool, own ...*Txn) []row {
	h.t.Helper()
	ctx := context.Background()
	v, err := h.m.View(ctx, "public", "t")
	if err != nil {
		h.t.Fatal(err)
	}
	defer v.Release()
	r := v.Read(own...)
	var out []row
	collect := func(rec arrow.RecordBatch, err error) {
		h.t.Helper()
		if err != nil {
			h.t.Fatal(err)
		}
		defer rec.Release()
		idc := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		kc := rec.Column(rec.Schema().FieldIndices("k")[0]).(*array.String)
		var rc *array.Int64
		if ids {
			idx := rec.Schema().FieldIndices(RowIDColumn)
			if len(idx) == 0 {
				h.t.Fatalf("a read with row ids yielded a batch without %s: %s", RowIDColumn, rec.Schema())
			}
			rc = rec.Column(idx[0]).(*array.Int64)
		}
		for i := 0; i < idc.Len(); i++ {
			r := row{id: idc.Value(i), k: kc.Value(i), rowID: -1}
			if rc != nil {
				r.rowID = rc.Value(i)
			}
			out = append(out, r)
		}
	}
	if v.Table.CurrentSnapshot() != nil {
		// As exec's scan asks for positions.
		var pos *icetable.Positions
		if r.HasFileDeletes() {
			pos = &icetable.Positions{Deleted: r.FileDeletes}
		}
		if ids {
			if pos == nil {
				pos = &icetable.Positions{}
			}
			pos.RowIDs = r.FileRowIDs
		}
		_, seq, _, err := h.e.store.Scan(ctx, v.Table, iceberg.AlwaysTrue{}, nil, nil, []string{"id", "k"}, pos)
		if err != nil {
			h.t.Fatal(err)
		}
		for rec, err := range seq {
			collect(rec, err)
		}
	}
	for rec, err := range r.Rows(ids) {
		collect(rec, err)
	}
	return out
}

// checkRows checks that a read with row ids and one without both yield
// exactly want, and that row ids are distinct.
func (h *harness) checkRows(when string, want map[int64]string, own ...*Txn) {
	h.t.Helper()
	for _, ids := range []bool{true, false} {
		got := h.read(ids, own...)
		seen := map[int64]bool{}
		rowIDs := map[int64]bool{}
		for _, r := range got {
			if seen[r.id] {
				h.t.Fatalf("%s (row ids %v): id %d read twice", when, ids, r.id)
			}
			seen[r.id] = true
			if w, ok := want[r.id]; !ok || w != r.k {
				h.t.Fatalf("%s (row ids %v): read (%d, %q), want %s", when, ids, r.id, r.k, describe(want, r.id))
			}
			if ids {
				if rowIDs[r.rowID] {
					h.t.Fatalf("%s: row id %d yielded twice", when, r.rowID)
				}
				rowIDs[r.rowID] = true
			}
		}
		if len(seen) != len(want) {
			for id := range want {
				if !seen[id] {
					h.t.Fatalf("%s (row ids %v): %d rows read, want %d; (%d, %q) missing", when, ids, len(seen), len(want), id, want[id])
				}
			}
		}
	}
}

func describe(want map[int64]string, id int64) string {
	if k, ok := want[id]; ok {
		return fmt.Sprintf("(%d, %q)", id, k)
	}
	return "no such row"
}

func (h *harness) check(when string) {
	h.t.Helper()
	h.checkRows(when, h.want)
}

// checkIceberg reads the committed table with iceberg-go alone (its
// catalog, its scan, which applies the delete files): with the tail
// committed it must hold exactly the rows Loam reads. It also checks the
// delete files are what the format version asks for: position delete
// files on v2, at most one deletion vector a data file on v3.
func (h *harness) checkIceberg(when string) {
	h.t.Helper()
	ctx := context.Background()
	tbl, err := h.e.meta.Catalog().LoadTable(ctx, table.Identifier{"public", "t"})
	if err != nil {
		h.t.Fatal(err)
	}
	got := map[int64]string{}
	if tbl.CurrentSnapshot() != nil {
		at, err := tbl.Scan().ToArrowTable(ctx)
		if err != nil {
			h.t.Fatalf("%s: iceberg-go scan: %v", when, err)
		}
		tr := array.NewTableReader(at, 1024)
		for tr.Next() {
			rec := tr.RecordBatch()
			idc := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
			kc := rec.Column(rec.Schema().FieldIndices("k")[0]).(*array.String)
			for i := 0; i < idc.Len(); i++ {
				if _, dup := got[idc.Value(i)]; dup {
					h.t.Fatalf("%s: iceberg-go reads id %d twice", when, idc.Value(i))
				}
				got[idc.Value(i)] = kc.Value(i)
			}
		}
		tr.Release()
		at.Release()
		tasks, err := tbl.Scan().PlanFiles(ctx)
		if err != nil {
			h.t.Fatal(err)
		}
		nDel := 0
		for _, task := range tasks {
			dvs := 0
			for _, d := range allDeletes(task) {
				switch {
				case table.IsDeletionVector(d):
					dvs++
					if h.l.version < 3 {
						h.t.Fatalf("%s: a deletion vector on a v%d table", when, h.l.version)
					}
				case d.ContentType() == iceberg.EntryContentPosDeletes:
					if h.l.version >= 3 {
						h.t.Fatalf("%s: a position delete file on a v3 table", when)
					}
				default:
					h.t.Fatalf("%s: unexpected delete file %s (%s)", when, d.FilePath(), d.ContentType())
				}
			}
			if dvs > 1 {
				h.t.Fatalf("%s: data file %s has %d deletion vectors", when, task.File.FilePath(), dvs)
			}
			nDel += len(allDeletes(task))
		}
		h.checkNoDeadDeletes(when, tbl, tasks)
		// A count(*) answers from the files' row counts when the scan's
		// planning finds no delete files.
		st, err := h.e.store.PlanScan(ctx, tbl, iceberg.AlwaysTrue{})
		if err != nil {
			h.t.Fatal(err)
		}
		if st.DeleteFiles != nDel {
			h.t.Fatalf("%s: the scan's planning counts %d delete files, iceberg-go plans %d", when, st.DeleteFiles, nDel)
		}
	}
	if !maps.Equal(got, h.want) {
		h.t.Fatalf("%s: iceberg-go reads %d rows, Loam's rows are %d: %v\nwant %v", when, len(got), len(h.want), got, h.want)
	}
}

// checkpoint commits the whole tail into Iceberg and checks both reads.
func (h *harness) checkpoint(when string) {
	h.t.Helper()
	if err := h.m.Checkpoint(context.Background()); err != nil {
		h.t.Fatalf("%s: checkpoint: %v", when, err)
	}
	h.check(when + ", after checkpoint")
	h.checkIceberg(when + ", after checkpoint")
}

// An edit is one statement: it deletes the rows del picks (nil: none)
// and adds add's rows. An UPDATE or upsert is both.
type edit struct {
	del func(id int64, k string) bool
	add map[int64]string
}

func upsert(add map[int64]string) edit {
	return edit{del: func(id int64, _ string) bool { _, ok := add[id]; return ok }, add: add}
}

func deleteWhere(pick func(id int64, k string) bool) edit { return edit{del: pick} }

func insert(add map[int64]string) edit { return edit{add: add} }

// exec runs a transaction of the statements, as the engine does: it takes
// the table's row lock first and holds it until the transaction ends;
// each statement reads the table with row ids, seeing the transaction's
// earlier statements, and deletes and adds through its own Txn. commit
// false rolls the transaction back. It returns the rows each deleted.
func (h *harness) exec(commit bool, stmts ...edit) []int64 {
	h.t.Helper()
	unlock, err := h.m.LockRows(context.Background(), "public", "t")
	if err != nil {
		h.t.Fatal(err)
	}
	defer unlock()
	return h.execLocked(commit, stmts...)
}

// execLocked is exec with the row lock held by the caller.
func (h *harness) execLocked(commit bool, stmts ...edit) []int64 {
	h.t.Helper()
	want := maps.Clone(h.want)
	var own []*Txn
	var counts []int64
	for _, s := range stmts {
		tx, n := h.stmt(own, s, want)
		own = append(own, tx)
		counts = append(counts, n)
		h.checkRows("within the transaction", want, own...)
	}
	h.checkRows("beside the transaction", h.want)
	if !commit {
		for _, tx := range own {
			tx.Abort()
		}
		return counts
	}
	if err := h.m.CommitAll(own); err != nil {
		h.t.Fatal(err)
	}
	h.want = want
	return counts
}

func (h *harness) stmt(own []*Txn, s edit, want map[int64]string) (*Txn, int64) {
	h.t.Helper()
	tx, err := h.m.Begin(context.Background(), "public", "t")
	if err != nil {
		h.t.Fatal(err)
	}
	var ids []int64
	if s.del != nil {
		for _, r := range h.read(true, own...) {
			if s.del(r.id, r.k) {
				ids = append(ids, r.rowID)
				delete(want, r.id)
			}
		}
	}
	n, err := tx.Delete(ids)
	if err != nil {
		h.t.Fatal(err)
	}
	if n != int64(len(ids)) {
		h.t.Fatalf("Delete of %d rows reports %d", len(ids), n)
	}
	// A row named again is not deleted again.
	if n, err := tx.Delete(ids); err != nil || n != 0 {
		h.t.Fatalf("deleting the same rows again: %d, %v; want 0", n, err)
	}
	if len(s.add) > 0 {
		rec := kvRows(h.t, tx, s.add)
		err := tx.Add(rec)
		rec.Release()
		if err != nil {
			h.t.Fatal(err)
		}
		for id, k := range s.add {
			if _, dup := want[id]; dup {
				h.t.Fatalf("test bug: adds id %d, which the table holds", id)
			}
			want[id] = k
		}
	}
	return tx, n
}

// kvRows makes a batch of add's rows, by id, in the table's schema.
func kvRows(t *testing.T, tx *Txn, add map[int64]string) arrow.RecordBatch {
	t.Helper()
	sc, err := table.SchemaToArrowSchema(tx.Table().Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for _, id := range slices.Sorted(maps.Keys(add)) {
		ib.Append(id)
		sb.Append(add[id])
	}
	ia, sa := ib.NewArray(), sb.NewArray()
	defer ia.Release()
	defer sa.Release()
	return array.NewRecordBatch(sc, []arrow.Array{ia, sa}, int64(len(add)))
}

// letters gives ids [from, to) a k of a, b or c by id, so a partitioned
// table has three partitions.
func letters(from, to int64) map[int64]string {
	out := map[int64]string{}
	for i := from; i < to; i++ {
		out[i] = string(rune('a' + i%3))
	}
	return out
}

// pairedLayouts are four layouts that cover each pair of the three
// choices (version × partitioned, version × sorted, partitioned ×
// sorted): the tests run on these, all eight cost twice the time.
func pairedLayouts() []layout {
	return []layout{{2, false, false}, {2, true, true}, {3, false, true}, {3, true, false}}
}

func forLayouts(t *testing.T, fn func(t *testing.T, h *harness)) {
	ls := pairedLayouts()
	switch {
	case os.Getenv("LOAM_DELETES_ALL_LAYOUTS") != "":
		ls = layouts()
	case raceOn:
		ls = []layout{{2, true, true}, {3, false, false}}
	}
	for _, l := range ls {
		t.Run(l.String(), func(t *testing.T) { fn(t, newHarness(t, l)) })
	}
}

func (h *harness) deleteFiles() int {
	h.t.Helper()
	tbl, err := h.e.meta.Catalog().LoadTable(context.Background(), table.Identifier{"public", "t"})
	if err != nil {
		h.t.Fatal(err)
	}
	if tbl.CurrentSnapshot() == nil {
		return 0
	}
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		n += len(allDeletes(task))
	}
	return n
}

func (h *harness) dataFiles() int {
	h.t.Helper()
	tbl, err := h.e.meta.Catalog().LoadTable(context.Background(), table.Identifier{"public", "t"})
	if err != nil {
		h.t.Fatal(err)
	}
	if tbl.CurrentSnapshot() == nil {
		return 0
	}
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return len(tasks)
}

// Rows deleted while still in the tail never reach Iceberg: the link
// commits the rows that are left, and no delete file.
func TestDeletesInTail(t *testing.T) {
	forLayouts(t, func(t *testing.T, h *harness) {
		h.exec(true, insert(letters(0, 30)))
		h.exec(true, insert(letters(30, 60)))
		if n := h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%2 == 0 })); n[0] != 30 {
			t.Fatalf("deleted %d rows, want 30", n[0])
		}
		h.check("after the delete")
		h.checkpoint("tail deletes")
		if n := h.deleteFiles(); n != 0 {
			t.Fatalf("%d delete files for rows deleted before the link", n)
		}
	})
}

// Rows deleted from Iceberg's files: v2 writes position delete files, v3
// deletion vectors, a second delete of a file merging its vector; a file
// all of whose rows are deleted is dropped.
func TestDeletesInFiles(t *testing.T) {
	forLayouts(t, func(t *testing.T, h *harness) {
		h.exec(true, insert(letters(0, 60)))
		h.checkpoint("insert")
		files := h.dataFiles()
		h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%4 == 0 }))
		h.check("first delete")
		h.checkpoint("first delete")
		if h.deleteFiles() == 0 {
			t.Fatal("no delete files after deleting rows of files")
		}
		h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%5 == 0 }))
		h.checkpoint("second delete of the same files")
		// Rows of files and of the tail in one statement, and the same
		// interval.
		h.exec(true, insert(letters(60, 90)))
		h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%7 == 0 }))
		h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%11 == 0 }))
		h.check("file and tail deletes")
		h.checkpoint("file and tail deletes")
		// A whole partition: on a partitioned table its files are
		// dropped.
		before := h.dataFiles()
		h.exec(true, deleteWhere(func(_ int64, k string) bool { return k == "b" }))
		h.checkpoint("delete of partition b")
		if h.l.partitioned && h.dataFiles() >= before {
			t.Fatalf("%d data files after deleting every row of some, %d before", h.dataFiles(), before)
		}
		h.exec(true, deleteWhere(func(int64, string) bool { return true }))
		h.checkpoint("delete of every row")
		if n := h.dataFiles(); n != 0 {
			t.Fatalf("%d data files left after deleting every row (%d at first)", n, files)
		}
	})
}

// An upsert (delete the key's row, add the new one) of the same keys many
// times within one link interval, and across several.
func TestUpserts(t *testing.T) {
	forLayouts(t, func(t *testing.T, h *harness) {
		h.exec(true, insert(letters(0, 10)))
		for r := range 20 {
			h.exec(true, upsert(map[int64]string{int64(r % 10): fmt.Sprint("abc"[r%3 : r%3+1]), int64((r + 3) % 10): "abc"[(r+1)%3 : (r+1)%3+1]}))
		}
		h.check("upserts in one interval")
		h.checkpoint("upserts in one interval")
		for r := range 8 {
			h.exec(true, upsert(map[int64]string{3: "abc"[r%3 : r%3+1]}), upsert(map[int64]string{3: "abc"[(r+1)%3 : (r+1)%3+1], 4: "c"}))
			h.checkpoint(fmt.Sprintf("upsert across intervals, round %d", r))
		}
		h.restart()
		h.check("after restart")
		h.checkpoint("after restart")
	})
}

// A transaction reads its own deletes before it commits; others do not;
// a rollback leaves nothing, also after a restart.
func TestReadYourDeletesAndRollback(t *testing.T) {
	forLayouts(t, func(t *testing.T, h *harness) {
		h.exec(true, insert(letters(0, 20)))
		h.checkpoint("insert")
		h.exec(true, insert(letters(20, 30)))
		// exec checks the transaction's and another reader's rows after
		// each statement.
		h.exec(false,
			deleteWhere(func(id int64, _ string) bool { return id%3 == 0 }),
			upsert(map[int64]string{1: "z", 25: "z"}),
			insert(map[int64]string{100: "a"}),
			upsert(map[int64]string{100: "b", 1: "y"}))
		h.check("after rollback")
		h.restart()
		h.check("after rollback and restart")
		h.checkpoint("after rollback")
		if n := h.deleteFiles(); n != 0 {
			t.Fatalf("%d delete files after a rolled back delete", n)
		}
	})
}

// Acknowledged deletes survive a restart before and after the link
// commits them, and none is applied twice: an upserted key is read once.
func TestDeletesSurviveRestart(t *testing.T) {
	forLayouts(t, func(t *testing.T, h *harness) {
		h.exec(true, insert(letters(0, 40)))
		h.checkpoint("insert")
		h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%4 == 1 }))
		h.exec(true, upsert(map[int64]string{2: "c", 3: "a", 6: "b"}))
		h.exec(true, insert(letters(40, 50)), upsert(map[int64]string{41: "x", 2: "a"}))
		h.restart()
		h.check("restart before the link")
		h.restart()
		h.check("second restart before the link")
		h.checkpoint("restart before the link")
		h.restart()
		h.check("restart after the link")
		h.checkpoint("restart after the link")
		// A restart with a tail removes the files an interrupted commit
		// left; the snapshot's delete files and deletion vectors are not
		// among them.
		h.exec(true, insert(map[int64]string{150: "a"}))
		h.restart()
		h.check("restart with a tail, after deletes were linked")
		h.checkpoint("restart with a tail, after deletes were linked")

		// The link committed but the log was not trimmed (a crash
		// between the two): the restart must not replay the deletes and
		// rows the snapshot holds.
		h.exec(true, upsert(map[int64]string{2: "b", 41: "y"}), deleteWhere(func(id int64, _ string) bool { return id == 6 || id == 44 }))
		st, err := h.m.state(context.Background(), Key{"public", "t"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.m.linkOnce(context.Background(), st); err != nil {
			t.Fatal(err)
		}
		h.restart()
		h.check("restart after a link, before the trim")
		h.checkpoint("restart after a link, before the trim")

		// Rows inserted and deleted within one interval: nothing reaches
		// Iceberg, and a restart replays them to nothing again.
		h.exec(true, insert(map[int64]string{200: "a", 201: "b"}))
		h.exec(true, deleteWhere(func(id int64, _ string) bool { return id >= 200 }))
		h.checkpoint("insert and delete in one interval")
		h.restart()
		h.check("insert and delete in one interval, restart")
		h.exec(true, insert(map[int64]string{300: "c"}))
		h.checkpoint("insert after the no-op link")
		h.restart()
		h.check("restart after the no-op link")
		h.checkpoint("restart after the no-op link")
	})
}

// allDeletes is the delete files of a task: iceberg-go plans position
// deletes, equality deletes and deletion vectors into three lists.
func allDeletes(task table.FileScanTask) []iceberg.DataFile {
	return slices.Concat(task.DeleteFiles, task.EqualityDeleteFiles, task.DeletionVectorFiles)
}

// A link commit that starts while a statement holds the table's row lock
// waits for its transaction to end: the row ids the statement read stay
// valid, and its deletes are committed, none lost.
func TestDeleteRacesLink(t *testing.T) {
	for _, l := range []layout{{2, false, false}, {3, true, true}} {
		t.Run(l.String(), func(t *testing.T) {
			h := newHarness(t, l)
			ctx := context.Background()
			h.exec(true, insert(letters(0, 50)))
			h.checkpoint("insert")
			h.exec(true, insert(letters(50, 80)))
			st, err := h.m.state(ctx, Key{"public", "t"})
			if err != nil {
				t.Fatal(err)
			}
			unlock, err := h.m.LockRows(ctx, "public", "t")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- h.m.Checkpoint(ctx) }()
			// Once the link holds its lock it is past the point of no
			// return: it commits next, as soon as it has the row lock.
			for st.linkMu.TryLock() {
				st.linkMu.Unlock()
				runtime.Gosched()
			}
			h.execLocked(true, upsert(map[int64]string{3: "z", 60: "z"}),
				deleteWhere(func(id int64, _ string) bool { return id%6 == 1 }))
			select {
			case err := <-done:
				t.Fatalf("the link committed while a statement held the row lock (%v)", err)
			default:
			}
			st.mu.Lock()
			pos := st.pos
			st.mu.Unlock()
			unlock()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			st.mu.Lock()
			moved := st.pos != pos
			st.mu.Unlock()
			if !moved {
				t.Fatal("the link did not commit the tail")
			}
			h.check("after the link")
			h.checkIceberg("after the link")

			// Links and upserts concurrently: every statement's deletes
			// land, before or after each commit.
			stop := make(chan struct{})
			linked := make(chan error, 1)
			go func() {
				for {
					select {
					case <-stop:
						linked <- nil
						return
					default:
					}
					if _, err := h.m.linkOnce(ctx, st); err != nil {
						linked <- err
						return
					}
					runtime.Gosched()
				}
			}()
			for r := range 15 {
				h.exec(true, upsert(map[int64]string{int64(r % 7): "abc"[r%3 : r%3+1], int64(50 + r%5): "x"}))
			}
			close(stop)
			if err := <-linked; err != nil {
				t.Fatal(err)
			}
			h.check("after racing links")
			h.checkpoint("after racing links")
			h.restart()
			h.check("after racing links and a restart")
		})
	}
}

// Random sequences of inserts, deletes, upserts, transaction blocks,
// rollbacks, link commits (some of a part of the tail: MaxRowsPerCommit
// is small) and restarts, checked against the model after each step.
// LOAM_DELETES_SEED picks another sequence.
func TestDeletesRandom(t *testing.T) {
	old := MaxRowsPerCommit
	MaxRowsPerCommit = 40
	defer func() { MaxRowsPerCommit = old }()
	seed := uint64(1)
	if s := os.Getenv("LOAM_DELETES_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	ls, steps := pairedLayouts(), 40
	if raceOn {
		ls, steps = ls[1:3], 15
	}
	for _, l := range ls {
		t.Run(l.String(), func(t *testing.T) {
			h := newHarness(t, l)
			rng := rand.New(rand.NewPCG(seed, uint64(l.version)))
			next := int64(0)
			some := func(p float64) func(int64, string) bool {
				return func(int64, string) bool { return rng.Float64() < p }
			}
			fresh := func(n int) map[int64]string {
				out := map[int64]string{}
				for range n {
					out[next] = string(rune('a' + rng.IntN(4)))
					next++
				}
				return out
			}
			upserts := func(n int) edit {
				add := map[int64]string{}
				ids := slices.Collect(maps.Keys(h.want))
				slices.Sort(ids)
				for range min(n, len(ids)) {
					add[ids[rng.IntN(len(ids))]] = string(rune('a' + rng.IntN(4)))
				}
				return upsert(add)
			}
			st := func() *tableState {
				st, err := h.m.state(context.Background(), Key{"public", "t"})
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			for step := range steps {
				when := fmt.Sprintf("step %d", step)
				switch op := rng.IntN(10); op {
				case 0, 1:
					h.exec(true, insert(fresh(1+rng.IntN(30))))
				case 2:
					h.exec(true, deleteWhere(some(0.2)))
				case 3, 4:
					h.exec(true, upserts(1+rng.IntN(3)))
				case 5:
					// A block: rows inserted, upserted and deleted again.
					h.exec(true, insert(fresh(5)), upserts(3), deleteWhere(some(0.1)), upserts(2))
				case 6:
					h.exec(false, upserts(2), deleteWhere(some(0.3)))
				case 7:
					if _, err := h.m.linkOnce(context.Background(), st()); err != nil {
						t.Fatalf("%s: link: %v", when, err)
					}
				case 8:
					h.checkpoint(when)
				case 9:
					h.restart()
				}
				h.check(when)
			}
			h.checkpoint("end")
			h.restart()
			h.check("end, restart")
		})
	}
}

// What row ids name is forgotten when a statement takes the row lock:
// the list of sources does not grow with every chunk a long-running
// server ever read with row ids.
func TestRowIDSourcesBounded(t *testing.T) {
	h := newHarness(t, layout{2, false, false})
	h.exec(true, insert(letters(0, 10)))
	h.checkpoint("insert")
	for r := range 40 {
		h.exec(true, upsert(map[int64]string{int64(r % 10): "b"}))
		if r%10 == 9 {
			h.checkpoint(fmt.Sprint("round ", r))
		}
	}
	st, err := h.m.state(context.Background(), Key{"public", "t"})
	if err != nil {
		t.Fatal(err)
	}
	st.srcs.mu.Lock()
	n := len(st.srcs.list)
	st.srcs.mu.Unlock()
	// The last statement read the files and at most ten tail chunks.
	if n > 20 {
		t.Fatalf("%d row id sources after 40 statements", n)
	}
}

// Files of many row groups, read in several batches: a row's position
// counts across them, so row ids and deletes beyond the snapshot name the
// right rows.
func TestDeletesManyRowGroups(t *testing.T) {
	for _, l := range []layout{{2, false, true}, {3, true, false}} {
		t.Run(l.String(), func(t *testing.T) {
			h := newHarness(t, l)
			ctx := context.Background()
			if err := h.m.Alter(ctx, "public", "t", icetable.SetProperty("write.parquet.row-group-limit", "100")); err != nil {
				t.Fatal(err)
			}
			h.exec(true, insert(letters(0, 3000)))
			h.checkpoint("insert")
			h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%7 == 0 }))
			h.check("delete in the tail")
			h.checkpoint("first delete")
			h.exec(true, deleteWhere(func(id int64, _ string) bool { return id%11 == 0 || id > 2950 }),
				upsert(map[int64]string{1: "z", 2000: "z"}))
			h.checkpoint("second delete")
		})
	}
}

// checkNoDeadDeletes checks that every live delete file of the table's
// snapshot that names its data file names one the snapshot holds: a
// dropped file's delete files go with it.
func (h *harness) checkNoDeadDeletes(when string, tbl *table.Table, tasks []table.FileScanTask) {
	h.t.Helper()
	ctx := context.Background()
	live := map[string]bool{}
	for _, task := range tasks {
		live[task.File.FilePath()] = true
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	mans, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, m := range mans {
		if m.ManifestContent() != iceberg.ManifestContentDeletes {
			continue
		}
		entries, err := m.FetchEntries(fs, true)
		if err != nil {
			h.t.Fatal(err)
		}
		for _, e := range entries {
			// A v2 manifest keeps no referenced_data_file: a position
			// delete file names one data file by its file_path bounds.
			d := e.DataFile()
			ref := ""
			if r := d.ReferencedDataFile(); r != nil {
				ref = *r
			} else if lo, hi := d.LowerBoundValues()[2147483546], d.UpperBoundValues()[2147483546]; len(lo) > 0 && string(lo) == string(hi) {
				ref = string(lo)
			}
			if ref == "" {
				h.t.Fatalf("%s: delete file %s names no data file", when, d.FilePath())
			}
			if !live[ref] {
				h.t.Fatalf("%s: delete file %s names data file %s, which the snapshot does not hold", when, d.FilePath(), ref)
			}
		}
	}
}
