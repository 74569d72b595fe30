package link

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/wal"
)

// keyIndex is a keyed table's key index: for each PRIMARY KEY and UNIQUE
// constraint, a map from each live row's encoded key (keyenc.go) to its
// row id (rowid.go), so that an insert finds whether its key exists
// without reading the table. It is kept in memory only:
//
//   - built at a table's first keyed write after start (or after its
//     snapshot changed under the server: compaction, another server's
//     commit), from the snapshot's data files, reading only the key
//     columns with their positions, and from the log tail;
//   - updated by each commit (CommitAll: the transaction's keys become
//     live, the rows it deleted leave) and by each link commit (linkOnce:
//     the rows moved out of the log are read back, key columns only,
//     from the data files the new snapshot added, and their ids become
//     file positions);
//   - and, beside the live keys, holding the keys of open transactions
//     (pend) and the rows they delete (pdel), which are theirs alone: a
//     second session's insert of a key an open transaction holds waits
//     for that transaction to end, as PostgreSQL's does.
//
// mu orders before tableState.mu. A commit holds it from before its
// entry joins the tail until the index reflects it, and linkOnce from
// before it sets the table's new snapshot, so a rebuild (which holds it
// throughout) never sees one without the other.
type keyIndex struct {
	mu    sync.Mutex
	valid bool
	snap  int64 // the snapshot the live keys reflect
	cons  []KeyConstraint
	live  []map[string]loc     // per constraint: key → the live row
	byRow map[loc][]string     // a live row's keys, per constraint ("" for none)
	pend  []map[string]pendKey // per constraint: keys open transactions added
	pdel  map[loc]*Txn         // live rows open transactions deleted

	builds int // how many times it was built, for tests
}

// loc is where a row is: its source (a data file or a log chunk) and its
// position there. The index keeps rows by loc, not by row id, since row
// ids are renumbered whenever a statement takes the row lock (rowid.go).
type loc struct {
	src source
	row uint32
}

// rowID is the row id of the row at l, for a statement holding the row
// lock.
func (st *tableState) rowID(l loc) int64 { return st.srcs.id(l.src) + int64(l.row) }

// locOf is where the row id (of a statement holding the row lock) is.
func (st *tableState) locOf(id int64) (loc, error) {
	src, row, err := st.srcs.of(id)
	return loc{src, row}, err
}

type pendKey struct {
	t   *Txn
	row loc
}

// txnKeys is what one transaction did to a keyed table's index, undone
// or made live when it ends.
type txnKeys struct {
	adds  []keyAdd
	dels  []loc
	ended bool
	done  chan struct{}
}

type keyAdd struct {
	con  int
	key  string
	row  loc
	prev pendKey // the entry it replaced: its own block's, whose row it deleted
}

func newKeyIndex(tbl *table.Table, name string) *keyIndex {
	cons := Constraints(tbl, name)
	if len(cons) == 0 {
		return nil
	}
	ix := &keyIndex{cons: cons, pdel: map[loc]*Txn{}}
	ix.pend = make([]map[string]pendKey, len(cons))
	for i := range ix.pend {
		ix.pend[i] = map[string]pendKey{}
	}
	return ix
}

func snapshotID(tbl *table.Table) int64 {
	if s := tbl.CurrentSnapshot(); s != nil {
		return s.SnapshotID
	}
	return -1
}

// keyColumns are constraint c's columns in rec, found by name in the
// schema of tbl.
func keyColumns(tbl *table.Table, c KeyConstraint, rec arrow.RecordBatch) ([]arrow.Array, []string, error) {
	sc := tbl.Schema()
	cols := make([]arrow.Array, len(c.Fields))
	names := make([]string, len(c.Fields))
	for i, id := range c.Fields {
		f, ok := sc.FindFieldByID(id)
		if !ok {
			return nil, nil, fmt.Errorf("link: key %s names field %d, which the schema lacks", c.Name, id)
		}
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) == 0 {
			return nil, nil, fmt.Errorf("link: key %s: rows lack column %q", c.Name, f.Name)
		}
		cols[i], names[i] = rec.Column(idx[0]), f.Name
	}
	return cols, names, nil
}

// keys are rows' encoded keys per constraint ("" for a row with a NULL
// in the key).
func (ix *keyIndex) keys(tbl *table.Table, rec arrow.RecordBatch) ([][]string, error) {
	out := make([][]string, len(ix.cons))
	var buf []byte
	for c, con := range ix.cons {
		ks := make([]string, rec.NumRows())
		out[c] = ks
		cols, _, err := keyColumns(tbl, con, rec)
		if err != nil {
			// A column of the key was dropped, and the key with it, as
			// PostgreSQL drops an index with its column: nothing is
			// indexed under it (Constraints no longer lists it).
			continue
		}
		for i := range ks {
			b, ok := appendKey(buf[:0], cols, i, con.NullsNotDistinct)
			if ok {
				ks[i] = string(b)
			}
			buf = b
		}
	}
	return out, nil
}

// ensure makes the live keys reflect the table's current snapshot and
// tail, rebuilding them when they do not; ix.mu is held.
func (m *Manager) ensureKeys(ctx context.Context, st *tableState, ix *keyIndex) error {
	st.mu.Lock()
	cur := snapshotID(st.tbl)
	st.mu.Unlock()
	if ix.valid && ix.snap == cur {
		return nil
	}
	return m.rebuildKeys(ctx, st, ix)
}

// rebuildKeys reads every live row's key: the key columns of the
// snapshot's data files, with positions, and the tail.
func (m *Manager) rebuildKeys(ctx context.Context, st *tableState, ix *keyIndex) error {
	name := st.name()
	v, err := m.View(ctx, name.NS, name.Name)
	if err != nil {
		return err
	}
	defer v.Release()
	r := v.Read()
	tbl := v.Table
	ix.valid = false
	ix.live = make([]map[string]loc, len(ix.cons))
	for i := range ix.live {
		ix.live[i] = map[string]loc{}
	}
	ix.byRow = map[loc][]string{}
	// Row ids of the index's own numbering, turned into locs as read.
	var ids sources
	toLoc := func(id int64) (loc, error) {
		src, row, err := ids.of(id)
		return loc{src, row}, err
	}
	seen := map[string]bool{}
	var fields []string
	for _, c := range ix.cons {
		for _, id := range c.Fields {
			if f, ok := tbl.Schema().FindFieldByID(id); ok && !seen[f.Name] {
				seen[f.Name] = true
				fields = append(fields, f.Name)
			}
		}
	}
	if snapshotID(tbl) >= 0 {
		_, rows, _, err := m.store.Scan(ctx, tbl, iceberg.AlwaysTrue{}, nil, nil, fields,
			&icetable.Positions{Deleted: r.FileDeletes, RowIDs: func(p string) int64 { return ids.id(source{path: p}) }})
		if err != nil {
			return fmt.Errorf("build key index of %s: %w", name, err)
		}
		if err := ix.addRows(tbl, rows, toLoc); err != nil {
			return fmt.Errorf("build key index of %s: %w", name, err)
		}
	}
	if err := ix.addRows(tbl, r.rowsWith(func(p wal.Pos) int64 { return ids.id(source{chunk: p}) }), toLoc); err != nil {
		return fmt.Errorf("build key index of %s: %w", name, err)
	}
	ix.valid, ix.snap = true, snapshotID(tbl)
	ix.builds++
	return nil
}

// addRows makes rows (with RowIDColumn) live.
func (ix *keyIndex) addRows(tbl *table.Table, rows func(func(arrow.RecordBatch, error) bool), toLoc func(int64) (loc, error)) error {
	var rerr error
	rows(func(rec arrow.RecordBatch, err error) bool {
		if err != nil {
			rerr = err
			return false
		}
		defer rec.Release()
		ids, err := rowIDsOf(rec)
		if err != nil {
			rerr = err
			return false
		}
		ks, err := ix.keys(tbl, rec)
		if err != nil {
			rerr = err
			return false
		}
		for i := range int(rec.NumRows()) {
			id, err := toLoc(ids.Value(i))
			if err != nil {
				rerr = err
				return false
			}
			var row []string
			for c := range ix.cons {
				if k := ks[c][i]; k != "" {
					if row == nil {
						row = make([]string, len(ix.cons))
					}
					row[c] = k
					ix.live[c][k] = id
				}
			}
			if row != nil {
				ix.byRow[id] = row
			}
		}
		return true
	})
	return rerr
}

// removeRow makes a row no longer live.
func (ix *keyIndex) removeRow(id loc) {
	row, ok := ix.byRow[id]
	if !ok {
		return
	}
	delete(ix.byRow, id)
	for c, k := range row {
		if k != "" && ix.live[c][k] == id {
			delete(ix.live[c], k)
		}
	}
}

// conflict is what a key meets in the index.
type conflict struct {
	con  int
	row  loc  // the row holding the key, visible to the transaction
	own  bool // the row is one the transaction itself added
	wait *Txn // another open transaction holds the key: wait for it
}

// find looks key k of constraint c up for transaction t. ok is false
// when no row visible to t holds it (deleted by t's block counts as not
// holding it).
func (ix *keyIndex) find(t *Txn, c int, k string) (conflict, bool) {
	if p, ok := ix.pend[c][k]; ok {
		if p.t.owner != t.owner {
			return conflict{con: c, wait: p.t}, true
		}
		if d := ix.pdel[p.row]; d == nil || d.owner != t.owner {
			return conflict{con: c, row: p.row, own: p.t == t}, true
		}
	}
	if id, ok := ix.live[c][k]; ok {
		d := ix.pdel[id]
		switch {
		case d == nil:
			return conflict{con: c, row: id}, true
		case d.owner != t.owner:
			// Deleted by an open transaction: held until it ends.
			return conflict{con: c, wait: d}, true
		}
	}
	return conflict{}, false
}

// KeyViolation is the cause of a 23505 error: row Row of the rows
// written holds the key of constraint Constraint, in columns Columns (of
// the table, in table order: Fields are their indexes), that a live row
// holds. The layer above, which knows the SQL types, words the detail.
type KeyViolation struct {
	Constraint string
	Columns    []string
	Fields     []int
	Row        int
}

func (e *KeyViolation) Error() string {
	return fmt.Sprintf("duplicate key value violates unique constraint %q", e.Constraint)
}

func (ix *keyIndex) violation(tbl *table.Table, c int, rec arrow.RecordBatch, row int) error {
	con := ix.cons[c]
	cols, names, _ := keyColumns(tbl, con, rec)
	kv := &KeyViolation{Constraint: con.Name, Columns: names, Row: row}
	vals := make([]string, len(cols))
	for i, col := range cols {
		vals[i] = col.ValueStr(row)
		kv.Fields = append(kv.Fields, rec.Schema().FieldIndices(names[i])[0])
	}
	e := pgerr.New(pgerr.UniqueViolation, "%s", kv.Error())
	e.Detail = fmt.Sprintf("Key (%s)=(%s) already exists.", strings.Join(names, ", "), strings.Join(vals, ", "))
	return e.Caused(kv)
}

// movedKeys are the keys of rows a link commit moved into data files,
// with their new row ids.
type movedKeys struct {
	ks  [][]string
	ids []loc
}

// readMoved reads the keys of the rows the link commit that made nt moved
// out of the log: the key columns of the data files nt added, with their
// positions.
func (m *Manager) readMoved(ctx context.Context, st *tableState, ix *keyIndex, nt *table.Table) ([]movedKeys, error) {
	var fields []string
	seen := map[string]bool{}
	for _, c := range ix.cons {
		for _, id := range c.Fields {
			if f, ok := nt.Schema().FindFieldByID(id); ok && !seen[f.Name] {
				seen[f.Name] = true
				fields = append(fields, f.Name)
			}
		}
	}
	var ids sources // the index's own numbering (rebuildKeys)
	rows, err := m.store.ScanAdded(ctx, nt, fields, &icetable.Positions{RowIDs: func(p string) int64 { return ids.id(source{path: p}) }})
	if err != nil {
		return nil, err
	}
	var out []movedKeys
	var rerr error
	rows(func(rec arrow.RecordBatch, err error) bool {
		if err != nil {
			rerr = err
			return false
		}
		defer rec.Release()
		ks, err := ix.keys(nt, rec)
		if err != nil {
			rerr = err
			return false
		}
		col, err := rowIDsOf(rec)
		if err != nil {
			rerr = err
			return false
		}
		mk := movedKeys{ks: ks, ids: make([]loc, rec.NumRows())}
		for i := range mk.ids {
			src, row, err := ids.of(col.Value(i))
			if err != nil {
				rerr = err
				return false
			}
			mk.ids[i] = loc{src, row}
		}
		out = append(out, mk)
		return true
	})
	return out, rerr
}

// linked moves the keys of the rows a link commit took out of the log
// (the chunks refs) to their places in the data files of the snapshot
// now, which moved lists; from is the snapshot the commit started from.
// An index that did not reflect from, or a failed read, is rebuilt at its
// next use. ix.mu is held.
func (ix *keyIndex) linked(st *tableState, from, now int64, refs []chunkRef, moved []movedKeys, err error) {
	if !ix.valid || ix.snap != from || err != nil {
		ix.valid = false
		return
	}
	for _, c := range refs {
		for r := range c.rows {
			ix.removeRow(loc{source{chunk: c.pos}, uint32(r)})
		}
	}
	for _, mk := range moved {
		for i, id := range mk.ids {
			var row []string
			for c := range ix.cons {
				if k := mk.ks[c][i]; k != "" {
					if row == nil {
						row = make([]string, len(ix.cons))
					}
					row[c] = k
					ix.live[c][k] = id
				}
			}
			if row != nil {
				ix.byRow[id] = row
			}
		}
	}
	ix.snap = now
}
