package wire

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// BenchmarkRowEncode measures DataRow encoding of the hot column types
// (int8, float8, text, timestamptz), in text and in binary: the codec must
// not make row encoding slower.
func BenchmarkRowEncode(b *testing.B) {
	const n = 1024
	cols := []engine.Column{{Name: "i", Type: types.TInt8}, {Name: "f", Type: types.TFloat8},
		{Name: "s", Type: types.TText}, {Name: "ts", Type: types.TTimestampTZ}}
	ds := make([][]types.Datum, len(cols))
	for r := 0; r < n; r++ {
		ds[0] = append(ds[0], types.Int(types.TInt8, int64(r)*7919))
		ds[1] = append(ds[1], types.Float8Datum(float64(r)/3))
		ds[2] = append(ds[2], types.TextDatum(fmt.Sprintf("row number %d", r)))
		ds[3] = append(ds[3], types.Datum{T: types.TTimestampTZ, I: 1_700_000_000_000_000 + int64(r)*1_000_003})
	}
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	for j, c := range cols {
		arrs[j] = buildArray(c.Type, ds[j])
		fields[j] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, n)
	defer rec.Release()
	for _, format := range []int16{0, 1} {
		b.Run(map[int16]string{0: "text", 1: "binary"}[format], func(b *testing.B) {
			e := newRowEncoder(cols, []int16{format, format, format, format}, time.UTC)
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				if err := e.reset(rec); err != nil {
					b.Fatal(err)
				}
				buf = buf[:0]
				for i := 0; i < n; i++ {
					buf = e.appendRow(buf, i)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}
