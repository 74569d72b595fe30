package pgcodec

import (
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// TextAppender returns a function that parses one text-format value of
// type t (text and CSV COPY FROM fields) and appends it to b, a builder of
// t.Arrow(). Integers, float8, text and timestamps go straight into the
// builder; the rest through types.ParseText. The caller has checked the
// field's encoding, and the function does not keep the field.
func TextAppender(t types.T, b array.Builder, loc *time.Location) func([]byte) error {
	str := func(f []byte) string { return unsafe.String(unsafe.SliceData(f), len(f)) }
	switch t.Kind {
	case types.Int2, types.Int4, types.Int8:
		return func(f []byte) error {
			v, err := strconv.ParseInt(str(f), 10, 64)
			if err != nil {
				_, err := types.ParseText(t, string(f), loc)
				return err
			}
			if err := types.CheckIntRange(t.Kind, v); err != nil {
				return pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", string(f), t)
			}
			switch bb := b.(type) {
			case *array.Int16Builder:
				bb.Append(int16(v))
			case *array.Int32Builder:
				bb.Append(int32(v))
			case *array.Int64Builder:
				bb.Append(v)
			}
			return nil
		}
	case types.Float8:
		bb := b.(*array.Float64Builder)
		return func(f []byte) error {
			v, err := strconv.ParseFloat(str(f), 64)
			if err != nil || v == 0 {
				// ParseText words the errors and refuses underflow
				// (1e-400), which ParseFloat rounds to 0.
				d, err := types.ParseText(t, string(f), loc)
				if err != nil {
					return err
				}
				v = d.F
			}
			bb.Append(v)
			return nil
		}
	case types.Text:
		bb := b.(*array.StringBuilder)
		return func(f []byte) error {
			bb.BinaryBuilder.Append(f)
			return nil
		}
	case types.Varchar, types.Char:
		if bb, ok := b.(*array.StringBuilder); ok {
			return charAppender(t, bb, loc)
		}
	case types.Date:
		if bb, ok := b.(*array.Date32Builder); ok {
			return func(f []byte) error {
				days, ok := types.DateISO(f)
				if !ok {
					d, err := types.ParseText(t, string(f), loc)
					if err != nil {
						return err
					}
					days = d.I
				}
				bb.Append(arrow.Date32(days))
				return nil
			}
		}
	case types.Numeric:
		if p, s, ok := t.Decimal(); ok {
			bb := b.(*array.Decimal128Builder)
			return func(f []byte) error {
				// Plain text of up to 18 digits (rounded to the scale)
				// without math/big; the rest as ParseDecimal reads it.
				if v, ok := types.ScaledDecimal(f, s); ok && types.Pow10Fits(v, p) {
					bb.Append(decimal128.FromI64(v))
					return nil
				}
				v, err := types.ParseDecimal(string(f), p, s)
				if err != nil {
					return err
				}
				bb.Append(v)
				return nil
			}
		}
		if bb, ok := b.(*array.StringBuilder); ok && t.Width >= 0 {
			return numericTextAppender(t, bb, loc)
		}
	case types.Timestamp, types.TimestampTZ:
		bb := b.(*array.TimestampBuilder)
		return func(f []byte) error {
			us, err := types.ParseTimestamp(str(f), t.Kind == types.TimestampTZ, loc)
			if err != nil {
				return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: %q", t, string(f))
			}
			bb.Append(arrow.Timestamp(types.RoundMicros(us, t.Width)))
			return nil
		}
	}
	return func(f []byte) error {
		d, err := types.ParseText(t, string(f), loc)
		if err != nil {
			return err
		}
		return appendDatum(b, d)
	}
}

// charAppender appends varchar(n) and char(n) text: a value of at most n
// bytes has at most n characters and goes in as is (char(n) padded to n),
// others take ParseText, which counts characters and words the error.
func charAppender(t types.T, bb *array.StringBuilder, loc *time.Location) func([]byte) error {
	w := int(t.Width)
	pad := t.Kind == types.Char && w > 0
	var scratch []byte
	return func(f []byte) error {
		if w < 0 || w > 0 && len(f) <= w {
			if n := utf8.RuneCount(f); pad && n < w {
				scratch = append(scratch[:0], f...)
				for ; n < w; n++ {
					scratch = append(scratch, ' ')
				}
				f = scratch
			}
			bb.BinaryBuilder.Append(f)
			return nil
		}
		d, err := types.ParseText(t, string(f), loc)
		if err != nil {
			return err
		}
		bb.Append(d.S)
		return nil
	}
}

// numericTextAppender appends numeric(p,s) text: plain decimals of up to
// 18 digits are rounded to the scale and printed without math/big; the
// rest (exponents, NaN, wide values, errors) take ParseText.
func numericTextAppender(t types.T, bb *array.StringBuilder, loc *time.Location) func([]byte) error {
	var scratch []byte
	return func(f []byte) error {
		if v, ok := types.ScaledDecimal(f, t.Scale); ok && types.Pow10Fits(v, t.Width) {
			scratch = types.AppendScaled(scratch[:0], v, t.Scale)
			bb.BinaryBuilder.Append(scratch)
			return nil
		}
		d, err := types.ParseText(t, string(f), loc)
		if err != nil {
			return err
		}
		bb.Append(d.S)
		return nil
	}
}
