package link

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// appendKey appends row i's values of cols, one key, to b, each value
// length-prefixed so that no two keys run together; ok is false when a
// value is NULL: a key with a NULL equals no other (PostgreSQL's NULLS
// DISTINCT), so such a row is never indexed. With nullsEqual (NULLS NOT
// DISTINCT) a NULL is a value: each value is tagged present or NULL.
func appendKey(b []byte, cols []arrow.Array, i int, nullsEqual bool) ([]byte, bool) {
	for _, c := range cols {
		if c.IsNull(i) {
			if !nullsEqual {
				return b, false
			}
			b = append(b, 0)
			continue
		}
		if nullsEqual {
			b = append(b, 1)
		}
		b = appendValue(b, c, i)
	}
	return b, true
}

func appendValue(b []byte, c arrow.Array, i int) []byte {
	u64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(append(b, 8), v) }
	bytes := func(s []byte) []byte {
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	switch a := c.(type) {
	case *array.Int16:
		return u64(uint64(a.Value(i)))
	case *array.Int32:
		return u64(uint64(a.Value(i)))
	case *array.Int64:
		return u64(uint64(a.Value(i)))
	case *array.Date32:
		return u64(uint64(a.Value(i)))
	case *array.Timestamp:
		return u64(uint64(a.Value(i)))
	case *array.Time64:
		return u64(uint64(a.Value(i)))
	case *array.Boolean:
		if a.Value(i) {
			return u64(1)
		}
		return u64(0)
	case *array.Float32:
		return u64(floatBits(float64(a.Value(i))))
	case *array.Float64:
		return u64(floatBits(a.Value(i)))
	case *array.String:
		return bytes([]byte(a.Value(i)))
	case *array.LargeString:
		return bytes([]byte(a.Value(i)))
	case *array.Binary:
		return bytes(a.Value(i))
	case *array.LargeBinary:
		return bytes(a.Value(i))
	case *array.FixedSizeBinary:
		return bytes(a.Value(i))
	}
	// Decimals and anything else: their text is canonical for one column
	// type (a decimal column has one scale).
	return bytes([]byte(c.ValueStr(i)))
}

// floatBits makes equal floats (as PostgreSQL compares them: -0 = 0, NaN
// = NaN) one key.
func floatBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}
