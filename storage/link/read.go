package link

import (
	"iter"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/wal"
)

// Read is one table as a statement reads it beyond the pinned snapshot:
// the View's tail (committed transactions not yet in Iceberg), the
// statement's own transaction's uncommitted writes (a transaction block
// reads its own writes), and the rows both delete, from the snapshot's
// data files and from the log.
type Read struct {
	v   *View
	st  *tableState
	own []*Txn

	once sync.Once
	dels *delSet
}

// Read is the view with the writes of the caller's open transaction,
// own, seen as its statements see them.
func (v *View) Read(own ...*Txn) *Read {
	return &Read{v: v, st: v.st, own: own}
}

// Table is the pinned Iceberg table.
func (r *Read) Table() *table.Table { return r.v.Table }

// deletes is the union of the deletes beyond the snapshot.
func (r *Read) deletes() *delSet {
	r.once.Do(func() {
		d := &delSet{}
		for _, e := range r.v.tail {
			d.union(e.dels)
		}
		for _, t := range r.own {
			d.union(t.dels)
		}
		r.dels = d
	})
	return r.dels
}

// HasFileDeletes reports whether rows of the snapshot's data files are
// deleted beyond it: the scan then reads those files with positions.
func (r *Read) HasFileDeletes() bool { return len(r.deletes().files) > 0 }

// FileDeletes is the positions of the data file path deleted beyond the
// snapshot, or nil.
func (r *Read) FileDeletes(path string) *dv.RoaringPositionBitmap {
	return r.deletes().file(path)
}

// TailRows is the number of rows in the tail and the transaction's own
// writes, deleted ones included.
func (r *Read) TailRows() int64 {
	n := r.v.TailRows()
	for _, t := range r.own {
		n += t.Rows()
	}
	return n
}

// Rows yields the rows beyond the snapshot that are not deleted, one
// batch a chunk, in the table's Iceberg Arrow schema: the tail, then the
// transaction's own rows. With ids each batch has RowIDColumn after the
// table's columns. Each batch is the caller's to release.
func (r *Read) Rows(ids bool) iter.Seq2[arrow.RecordBatch, error] {
	if !ids {
		return r.rowsWith(nil)
	}
	return r.rowsWith(r.st.chunkRowIDs)
}

// rowsWith is Rows with the row ids idOf gives each chunk's first row
// (none when nil): the key index numbers rows its own way (keys.go).
func (r *Read) rowsWith(idOf func(wal.Pos) int64) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		refs := slices.Collect(r.v.chunks)
		for _, t := range r.own {
			if n := len(t.chunks); n > 0 {
				// Uncommitted chunks may still sit in the log's buffer.
				if err := t.m.log.Flush(t.chunks[n-1].pos); err != nil {
					yield(nil, err)
					return
				}
			}
			refs = append(refs, t.chunks...)
		}
		dels := r.deletes()
		i := 0
		conformed(r.v.Table, func(yield func(arrow.RecordBatch, error) bool) {
			r.v.m.readChunks(slices.Values(refs), yield)
		})(func(rec arrow.RecordBatch, err error) bool {
			if err != nil {
				return yield(nil, err)
			}
			c := refs[i]
			i++
			var base int64 = -1
			if idOf != nil {
				base = idOf(c.pos)
			}
			out, err := keepRows(rec, dels.chunk(c.pos), base)
			rec.Release()
			if err != nil {
				return yield(nil, err)
			}
			if out.NumRows() == 0 {
				out.Release()
				return true
			}
			return yield(out, nil)
		})
	}
}

// keepRows drops the rows of rec at positions in del and, with base ≥ 0,
// adds RowIDColumn: base plus each row's position in rec.
func keepRows(rec arrow.RecordBatch, del *dv.RoaringPositionBitmap, base int64) (arrow.RecordBatch, error) {
	if del == nil && base < 0 {
		rec.Retain()
		return rec, nil
	}
	return icetable.FilterPositions(rec, 0, del, base)
}
