package types

import (
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// TextWriter returns a function that appends row i of arr in PostgreSQL's
// text output format. It chooses the formatter once per column so the row
// loop does no type switching. The caller checks arr.IsNull(i) first.
func TextWriter(t T, arr arrow.Array, loc *time.Location) func(buf []byte, i int) []byte {
	switch t.Kind {
	case Bool:
		a := arr.(*array.Boolean)
		return func(buf []byte, i int) []byte {
			if a.Value(i) {
				return append(buf, 't')
			}
			return append(buf, 'f')
		}
	case Int2:
		v := arrow.GetValues[int16](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return strconv.AppendInt(buf, int64(v[i]), 10) }
	case Int4:
		v := arrow.GetValues[int32](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return strconv.AppendInt(buf, int64(v[i]), 10) }
	case Int8, OID:
		v := arrow.GetValues[int64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return strconv.AppendInt(buf, v[i], 10) }
	case Float4:
		v := arrow.GetValues[float32](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return AppendFloat4(buf, v[i]) }
	case Float8:
		v := arrow.GetValues[float64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return AppendFloat8(buf, v[i]) }
	case Date:
		v := arrow.GetValues[int32](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return AppendDate(buf, int64(v[i])) }
	case Time:
		v := arrow.GetValues[int64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return AppendTime(buf, v[i]) }
	case Timestamp:
		v := arrow.GetValues[int64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return AppendTimestamp(buf, v[i], nil) }
	case TimestampTZ:
		v := arrow.GetValues[int64](arr.Data(), 1)
		if loc == nil {
			loc = time.UTC
		}
		return func(buf []byte, i int) []byte { return AppendTimestamp(buf, v[i], loc) }
	case Bytea:
		a := arr.(*array.Binary)
		return func(buf []byte, i int) []byte { return AppendBytea(buf, a.Value(i)) }
	case Interval:
		v := arrow.GetValues[arrow.MonthDayNanoInterval](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return AppendInterval(buf, IntervalFromArrow(v[i])) }
	case Numeric:
		if _, s, ok := t.Decimal(); ok {
			v := arrow.GetValues[decimal128.Num](arr.Data(), 1)
			return func(buf []byte, i int) []byte { return AppendDecimal(buf, v[i], s) }
		}
		if _, s, ok := t.Wide(); ok {
			v := arrow.GetValues[decimal256.Num](arr.Data(), 1)
			return func(buf []byte, i int) []byte { return AppendWide(buf, v[i], s) }
		}
	}
	a := arr.(*array.String)
	if t.IsVector() {
		return func(buf []byte, i int) []byte { return append(buf, vectorText(a.Value(i))...) }
	}
	return func(buf []byte, i int) []byte { return append(buf, a.Value(i)...) }
}

// DatumAt reads row i of arr as a Datum of type t.
func DatumAt(t T, arr arrow.Array, i int) Datum {
	if arr.IsNull(i) {
		return NullOf(t)
	}
	d := Datum{T: t}
	switch t.Kind {
	case Bool:
		if arr.(*array.Boolean).Value(i) {
			d.I = 1
		}
	case Int2:
		d.I = int64(arrow.GetValues[int16](arr.Data(), 1)[i])
	case Int4, Date:
		d.I = int64(arrow.GetValues[int32](arr.Data(), 1)[i])
	case Int8, OID, Time, Timestamp, TimestampTZ:
		d.I = arrow.GetValues[int64](arr.Data(), 1)[i]
	case Float4:
		d.F = float64(arrow.GetValues[float32](arr.Data(), 1)[i])
	case Float8:
		d.F = arrow.GetValues[float64](arr.Data(), 1)[i]
	case Bytea:
		d.B = append([]byte(nil), arr.(*array.Binary).Value(i)...)
	case Interval:
		v := arrow.GetValues[arrow.MonthDayNanoInterval](arr.Data(), 1)[i]
		d.Months, d.Days, d.I = v.Months, v.Days, v.Nanoseconds/1000
	case Numeric:
		if _, s, ok := t.Decimal(); ok {
			d.S = DecimalString(arrow.GetValues[decimal128.Num](arr.Data(), 1)[i], s)
			break
		}
		if _, s, ok := t.Wide(); ok {
			d.S = string(AppendWide(nil, arrow.GetValues[decimal256.Num](arr.Data(), 1)[i], s))
			break
		}
		d.S = arr.(*array.String).Value(i)
	default:
		d.S = arr.(*array.String).Value(i)
	}
	return d
}
