package expr

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/types"
)

// TestGather checks the gathered rows against the source, value and NULL,
// for every column of selBatch, also when a column's data does not know
// its NULL count (as arrays read from Parquet may not).
func TestGather(t *testing.T) {
	rec, ts := selBatch(300, 5)
	defer rec.Release()
	sel := []int32{0, 1, 2, 7, 8, 64, 65, 100, 299}
	for c, ty := range ts {
		src := rec.Column(c)
		d := src.Data()
		unknown := array.NewData(d.DataType(), d.Len(), d.Buffers(), d.Children(), array.UnknownNullCount, d.Offset())
		for _, a := range []arrow.Array{src, array.MakeFromData(unknown)} {
			g := gatherArray(a, sel)
			if g == nil {
				t.Fatalf("%v: no gather loop", ty)
			}
			for i, r := range sel {
				want := types.FormatText(types.DatumAt(ty, a, int(r)), time.UTC)
				got := types.FormatText(types.DatumAt(ty, g, i), time.UTC)
				if g.IsNull(i) != a.IsNull(int(r)) || got != want {
					t.Errorf("%v row %d: got %q (null %v), want %q (null %v)", ty, r, got, g.IsNull(i), want, a.IsNull(int(r)))
				}
			}
			g.Release()
		}
		unknown.Release()
	}
	// A slice of a batch gathers from its offset.
	sl := rec.NewSlice(10, 20)
	defer sl.Release()
	g, err := Gather(sl, []int32{0, 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	for c, ty := range ts {
		for i, r := range []int{10, 19} {
			if got, want := types.DatumAt(ty, g.Column(c), i), types.DatumAt(ty, rec.Column(c), r); types.FormatText(got, time.UTC) != types.FormatText(want, time.UTC) || got.Null != want.Null {
				t.Errorf("%v slice row %d: got %v, want %v", ty, r, got, want)
			}
		}
	}
}
