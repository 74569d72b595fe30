package pgcodec

import (
	"bytes"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// fuzzType maps the fuzzer's selector to a type: every scalar kind, the
// array of every kind, and a record.
func fuzzType(sel uint8) types.T {
	kinds := uint8(types.Record) + 1
	switch k := types.Kind(sel % kinds); {
	case sel/kinds%3 == 1 && k != types.Array && k != types.Record && k != types.Void:
		return types.ArrayOf(k)
	case sel/kinds%3 == 2:
		return types.RecordOf(types.Field{Name: "a", T: types.TInt4}, types.Field{Name: "b", T: types.TText})
	case k == types.Array:
		return types.ArrayOf(types.Int4)
	case k == types.Record:
		return types.RecordOf(types.Field{Name: "n", T: types.TNumeric})
	default:
		return types.Of(k)
	}
}

// FuzzDecodeBinary feeds arbitrary bytes (a Bind parameter, a binary COPY
// field) to the binary decoder of every type. It must not panic, and what
// it accepts must encode back to bytes that decode to the same value: the
// codec reads what it writes.
func FuzzDecodeBinary(f *testing.F) {
	f.Add(uint8(types.Numeric), []byte{0, 1, 0, 0, 0, 0, 0, 2, 0, 12})
	f.Add(uint8(types.JSONB), []byte{1, '{', '}'})
	f.Add(uint8(types.Timestamp), []byte{0, 0, 0, 0, 0, 0, 0, 1})
	f.Add(uint8(types.Interval), make([]byte, 16))
	f.Add(uint8(types.UUID), make([]byte, 16))
	f.Add(uint8(types.Array), []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7})
	f.Add(uint8(types.Record), []byte{0, 0, 0, 1, 0, 0, 0x06, 0xa4, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, sel uint8, b []byte) {
		typ := fuzzType(sel)
		d, err := DecodeBinary(typ, b, time.UTC)
		if err != nil {
			return
		}
		enc, err := AppendBinary(nil, d)
		if err != nil {
			t.Fatalf("%s %+v decoded from %x does not encode: %v", typ, d, b, err)
		}
		back, err := DecodeBinary(typ, enc, time.UTC)
		if err != nil {
			t.Fatalf("%s: re-encoded %x does not decode: %v", typ, enc, err)
		}
		if types.FormatText(back, time.UTC) != types.FormatText(d, time.UTC) {
			t.Fatalf("%s: %x decodes to %q, re-encoded %x to %q", typ, b, types.FormatText(d, time.UTC), enc, types.FormatText(back, time.UTC))
		}
		// COPY FROM's appender takes the same bytes to the same value.
		bl := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
		defer bl.Release()
		if err := BinaryAppender(typ, bl, time.UTC)(b); err != nil {
			t.Fatalf("%s: DecodeBinary accepts %x, BinaryAppender says %v", typ, b, err)
		}
		arr := bl.NewArray()
		defer arr.Release()
		var encErr error
		put, err := BinaryEncoder(typ, arr, &encErr)
		if err != nil {
			t.Fatal(err)
		}
		col := put(nil, 0)
		if encErr != nil {
			t.Fatalf("%s: column encoder: %v", typ, encErr)
		}
		if !bytes.Equal(col, enc) {
			// float4 travels as float64 in a Datum, which quiets a
			// signalling NaN: the same value, other bits.
			same, err := DecodeBinary(typ, col, time.UTC)
			if err != nil || types.FormatText(same, time.UTC) != types.FormatText(d, time.UTC) {
				t.Fatalf("%s: column encoder gives %x, datum encoder %x", typ, col, enc)
			}
		}
	})
}
