package exec

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// KeyWriter appends a row's key bytes: a null marker, then the value in a
// form where equal values (and only those) have equal bytes.
func KeyWriter(t types.T, a arrow.Array) func([]byte, int) []byte {
	var val func([]byte, int) []byte
	switch t.Kind {
	case types.Bool:
		b := a.(*array.Boolean)
		val = func(buf []byte, i int) []byte {
			if b.Value(i) {
				return append(buf, 1)
			}
			return append(buf, 0)
		}
	case types.Int2:
		v := arrow.GetValues[int16](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint16(buf, uint16(v[i])) }
	case types.Int4, types.Date:
		v := arrow.GetValues[int32](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint32(buf, uint32(v[i])) }
	case types.Int8, types.OID, types.Time, types.Timestamp, types.TimestampTZ:
		v := arrow.GetValues[int64](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint64(buf, uint64(v[i])) }
	case types.Float4:
		v := arrow.GetValues[float32](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint64(buf, floatKey(float64(v[i]))) }
	case types.Float8:
		v := arrow.GetValues[float64](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint64(buf, floatKey(v[i])) }
	case types.Interval:
		// Equal spans are equal intervals ('1 day' = '24 hours'), so the key
		// is the span, as PostgreSQL's interval hash is.
		v := arrow.GetValues[arrow.MonthDayNanoInterval](a.Data(), 1)
		val = func(buf []byte, i int) []byte {
			hi, lo := types.IntervalFromArrow(v[i]).Span128()
			buf = binary.LittleEndian.AppendUint64(buf, uint64(hi))
			return binary.LittleEndian.AppendUint64(buf, lo)
		}
	case types.Bytea:
		b := a.(*array.Binary)
		val = func(buf []byte, i int) []byte {
			buf = binary.AppendUvarint(buf, uint64(len(b.Value(i))))
			return append(buf, b.Value(i)...)
		}
	case types.Numeric:
		if _, sc, ok := t.Decimal(); ok {
			val = decimalKeyWriter(a, sc)
			break
		}
		text := expr.NumericText(a) // text, or a wide decimal
		val = func(buf []byte, i int) []byte {
			// 1.50 and 1.5 are one group: key by the normalised value.
			d, _ := types.ParseDec(text(i))
			k := d.U.String() + "e" + itoa(int(d.Scale))
			for d.Scale > 0 && d.U.Sign() != 0 {
				r := d.Rescale(d.Scale - 1)
				back := r.Rescale(d.Scale)
				if back.Cmp(&d) != 0 {
					break
				}
				d = r
				k = d.U.String() + "e" + itoa(int(d.Scale))
			}
			if d.U.Sign() == 0 {
				k = "0"
			}
			buf = binary.AppendUvarint(buf, uint64(len(k)))
			return append(buf, k...)
		}
	case types.JSONB:
		s := a.(*array.String)
		val = func(buf []byte, i int) []byte {
			v := expr.JSONBKey(s.Value(i))
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			return append(buf, v...)
		}
	default:
		s := a.(*array.String)
		val = func(buf []byte, i int) []byte {
			v := s.Value(i)
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			return append(buf, v...)
		}
	}
	if a.NullN() == 0 {
		return func(buf []byte, i int) []byte { return val(append(buf, 1), i) }
	}
	return func(buf []byte, i int) []byte {
		if a.IsNull(i) {
			return append(buf, 0)
		}
		return val(append(buf, 1), i)
	}
}

// floatKey makes -0 and 0, and all NaNs, group together as in PostgreSQL.
func floatKey(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

// decimalKeyWriter keys scaled integers by the normalised value, in the
// very bytes the text-carried numeric path writes, so a join of a
// numeric(15,2) to a numeric(10,3) or to an unconstrained numeric matches
// equal values.
func decimalKeyWriter(a arrow.Array, scale int32) func([]byte, int) []byte {
	v := arrow.GetValues[decimal128.Num](a.Data(), 1)
	return func(buf []byte, i int) []byte {
		n, sc := v[i], scale
		var k []byte
		var tmp [48]byte
		if n.Sign() == 0 {
			k = append(tmp[:0], '0')
		} else if n.HighBits() == 0 && n.LowBits() <= math.MaxInt64 || n.HighBits() == -1 && n.LowBits() > math.MaxInt64 {
			m := int64(n.LowBits())
			for sc > 0 && m%10 == 0 {
				m /= 10
				sc--
			}
			k = strconv.AppendInt(tmp[:0], m, 10)
			k = append(k, 'e')
			k = strconv.AppendInt(k, int64(sc), 10)
		} else {
			d := types.NumToDec(n, sc)
			ten := big.NewInt(10)
			var q, r big.Int
			for d.Scale > 0 {
				q.QuoRem(&d.U, ten, &r)
				if r.Sign() != 0 {
					break
				}
				d.U.Set(&q)
				d.Scale--
			}
			k = append(tmp[:0], d.U.String()+"e"+itoa(int(d.Scale))...)
		}
		buf = binary.AppendUvarint(buf, uint64(len(k)))
		return append(buf, k...)
	}
}
