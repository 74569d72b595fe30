package pgcodec

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/loamdb/loam/types"
)

// BenchmarkBinaryEncode compares the codec's column encoders with pgx's
// pgtype (which knows every type's binary format too) on the hot types of
// result rows. pgtype encodes a Go value per call through its type map;
// the codec reads the Arrow buffer: that is why the hot paths stay
// hand-written.
func BenchmarkBinaryEncode(b *testing.B) {
	const n = 1024
	base := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)
	cases := []struct {
		t     types.T
		d     func(i int) types.Datum
		goVal func(i int) any
	}{
		{types.TInt8, func(i int) types.Datum { return types.Int(types.TInt8, int64(i)*7919) }, func(i int) any { return int64(i) * 7919 }},
		{types.TFloat8, func(i int) types.Datum { return types.Float8Datum(float64(i) / 3) }, func(i int) any { return float64(i) / 3 }},
		{types.TText, func(i int) types.Datum { return types.TextDatum(fmt.Sprintf("row number %d", i)) }, func(i int) any { return fmt.Sprintf("row number %d", i) }},
		{types.TTimestampTZ, func(i int) types.Datum {
			return types.Datum{T: types.TTimestampTZ, I: base.Add(time.Duration(i) * time.Second).UnixMicro()}
		}, func(i int) any { return base.Add(time.Duration(i) * time.Second) }},
	}
	for _, c := range cases {
		ds := make([]types.Datum, n)
		vs := make([]any, n)
		for i := range ds {
			ds[i], vs[i] = c.d(i), c.goVal(i)
		}
		arr := buildArray(c.t, ds)
		b.Run(c.t.String()+"/pgcodec", func(b *testing.B) {
			var buf []byte
			var encErr error
			for b.Loop() {
				put, err := BinaryEncoder(c.t, arr, &encErr)
				if err != nil {
					b.Fatal(err)
				}
				buf = buf[:0]
				for i := 0; i < n; i++ {
					buf = put(buf, i)
				}
			}
		})
		b.Run(c.t.String()+"/pgtype", func(b *testing.B) {
			m := pgtype.NewMap()
			var buf []byte
			for b.Loop() {
				buf = buf[:0]
				for i := 0; i < n; i++ {
					var err error
					if buf, err = m.Encode(c.t.OID(), pgtype.BinaryFormatCode, vs[i], buf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		arr.Release()
	}
}
