// Package ice converts between Loam's SQL types and batches and Iceberg's:
// the schema a CREATE TABLE becomes, and the Arrow arrays that cross the
// storage boundary in each direction.
package ice

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	"github.com/loamdb/loam/types"
)

// TypesProperty is the table property holding each column's exact SQL type
// (keyed by field ID), for the types Iceberg cannot tell apart: smallint vs
// integer, varchar(n) vs text, timestamp(3) vs timestamp, json vs text.
const TypesProperty = "loam.column-types"

// DefaultNumeric is the Iceberg decimal an unconstrained NUMERIC column is
// stored as, since Iceberg decimals need a precision and scale.
var DefaultNumeric = types.T{Kind: types.Numeric, Width: 38, Scale: 10}

// ToIceberg maps a SQL type to the Iceberg type that stores it.
func ToIceberg(t types.T) (iceberg.Type, error) {
	switch t.Kind {
	case types.Bool:
		return iceberg.PrimitiveTypes.Bool, nil
	case types.Int2, types.Int4:
		return iceberg.PrimitiveTypes.Int32, nil
	case types.Int8:
		return iceberg.PrimitiveTypes.Int64, nil
	case types.Float4:
		return iceberg.PrimitiveTypes.Float32, nil
	case types.Float8:
		return iceberg.PrimitiveTypes.Float64, nil
	case types.Numeric:
		if t.Width < 0 {
			t = DefaultNumeric
		}
		return iceberg.DecimalTypeOf(int(t.Width), int(t.Scale)), nil
	case types.Text, types.Varchar, types.Char, types.JSON, types.JSONB:
		return iceberg.PrimitiveTypes.String, nil
	case types.Bytea:
		return iceberg.PrimitiveTypes.Binary, nil
	case types.Date:
		return iceberg.PrimitiveTypes.Date, nil
	case types.Time:
		return iceberg.PrimitiveTypes.Time, nil
	case types.Timestamp:
		return iceberg.PrimitiveTypes.Timestamp, nil
	case types.TimestampTZ:
		return iceberg.PrimitiveTypes.TimestampTz, nil
	case types.UUID:
		return iceberg.PrimitiveTypes.UUID, nil
	case types.Array:
		return listOf(t)
	}
	return nil, fmt.Errorf("type %s cannot be stored in a table", t)
}

// FromIceberg maps an Iceberg type to the SQL type Loam reads it as, for
// tables whose exact types were not recorded.
func FromIceberg(t iceberg.Type) (types.T, bool) {
	switch tt := t.(type) {
	case iceberg.BooleanType:
		return types.TBool, true
	case iceberg.Int32Type:
		return types.TInt4, true
	case iceberg.Int64Type:
		return types.TInt8, true
	case iceberg.Float32Type:
		return types.TFloat4, true
	case iceberg.Float64Type:
		return types.TFloat8, true
	case iceberg.DecimalType:
		return types.T{Kind: types.Numeric, Width: int32(tt.Precision()), Scale: int32(tt.Scale())}, true
	case iceberg.StringType:
		return types.TText, true
	case iceberg.BinaryType, iceberg.FixedType:
		return types.TBytea, true
	case iceberg.DateType:
		return types.TDate, true
	case iceberg.TimeType:
		return types.TTime, true
	case iceberg.TimestampType:
		return types.TTimestamp, true
	case iceberg.TimestampTzType:
		return types.TTimestampTZ, true
	case iceberg.UUIDType:
		return types.TUUID, true
	case *iceberg.ListType:
		if et, ok := FromIceberg(tt.Element); ok && et.Kind != types.Array {
			return types.ArrayOf(et.Kind), true
		}
	}
	return types.T{}, false
}

// TypeKey is the stable text a type is recorded as in TypesProperty.
func TypeKey(t types.T) string {
	if t.Kind == types.Array {
		return TypeKey(types.Of(t.Elem)) + "[]"
	}
	name := [...]string{types.Bool: "bool", types.Int2: "int2", types.Int4: "int4", types.Int8: "int8",
		types.Float4: "float4", types.Float8: "float8", types.Numeric: "numeric", types.Text: "text",
		types.Varchar: "varchar", types.Char: "bpchar", types.Bytea: "bytea", types.Date: "date",
		types.Time: "time", types.Timestamp: "timestamp", types.TimestampTZ: "timestamptz",
		types.UUID: "uuid", types.JSON: "json", types.JSONB: "jsonb", types.Interval: "interval", types.Unknown: "unknown"}[t.Kind]
	switch {
	case t.Width >= 0 && t.Kind == types.Numeric:
		return fmt.Sprintf("%s(%d,%d)", name, t.Width, t.Scale)
	case t.Width >= 0:
		return fmt.Sprintf("%s(%d)", name, t.Width)
	}
	return name
}

// ParseTypeKey reads what TypeKey wrote.
func ParseTypeKey(s string) (types.T, bool) {
	if elem, ok := strings.CutSuffix(s, "[]"); ok {
		et, ok := ParseTypeKey(elem)
		if !ok || et.Kind == types.Array {
			return types.T{}, false
		}
		return types.ArrayOf(et.Kind), true
	}
	name, mods := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		name, mods = s[:i], s[i+1:len(s)-1]
	}
	kinds := map[string]types.Kind{"bool": types.Bool, "int2": types.Int2, "int4": types.Int4, "int8": types.Int8,
		"float4": types.Float4, "float8": types.Float8, "numeric": types.Numeric, "text": types.Text,
		"varchar": types.Varchar, "bpchar": types.Char, "bytea": types.Bytea, "date": types.Date,
		"time": types.Time, "timestamp": types.Timestamp, "timestamptz": types.TimestampTZ,
		"uuid": types.UUID, "json": types.JSON, "jsonb": types.JSONB}
	k, ok := kinds[name]
	if !ok {
		return types.T{}, false
	}
	t := types.Of(k)
	if mods != "" {
		parts := strings.Split(mods, ",")
		w, err := strconv.Atoi(parts[0])
		if err != nil {
			return types.T{}, false
		}
		t.Width = int32(w)
		if len(parts) == 2 {
			sc, err := strconv.Atoi(parts[1])
			if err != nil {
				return types.T{}, false
			}
			t.Scale = int32(sc)
		}
	}
	return t, true
}

// EncodeTypes renders the TypesProperty value for a schema's columns.
func EncodeTypes(ids []int, ts []types.T) string {
	m := make(map[string]string, len(ids))
	for i, id := range ids {
		m[strconv.Itoa(id)] = TypeKey(ts[i])
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// ColumnTypes returns the SQL type of each top-level field of sc, from the
// recorded property where present, else from the Iceberg type.
func ColumnTypes(sc *iceberg.Schema, props iceberg.Properties) ([]types.T, error) {
	recorded := map[string]string{}
	if v, ok := props[TypesProperty]; ok {
		_ = json.Unmarshal([]byte(v), &recorded)
	}
	fields := sc.Fields()
	out := make([]types.T, len(fields))
	for i, f := range fields {
		if key, ok := recorded[strconv.Itoa(f.ID)]; ok {
			if t, ok := ParseTypeKey(key); ok {
				out[i] = t
				continue
			}
		}
		t, ok := FromIceberg(f.Type)
		if !ok {
			return nil, fmt.Errorf("column %q has Iceberg type %s, which Loam cannot read yet", f.Name, f.Type)
		}
		out[i] = t
	}
	return out, nil
}

// FromArrow converts an array read from Iceberg into Loam's representation
// of type t. The result is a new reference the caller releases.
func FromArrow(a arrow.Array, t types.T) (arrow.Array, error) {
	want := t.Arrow()
	if arrow.TypeEqual(a.DataType(), want) {
		a.Retain()
		return a, nil
	}
	if t.Kind == types.Array {
		return textFromList(a, t)
	}
	n := a.Len()
	switch src := a.(type) {
	case *array.Int32:
		if t.Kind == types.Int2 {
			b := array.NewInt16Builder(memory.DefaultAllocator)
			b.Reserve(n)
			for i := 0; i < n; i++ {
				if src.IsNull(i) {
					b.AppendNull()
				} else {
					b.UnsafeAppend(int16(src.Value(i)))
				}
			}
			return b.NewArray(), nil
		}
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		if p, s, ok := t.Decimal(); ok {
			return rescaleDecimals(src, scale, p, s)
		}
		// An unconstrained NUMERIC is stored at DefaultNumeric's fixed
		// scale; reading drops the zeros that scale added, so 1.5 comes
		// back as 1.5 (PostgreSQL would also keep zeros a value was written
		// with, as in 2.50: that is lost).
		trim := t.Kind == types.Numeric && t.Width < 0
		return textArray(a, func(i int) string {
			var d types.Dec
			d.U.Set(src.Value(i).BigInt())
			d.Scale = scale
			if trim {
				return trimZeros(d.String())
			}
			return d.String()
		}), nil
	case *extensions.UUIDArray:
		return textArray(a, func(i int) string { return src.Value(i).String() }), nil
	case *array.FixedSizeBinary:
		if t.Kind == types.UUID {
			return textArray(a, func(i int) string {
				u, _ := uuid.FromBytes(src.Value(i))
				return u.String()
			}), nil
		}
		return bytesArray(a, src.Value), nil
	case *array.LargeString:
		return textArray(a, src.Value), nil
	case *array.LargeBinary:
		return bytesArray(a, src.Value), nil
	}
	// Same bytes, another label (timestamp time zone names, say).
	if sameLayout(a.DataType(), want) {
		d := array.NewData(want, n, a.Data().Buffers(), nil, a.NullN(), a.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	return nil, fmt.Errorf("cannot read %s as %s", a.DataType(), t)
}

func sameLayout(a, b arrow.DataType) bool {
	fa, ok1 := a.(arrow.FixedWidthDataType)
	fb, ok2 := b.(arrow.FixedWidthDataType)
	return ok1 && ok2 && fa.BitWidth() == fb.BitWidth() && a.ID() == b.ID()
}

// ToArrow converts a Loam array of type t into the Arrow type dt that the
// Iceberg table's schema expects.
func ToArrow(a arrow.Array, t types.T, dt arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(a.DataType(), dt) {
		a.Retain()
		return a, nil
	}
	n := a.Len()
	switch dst := dt.(type) {
	case *arrow.ListType:
		return listFromText(a, t, dt, dst.Elem())
	case *arrow.Decimal128Type:
		if src, ok := a.(*array.Decimal128); ok {
			return rescaleDecimals(src, src.DataType().(*arrow.Decimal128Type).Scale, dst.Precision, dst.Scale)
		}
		if src, ok := a.(*array.Decimal256); ok {
			return narrowDecimals(src, dst)
		}
		src := a.(*array.String)
		b := array.NewDecimal128Builder(memory.DefaultAllocator, dst)
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if src.IsNull(i) {
				b.AppendNull()
				continue
			}
			// Numeric text as a numeric(p,s) column holds it reads
			// without math/big.
			if v, ok := types.ScaledDecimal(src.Value(i), dst.Scale); ok && types.Pow10Fits(v, dst.Precision) {
				b.Append(decimal128.FromI64(v))
				continue
			}
			d, err := types.ParseDec(src.Value(i))
			if err != nil {
				return nil, err
			}
			if d, err = d.Fit(dst.Precision, dst.Scale); err != nil {
				return nil, err
			}
			b.Append(decimal128.FromBigInt(new(big.Int).Set(&d.U)))
		}
		return b.NewArray(), nil
	case *extensions.UUIDType:
		src := a.(*array.String)
		b := extensions.NewUUIDBuilder(memory.DefaultAllocator)
		for i := 0; i < n; i++ {
			if src.IsNull(i) {
				b.AppendNull()
				continue
			}
			u, err := uuid.Parse(src.Value(i))
			if err != nil {
				return nil, err
			}
			b.Append(u)
		}
		return b.NewArray(), nil
	}
	if src, ok := a.(*array.Int16); ok && dt.ID() == arrow.INT32 {
		b := array.NewInt32Builder(memory.DefaultAllocator)
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if src.IsNull(i) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(int32(src.Value(i)))
			}
		}
		return b.NewArray(), nil
	}
	if sameLayout(a.DataType(), dt) {
		d := array.NewData(dt, n, a.Data().Buffers(), nil, a.NullN(), a.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	return nil, fmt.Errorf("cannot store %s as %s", t, dt)
}

// textArray builds a string array of a's length, NULL where a is, with
// the other values from value.
func textArray(a arrow.Array, value func(i int) string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(value(i))
		}
	}
	return b.NewArray()
}

// bytesArray is textArray for binary values.
func bytesArray(a arrow.Array, value func(i int) []byte) arrow.Array {
	b := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(value(i))
		}
	}
	return b.NewArray()
}

// trimZeros drops trailing zeros after a decimal point, and the point when
// nothing follows it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// rescaleDecimals converts scaled integers at scale from into
// Decimal128(p, s), rounding half away from zero, 22003 past p digits.
func rescaleDecimals(src *array.Decimal128, from, p, s int32) (arrow.Array, error) {
	b := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: p, Scale: s})
	defer b.Release()
	b.Reserve(src.Len())
	for i := 0; i < src.Len(); i++ {
		if src.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, ok := types.RescaleNum(src.Value(i), from, s)
		if !ok || !types.NumFitsPrecision(v, p) {
			return nil, types.DecimalOverflow(p, s)
		}
		b.UnsafeAppend(v)
	}
	return b.NewArray(), nil
}

// narrowDecimals stores a wide decimal (an arithmetic result of up to 76
// digits) in Decimal128(p, s), rounding to the scale, 22003 past p digits.
func narrowDecimals(src *array.Decimal256, dst *arrow.Decimal128Type) (arrow.Array, error) {
	scale := src.DataType().(*arrow.Decimal256Type).Scale
	b := array.NewDecimal128Builder(memory.DefaultAllocator, dst)
	defer b.Release()
	b.Reserve(src.Len())
	for i := 0; i < src.Len(); i++ {
		if src.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, err := types.DecToNum(types.WideToDec(src.Value(i), scale), dst.Precision, dst.Scale)
		if err != nil {
			return nil, err
		}
		b.UnsafeAppend(v)
	}
	return b.NewArray(), nil
}
