package window

import (
	"context"
	"testing"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// BenchmarkRunningMin is a running aggregate through an exec/agg state
// over unique order keys: one frame per row.
func BenchmarkRunningMin(b *testing.B) {
	const n = 100000
	rows := make([][]expr.Expr, n)
	for r := range rows {
		rows[r] = []expr.Expr{konst4(int64(r % 3)), konst4(int64(r)), konst4(int64(r % 1000))}
	}
	ctx, ec := context.Background(), &expr.Ctx{}
	spec := Spec{Partition: []expr.Expr{colP}, Order: []exec.SortKey{{Expr: colO}}}
	for i := 0; i < b.N; i++ {
		in := exec.NewValues(rows, []types.T{types.TInt4, types.TInt4, types.TInt4}, ec)
		o := New(in, []Spec{spec}, []Func{aggOf(agg.Min, colV)}, ec)
		if err := o.Open(ctx); err != nil {
			b.Fatal(err)
		}
		rec, err := exec.Drain(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		rec.Release()
		o.Close()
	}
}
