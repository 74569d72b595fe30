package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// fakeRows records what a sink writes to one table.
type fakeRows struct {
	deleted map[int64]bool
	added   []int64 // the first column of each row added
}

func (f *fakeRows) Add(rec arrow.RecordBatch) error {
	c := rec.Column(0).(*array.Int32)
	for i := 0; i < c.Len(); i++ {
		f.added = append(f.added, int64(c.Value(i)))
	}
	return nil
}

func (f *fakeRows) Delete(ids []int64) (int64, error) {
	var n int64
	for _, id := range ids {
		if !f.deleted[id] {
			f.deleted[id] = true
			n++
		}
	}
	return n, nil
}

type fakeWriter struct{ rows *fakeRows }

func (w fakeWriter) Table(context.Context, string, string, string) (link.RowWriter, error) {
	return w.rows, nil
}

// modifyInput is rows (row id, new value of the table's one int column,
// an extra column a RETURNING reads) in batches of size.
func modifyInput(ids []int64, vals []int32, size int) ([]types.T, []arrow.RecordBatch) {
	ts := []types.T{types.TInt8, types.TInt4, types.TInt8}
	var recs []arrow.RecordBatch
	for start := 0; start < len(ids); start += size {
		end := min(start+size, len(ids))
		ib, vb, xb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt32Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
		for i := start; i < end; i++ {
			ib.Append(ids[i])
			if vals[i] < 0 {
				vb.AppendNull()
			} else {
				vb.Append(vals[i])
			}
			xb.Append(ids[i] * 100)
		}
		cols := []arrow.Array{ib.NewArray(), vb.NewArray(), xb.NewArray()}
		recs = append(recs, array.NewRecordBatch(Schema(ts), cols, int64(end-start)))
		for _, c := range cols {
			c.Release()
		}
	}
	return ts, recs
}

// The sink deletes each id once (with dedupe), adds the new rows of an
// UPDATE without the columns after the table's, counts the rows changed
// and evaluates RETURNING over the row with those columns; a NULL in a
// NOT NULL column fails the statement. Every case
// runs with batches of 1, 7 and all rows.
func TestModifySink(t *testing.T) {
	ids := []int64{1, 2, 3, 2, 4, 1, 5, 6, 7, 8, 9, 3}
	vals := []int32{10, 20, 30, 21, 40, 11, 50, 60, 70, 80, 90, 31}
	target := &Target{NS: "public", Table: "t", Names: []string{"v"}, Types: []types.T{types.TInt4}, Required: []bool{true},
		Arrow: arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: false}}, nil)}
	for _, size := range []int{1, 7, len(ids)} {
		for _, c := range []struct {
			name           string
			update, dedupe bool
			ret            bool
			want           int64
			added          int
		}{
			{"delete", false, true, false, 9, 0},
			{"update", true, true, false, 9, 9},
			{"update returning", true, true, true, 9, 9},
			{"delete returning", false, true, true, 9, 0},
		} {
			rows := &fakeRows{deleted: map[int64]bool{}}
			ts, recs := modifyInput(ids, vals, size)
			var ret []expr.Expr
			if c.ret {
				ret = []expr.Expr{&expr.Col{Idx: 1, T: types.TInt8}}
			}
			ec := &expr.Ctx{Writer: fakeWriter{rows}}
			op := NewModify(NewBatches(ts, recs), c.update, c.dedupe, target, ret, ec)
			ctx := context.Background()
			if err := op.Open(ctx); err != nil {
				t.Fatal(err)
			}
			var count, returned int64
			var sum int64
			for {
				out, err := op.Next(ctx)
				if err != nil {
					t.Fatalf("%s/%d: %v", c.name, size, err)
				}
				if out == nil {
					break
				}
				if c.ret {
					returned += out.NumRows()
					col := out.Column(0).(*array.Int64)
					for i := 0; i < col.Len(); i++ {
						sum += col.Value(i)
					}
				} else {
					count += out.Column(0).(*array.Int64).Value(0)
				}
				out.Release()
			}
			op.Close()
			if c.ret {
				count = returned
				if sum != 4500 { // ids 1..9 once, times 100
					t.Errorf("%s/%d: RETURNING summed %d, want 4500", c.name, size, sum)
				}
			}
			if count != c.want || int64(len(rows.deleted)) != c.want || len(rows.added) != c.added {
				t.Errorf("%s/%d: count %d, %d deleted, %d added; want %d, %d, %d", c.name, size, count, len(rows.deleted), len(rows.added), c.want, c.want, c.added)
			}
			if c.update && rows.added[0] != 10 {
				t.Errorf("%s/%d: first added row %d, want 10 (the first joined row wins)", c.name, size, rows.added[0])
			}
		}
	}

	// NOT NULL: the statement fails (and its writer, aborted, keeps
	// nothing).
	rows := &fakeRows{deleted: map[int64]bool{}}
	ts, recs := modifyInput([]int64{1, 2}, []int32{5, -1}, 2)
	op := NewModify(NewBatches(ts, recs), true, false, target, nil, &expr.Ctx{Writer: fakeWriter{rows}})
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := op.Next(ctx); err == nil {
		t.Fatal("an UPDATE to NULL in a NOT NULL column succeeded")
	}
	op.Close()
	if len(rows.added) != 0 {
		t.Fatalf("%d rows added by a failing batch", len(rows.added))
	}
}
