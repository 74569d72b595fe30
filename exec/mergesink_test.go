package exec

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// recordingWriter is a statement's writer that keeps what a sink wrote:
// the first column of the rows added, and the ids deleted.
type recordingWriter struct {
	added   []int64
	deleted []int64
}

func (w *recordingWriter) Table(context.Context, string, string, string) (link.RowWriter, error) {
	return w, nil
}

func (w *recordingWriter) Add(rec arrow.RecordBatch) error {
	c := rec.Column(0).(*array.Int64)
	for i := 0; i < c.Len(); i++ {
		w.added = append(w.added, c.Value(i))
	}
	return nil
}

func (w *recordingWriter) Delete(ids []int64) (int64, error) {
	w.deleted = append(w.deleted, ids...)
	return int64(len(ids)), nil
}

// joinedBatch is a batch of the join a MERGE's sink reads: the source's
// k, the target's v and the target row's id (NULL: no match).
func joinedBatch(rows [][3]*int64) arrow.RecordBatch {
	cols := make([]arrow.Array, 3)
	for c := range cols {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for _, r := range rows {
			if r[c] == nil {
				b.AppendNull()
			} else {
				b.Append(*r[c])
			}
		}
		cols[c] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(Schema([]types.T{types.TInt8, types.TInt8, types.TInt8}), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func i64(v int64) *int64 { return &v }

// TestMergeSink: each joined row takes the first clause of its kind whose
// condition holds, a later condition is evaluated only over the rows no
// earlier clause took, and a target row updated or deleted twice, in one
// batch or across two, is 21000.
func TestMergeSink(t *testing.T) {
	k := &expr.Col{Idx: 0, T: types.TInt8, Name: "k"}
	v := &expr.Col{Idx: 1, T: types.TInt8, Name: "v"}
	kIs := func(n int64) expr.Expr {
		return &expr.Compare{Op: expr.EQ, L: k, R: &expr.Const{D: types.Int(types.TInt8, n)}}
	}
	// 10 / (k - 1) fails on k = 1: only rows an earlier clause left open
	// may reach it.
	divides := &expr.Compare{Op: expr.GT, L: &expr.Arith{Op: expr.Div, L: &expr.Const{D: types.Int(types.TInt8, 10)},
		R: &expr.Arith{Op: expr.Sub, L: k, R: &expr.Const{D: types.Int(types.TInt8, 1)}, T: types.TInt8}, T: types.TInt8},
		R: &expr.Const{D: types.Int(types.TInt8, 0)}}
	upsert := []MergeAction{
		{Matched: true, Kind: MergeDelete, Cond: kIs(1)},
		{Matched: true, Kind: MergeNothing, Cond: kIs(2)},
		{Matched: true, Kind: MergeUpdate, Row: []expr.Expr{v}},
		{Matched: false, Kind: MergeNothing, Cond: kIs(1)},
		{Matched: false, Kind: MergeInsert, Cond: divides, Row: []expr.Expr{k}},
	}
	for _, c := range []struct {
		name     string
		batches  [][][3]*int64
		count    int64
		added    []int64
		deleted  []int64
		sqlstate string
	}{
		{name: "clauses in order", batches: [][][3]*int64{{
			{i64(1), i64(10), i64(100)}, // deleted
			{i64(2), i64(20), i64(101)}, // nothing
			{i64(3), i64(30), i64(102)}, // updated
			{i64(1), nil, nil},          // nothing (and 10 / 0 never evaluated)
			{i64(4), nil, nil},          // inserted
		}}, count: 3, added: []int64{30, 4}, deleted: []int64{100, 102}},
		{name: "nothing, then an update of the same row", batches: [][][3]*int64{
			{{i64(2), i64(20), i64(101)}},
			{{i64(3), i64(20), i64(101)}},
		}, count: 1, added: []int64{20}, deleted: []int64{101}},
		{name: "twice in a batch", batches: [][][3]*int64{{
			{i64(3), i64(30), i64(102)},
			{i64(1), i64(30), i64(102)},
		}}, sqlstate: pgerr.CardinalityViolation},
		{name: "twice across batches", batches: [][][3]*int64{
			{{i64(1), i64(30), i64(102)}},
			{{i64(4), nil, nil}, {i64(3), i64(30), i64(102)}},
		}, sqlstate: pgerr.CardinalityViolation},
	} {
		t.Run(c.name, func(t *testing.T) {
			var recs []arrow.RecordBatch
			for _, b := range c.batches {
				recs = append(recs, joinedBatch(b))
			}
			w := &recordingWriter{}
			target := &Target{NS: "public", Table: "t", Names: []string{"v"}, Types: []types.T{types.TInt8}, Required: []bool{false},
				Arrow: arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)}
			ec := &expr.Ctx{Writer: w}
			op := NewMerge(NewBatches([]types.T{types.TInt8, types.TInt8, types.TInt8}, recs), target, 2, upsert, ec)
			ctx := context.Background()
			if err := op.Open(ctx); err != nil {
				t.Fatal(err)
			}
			defer op.Close()
			out, err := op.Next(ctx)
			if c.sqlstate != "" {
				if err == nil || pgerr.Code(err) != c.sqlstate {
					t.Fatalf("got %v, want SQLSTATE %s", err, c.sqlstate)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if got := out.Column(0).(*array.Int64).Value(0); got != c.count {
				t.Errorf("count %d, want %d", got, c.count)
			}
			if fmt.Sprint(w.added) != fmt.Sprint(c.added) || !slices.Equal(w.deleted, c.deleted) {
				t.Errorf("added %v deleted %v, want %v and %v", w.added, w.deleted, c.added, c.deleted)
			}
		})
	}
}
