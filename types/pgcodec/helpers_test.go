package pgcodec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// buildArray builds the Arrow array that carries ds, as the engine would.
func buildArray(t types.T, ds []types.Datum) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t.Arrow())
	defer b.Release()
	for _, d := range ds {
		if d.Null {
			b.AppendNull()
		} else if err := appendDatum(b, d); err != nil {
			panic(err)
		}
	}
	return b.NewArray()
}
