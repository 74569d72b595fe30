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
	"github.com/loamdb/loam/exec/types"
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
	for _, c := range []struct {
		outer, ordinal bool
		want           string
	}{
		{false, false, "2/x1 2/x2 1/x1"},
		{true, false, "2/x1 2/x2 0/NULL 1/x1 NULL/NULL"},
		{false, true, "2/x1/1 2/x2/2 1/x1/1"},
		{true, true, "2/x1/1 2/x2/2 0/NULL/NULL 1/x1/1 NULL/NULL/NULL"},
	} {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues([]int64{2, 0, 1, 0}, []bool{true, true, true, false})
		col := b.NewArray()
		ts := []types.T{types.TInt8}
		in := array.NewRecordBatch(Schema(ts), []arrow.Array{col}, 4)
		col.Release()
		op := NewLateralSet(NewBatches(ts, []arrow.RecordBatch{in}), "f", []expr.Expr{&expr.Col{Idx: 0, T: types.TInt8}},
			[]types.T{types.TText}, rows, c.outer, c.ordinal, &expr.Ctx{})
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
