package exec

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// TestLateralSet joins each input row to the rows its function call
// returns: an inner join drops a row with none, a left join keeps it with
// NULLs, and WITH ORDINALITY numbers each call's rows from 1.
func TestLateralSet(t *testing.T) {
	// The function returns n rows "x1".."xn" for an argument n; NULL
	// returns none.
	rows := func(args []types.Datum, _ *expr.Ctx) ([][]types.Datum, error) {
		if args[0].Null {
			return nil, nil
		}
		var out [][]types.Datum
		for i := int64(1); i <= args[0].I; i++ {
			out = append(out, []types.Datum{types.TextDatum("x" + strconv.FormatInt(i, 10))})
		}
		return out, nil
	}
	// on holds for the joined rows whose value is not "x1".
	notX1 := &expr.Compare{Op: expr.NE, L: &expr.Col{Idx: 1, T: types.TText}, R: &expr.Const{D: types.TextDatum("x1")}}
	for _, c := range []struct {
		outer, ordinal bool
		on             expr.Expr
		want           string
	}{
		{false, false, nil, "2/x1 2/x2 1/x1"},
		{true, false, nil, "2/x1 2/x2 0/NULL 1/x1 NULL/NULL"},
		{false, true, nil, "2/x1/1 2/x2/2 1/x1/1"},
		{true, true, nil, "2/x1/1 2/x2/2 0/NULL/NULL 1/x1/1 NULL/NULL/NULL"},
		{false, false, notX1, "2/x2"},
		{true, true, notX1, "2/x2/2 0/NULL/NULL 1/NULL/NULL NULL/NULL/NULL"},
	} {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues([]int64{2, 0, 1, 0}, []bool{true, true, true, false})
		col := b.NewArray()
		ts := []types.T{types.TInt8}
		in := array.NewRecordBatch(Schema(ts), []arrow.Array{col}, 4)
		col.Release()
		op := NewLateralSet(NewBatches(ts, []arrow.RecordBatch{in}), "f", []expr.Expr{&expr.Col{Idx: 0, T: types.TInt8}},
			[]types.T{types.TText}, rows, c.outer, c.ordinal, c.on, &expr.Ctx{})
		ctx := context.Background()
		if err := op.Open(ctx); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			rec, err := op.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rec == nil {
				break
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				var parts []string
				for k, ct := range op.Types() {
					d := types.DatumAt(ct, rec.Column(k), i)
					if d.Null {
						parts = append(parts, "NULL")
					} else {
						parts = append(parts, types.FormatText(d, nil))
					}
				}
				got = append(got, strings.Join(parts, "/"))
			}
			rec.Release()
		}
		op.Close()
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("outer %v ordinal %v: got %q, want %q", c.outer, c.ordinal, g, c.want)
		}
	}
}
