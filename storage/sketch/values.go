package sketch

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// AddColumn adds the hashes of a column's non-null values, each value in
// Iceberg's single-value binary form (the form the Puffin spec hashes), so
// a sketch Loam writes combines with one another engine wrote. It reports
// false for a column type that has no single-value form (lists, structs).
func (s *Theta) AddColumn(a arrow.Array) bool {
	var buf [16]byte
	le := binary.LittleEndian
	fixed := func(n int, put func(i int)) {
		for i := range a.Len() {
			if a.IsNull(i) {
				continue
			}
			put(i)
			s.Add(Hash(buf[:n]))
		}
	}
	switch x := a.(type) {
	case *array.Boolean:
		fixed(1, func(i int) {
			buf[0] = 0
			if x.Value(i) {
				buf[0] = 1
			}
		})
	case *array.Int32:
		fixed(4, func(i int) { le.PutUint32(buf[:], uint32(x.Value(i))) })
	case *array.Date32:
		fixed(4, func(i int) { le.PutUint32(buf[:], uint32(x.Value(i))) })
	case *array.Int64:
		fixed(8, func(i int) { le.PutUint64(buf[:], uint64(x.Value(i))) })
	case *array.Timestamp:
		fixed(8, func(i int) { le.PutUint64(buf[:], uint64(x.Value(i))) })
	case *array.Time64:
		fixed(8, func(i int) { le.PutUint64(buf[:], uint64(x.Value(i))) })
	case *array.Float32:
		fixed(4, func(i int) { le.PutUint32(buf[:], math.Float32bits(x.Value(i))) })
	case *array.Float64:
		fixed(8, func(i int) { le.PutUint64(buf[:], math.Float64bits(x.Value(i))) })
	case *array.String:
		for i := range x.Len() {
			if x.IsValid(i) {
				s.Add(Hash([]byte(x.Value(i))))
			}
		}
	case *array.LargeString:
		for i := range x.Len() {
			if x.IsValid(i) {
				s.Add(Hash([]byte(x.Value(i))))
			}
		}
	case *array.Binary:
		for i := range x.Len() {
			if x.IsValid(i) {
				s.Add(Hash(x.Value(i)))
			}
		}
	case *array.FixedSizeBinary:
		for i := range x.Len() {
			if x.IsValid(i) {
				s.Add(Hash(x.Value(i)))
			}
		}
	case *array.Decimal128:
		for i := range x.Len() {
			if x.IsValid(i) {
				v := x.Value(i)
				s.Add(Hash(decimalBytes(v.HighBits(), v.LowBits())))
			}
		}
	default:
		return false
	}
	return true
}

// decimalBytes is an unscaled decimal as Iceberg serializes it: two's
// complement, big-endian, in the fewest bytes that keep its sign.
func decimalBytes(hi int64, lo uint64) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(hi))
	binary.BigEndian.PutUint64(b[8:], lo)
	i := 0
	for i < 15 {
		// A leading byte is redundant when it only repeats the sign of
		// the next one.
		if b[i] == 0 && b[i+1]&0x80 == 0 || b[i] == 0xff && b[i+1]&0x80 != 0 {
			i++
			continue
		}
		break
	}
	return b[i:]
}
