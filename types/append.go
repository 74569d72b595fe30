package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// AppendDatum appends d to an Arrow builder of its type's Arrow type
// (T.Arrow), NULL included; a builder of another kind is an error.
func AppendDatum(b array.Builder, d Datum) error {
	if d.Null {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(d.I != 0)
	case *array.Int16Builder:
		bb.Append(int16(d.I))
	case *array.Int32Builder:
		bb.Append(int32(d.I))
	case *array.Int64Builder:
		bb.Append(d.I)
	case *array.Float32Builder:
		bb.Append(float32(d.F))
	case *array.Float64Builder:
		bb.Append(d.F)
	case *array.Date32Builder:
		bb.Append(arrow.Date32(d.I))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(d.I))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(d.I))
	case *array.MonthDayNanoIntervalBuilder:
		bb.Append(d.Interval().Arrow())
	case *array.BinaryBuilder:
		bb.Append(d.B)
	case *array.StringBuilder:
		bb.Append(d.S)
	case *array.Decimal128Builder:
		// A numeric Datum holds text; the builder's type says the scale.
		dt := bb.Type().(*arrow.Decimal128Type)
		v, err := ParseDecimal(d.S, dt.Precision, dt.Scale)
		if err != nil {
			return err
		}
		bb.Append(v)
	case *array.Decimal256Builder:
		dt := bb.Type().(*arrow.Decimal256Type)
		v, err := ParseWide(d.S, dt.Precision, dt.Scale)
		if err != nil {
			return err
		}
		bb.Append(v)
	default:
		return fmt.Errorf("no %s value into an Arrow %T", d.T, b)
	}
	return nil
}
