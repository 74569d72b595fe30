package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// TestApply joins left rows to inner rows built per row: a LEFT apply
// keeps the row with none, and with key columns the inner side is built
// once per distinct key.
func TestApply(t *testing.T) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues([]string{"a", "bb", "a", ""}, []bool{true, true, true, false})
	col := b.NewArray()
	defer col.Release()
	ts := []types.T{types.TText}
	left := array.NewRecordBatch(Schema(ts), []arrow.Array{col}, 4)
	defer left.Release()
	for _, memo := range []bool{false, true} {
		calls := 0
		inner := func(_ context.Context, row []types.Datum) (Operator, error) {
			calls++
			if row[0].Null {
				return NewValues(nil, ts, &expr.Ctx{}), nil
			}
			var rows [][]expr.Expr
			for _, suffix := range []string{"1", "2"} {
				rows = append(rows, []expr.Expr{&expr.Const{D: types.Datum{T: types.TText, S: row[0].S + suffix}}})
			}
			return NewValues(rows, ts, &expr.Ctx{}), nil
		}
		var keys []int
		if memo {
			keys = []int{0}
		}
		left.Retain()
		a := NewApply(LeftJoin, NewBatches(ts, []arrow.RecordBatch{left}), ts, inner, keys, nil, &expr.Ctx{}, 0)
		ctx := context.Background()
		if err := a.Open(ctx); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			rec, err := a.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rec == nil {
				break
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				l, r := types.DatumAt(types.TText, rec.Column(0), i), types.DatumAt(types.TText, rec.Column(1), i)
				got = append(got, types.FormatText(l, nil)+"/"+types.FormatText(r, nil))
			}
			rec.Release()
		}
		a.Close()
		want := "a/a1 a/a2 bb/bb1 bb/bb2 a/a1 a/a2 /"
		if strings.Join(got, " ") != want {
			t.Errorf("memo %v: got %q, want %q", memo, strings.Join(got, " "), want)
		}
		if wantCalls := map[bool]int{false: 4, true: 3}[memo]; calls != wantCalls {
			t.Errorf("memo %v: inner built %d times, want %d", memo, calls, wantCalls)
		}
	}
}
