package link

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/storage/icetable"
)

// KeyWriter is the RowWriter of a keyed table (a Txn is one), with what an
// upsert (INSERT … ON CONFLICT, a merge = 'last_non_null' table) needs
// beyond Add and Delete: which proposed rows meet a live row's key, and
// that row's values.
type KeyWriter interface {
	RowWriter
	// Constraints are the table's key constraints, primary key first.
	Constraints() []KeyConstraint
	// Conflicts finds, for each row of rec (Iceberg Arrow schema), the
	// live row holding one of its keys of the constraints arbiters names
	// (indexes into Constraints; nil for all). A key an open transaction
	// of another session holds waits for it to end.
	Conflicts(rec arrow.RecordBatch, arbiters []int) ([]Conflict, error)
	// Fetch reads the rows ids names, in that order, in the table's
	// Iceberg Arrow schema. The statement holds the table's row lock.
	Fetch(ctx context.Context, ids []int64) (arrow.RecordBatch, error)
}

// Conflict is what one proposed row meets: Row is the id of the live
// row holding its key, or -1 for none; Own says the statement's
// transaction wrote that row itself (PostgreSQL's "cannot affect row a
// second time").
type Conflict struct {
	Row int64
	Own bool
	// Earlier is the row of rec before this one that has its key and
	// meets no live row (so the statement would insert it), or -1.
	Earlier int
}

var _ KeyWriter = (*Txn)(nil)

// Constraints implements KeyWriter.
func (t *Txn) Constraints() []KeyConstraint {
	if t.st.keys == nil {
		return nil
	}
	return t.st.keys.cons
}

// Conflicts implements KeyWriter.
func (t *Txn) Conflicts(rec arrow.RecordBatch, arbiters []int) ([]Conflict, error) {
	out := make([]Conflict, rec.NumRows())
	for i := range out {
		out[i] = Conflict{Row: -1, Earlier: -1}
	}
	ix := t.st.keys
	if ix == nil {
		return out, nil
	}
	if arbiters == nil {
		for c := range ix.cons {
			arbiters = append(arbiters, c)
		}
	}
	for {
		ix.mu.Lock()
		if err := t.m.ensureKeys(t.ctx, t.st, ix); err != nil {
			ix.mu.Unlock()
			return nil, err
		}
		t.st.mu.Lock()
		tbl := t.st.tbl
		t.st.mu.Unlock()
		ks, err := ix.keys(tbl, rec)
		if err != nil {
			ix.mu.Unlock()
			return nil, err
		}
		var wait *Txn
		batch := make([]map[string]int, len(ix.cons))
	rows:
		for i := range out {
			out[i] = Conflict{Row: -1, Earlier: -1}
			for _, c := range arbiters {
				k := ks[c][i]
				if k == "" {
					continue
				}
				if f, ok := ix.find(t, c, k); ok {
					if f.wait != nil {
						wait = f.wait
						break rows
					}
					out[i] = Conflict{Row: t.st.rowID(f.row), Own: f.own, Earlier: -1}
					break
				}
			}
			if out[i].Row >= 0 {
				continue
			}
			for _, c := range arbiters {
				k := ks[c][i]
				if k == "" {
					continue
				}
				if j, ok := batch[c][k]; ok {
					out[i].Earlier = j
					break
				}
			}
			if out[i].Earlier >= 0 {
				continue
			}
			for _, c := range arbiters {
				if k := ks[c][i]; k != "" {
					if batch[c] == nil {
						batch[c] = map[string]int{}
					}
					batch[c][k] = i
				}
			}
		}
		ix.mu.Unlock()
		if wait == nil {
			return out, nil
		}
		if err := t.m.waitFor(t.ctx, t, wait); err != nil {
			return nil, err
		}
	}
}

// Fetch implements KeyWriter.
func (t *Txn) Fetch(ctx context.Context, ids []int64) (arrow.RecordBatch, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("link: fetch of no rows")
	}
	t.st.mu.Lock()
	tbl := t.st.tbl
	t.st.mu.Unlock()
	type at struct {
		src source
		row uint32
	}
	want := map[int64]int{} // id → its first index in ids
	bySrc := map[source][]int64{}
	var order []source
	for k, id := range ids {
		if _, ok := want[id]; ok {
			continue
		}
		want[id] = k
		src, _, err := t.st.srcs.of(id)
		if err != nil {
			return nil, err
		}
		if _, ok := bySrc[src]; !ok {
			order = append(order, src)
		}
		bySrc[src] = append(bySrc[src], id)
	}
	found := map[int64]arrow.RecordBatch{}
	defer func() {
		for _, r := range found {
			r.Release()
		}
	}()
	take := func(rec arrow.RecordBatch, idc int) {
		col := rec.Column(idc).(*array.Int64)
		for i := range col.Len() {
			if _, ok := want[col.Value(i)]; ok {
				if _, dup := found[col.Value(i)]; !dup {
					found[col.Value(i)] = rec.NewSlice(int64(i), int64(i+1))
				}
			}
		}
	}
	var fields []string
	for _, f := range tbl.Schema().Fields() {
		fields = append(fields, f.Name)
	}
	for _, src := range order {
		var rows func(func(arrow.RecordBatch, error) bool)
		if src.path == "" {
			// An open transaction's chunks (this one's, or its block's)
			// may still sit in the log's buffer.
			if err := t.m.log.Flush(src.chunk); err != nil {
				return nil, err
			}
			base := t.st.chunkRowIDs(src.chunk)
			rows = func(yield func(arrow.RecordBatch, error) bool) {
				conformed(tbl, func(yield func(arrow.RecordBatch, error) bool) {
					t.m.readChunks(slices.Values([]chunkRef{{pos: src.chunk}}), yield)
				})(func(rec arrow.RecordBatch, err error) bool {
					if err != nil {
						return yield(nil, err)
					}
					out, err := icetable.FilterPositions(rec, 0, nil, base)
					rec.Release()
					return yield(out, err)
				})
			}
		} else {
			var err error
			path := src.path
			base := t.st.srcs.id(source{path: path})
			only := make([]int64, 0, len(bySrc[src]))
			for _, id := range bySrc[src] {
				only = append(only, id-base)
			}
			slices.Sort(only)
			rows, err = t.m.store.ScanFile(ctx, tbl, path, fields,
				&icetable.Positions{RowIDs: func(string) int64 { return base }, Only: only})
			if err != nil {
				return nil, err
			}
		}
		var rerr error
		rows(func(rec arrow.RecordBatch, err error) bool {
			if err != nil {
				rerr = err
				return false
			}
			defer rec.Release()
			idc := rec.Schema().FieldIndices(RowIDColumn)
			if len(idc) == 0 {
				rerr = fmt.Errorf("link: fetch: rows lack %s", RowIDColumn)
				return false
			}
			take(rec, idc[0])
			return true
		})
		if rerr != nil {
			return nil, fmt.Errorf("link: fetch rows of %s: %w", t.st.name(), rerr)
		}
	}
	parts := make([]arrow.RecordBatch, len(ids))
	for k, id := range ids {
		r, ok := found[id]
		if !ok {
			return nil, fmt.Errorf("link: fetch: row %d of %s not found", id, t.st.name())
		}
		parts[k] = r
	}
	all, err := Concat(parts)
	if err != nil {
		return nil, err
	}
	// Drop RowIDColumn: the rows are in the table's schema.
	n := int(all.NumCols()) - 1
	out := array.NewRecordBatch(arrow.NewSchema(all.Schema().Fields()[:n], nil), all.Columns()[:n], all.NumRows())
	all.Release()
	return out, nil
}
