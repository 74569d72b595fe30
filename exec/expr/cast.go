package expr

import (
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Cast converts its argument to type T, as CAST(x AS T) or x::T does.
type Cast struct {
	Arg Expr
	T   types.T
}

func (e *Cast) Type() types.T  { return e.T }
func (e *Cast) String() string { return e.Arg.String() + "::" + e.T.String() }

func (e *Cast) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	v, err := e.Arg.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	from := e.Arg.Type()
	n := v.Len()
	if from.Kind == types.Numeric || e.T.Kind == types.Numeric {
		if out, ok, err := castNumeric(v, from, e.T); ok || err != nil {
			return out, err
		}
	}
	switch {
	case from.Kind == e.T.Kind && e.T.Width < 0 && from.Elem == e.T.Elem && arrow.TypeEqual(v.DataType(), e.T.Arrow()):
		v.Retain()
		return v, nil
	case e.T.Kind == types.Text && from.Kind != types.Unknown && from.Kind != types.Bool && from.Kind != types.Char:
		w := types.TextWriter(from, v, c.Loc)
		bld := array.NewStringBuilder(memory.DefaultAllocator)
		bld.Reserve(n)
		var buf []byte
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				bld.AppendNull()
				continue
			}
			buf = w(buf[:0], i)
			bld.Append(string(buf))
		}
		return bld.NewArray(), nil
	case from.IsInteger() && (e.T.Kind == types.Int8 || e.T.Kind == types.Float8):
		ints := intsOf(from, v)
		if e.T.Kind == types.Int8 {
			return fixedArray(ints, v), nil
		}
		fs := make([]float64, n)
		for i, x := range ints {
			fs[i] = float64(x)
		}
		return fixedArray(fs, v), nil
	}
	return mapDatums(e.T, n, func(i int) (types.Datum, error) {
		return CastDatum(types.DatumAt(from, v, i), e.T, c.Loc)
	})
}

// intsOf widens an integer column to int64.
func intsOf(t types.T, a arrow.Array) []int64 {
	switch t.Kind {
	case types.Int2:
		in := arrow.GetValues[int16](a.Data(), 1)
		out := make([]int64, len(in))
		for i, x := range in {
			out[i] = int64(x)
		}
		return out
	case types.Int4:
		in := arrow.GetValues[int32](a.Data(), 1)
		out := make([]int64, len(in))
		for i, x := range in {
			out[i] = int64(x)
		}
		return out
	}
	return append([]int64(nil), arrow.GetValues[int64](a.Data(), 1)...)
}

func cannotCast(from, to types.T) error {
	return pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to)
}

// CastDatum converts one value, with PostgreSQL's rules for each pair.
func CastDatum(d types.Datum, to types.T, loc *time.Location) (types.Datum, error) {
	if d.Null {
		return types.NullOf(to), nil
	}
	from := d.T
	if from.Kind == types.Unknown || from.IsString() && !to.IsString() {
		return types.ParseText(to, d.S, loc)
	}
	if from.Kind == types.JSONB && (to.IsNumeric() || to.Kind == types.Bool) {
		return castJSONBScalar(d, to, loc)
	}
	if to.IsString() || to.Kind == types.JSON || to.Kind == types.JSONB {
		s := types.FormatText(d, loc)
		if from.Kind == types.Bool && to.IsString() {
			// bool's cast to text spells the words out; its output is t/f.
			s = castText(nil, d)
		}
		if from.Kind == types.Char && (to.Kind == types.Text || to.Kind == types.Varchar) {
			// char(n) pads with blanks that do not survive a cast to text.
			s = strings.TrimRight(s, " ")
		}
		if to.Kind == types.JSON || to.Kind == types.JSONB {
			if !from.IsString() && from.Kind != types.JSON && from.Kind != types.JSONB {
				return types.Datum{}, cannotCast(from, to)
			}
		}
		return types.ParseText(to, s, loc)
	}
	out := types.Datum{T: to}
	switch {
	case from.Kind == types.Interval && to.Kind == types.Interval:
		d = types.IntervalDatum(types.AdjustInterval(d.Interval(), to))
		d.T = to
		return d, nil
	case from.Kind == types.Array && to.Kind == types.Array && from.Elem != to.Elem:
		return castArray(d, to, loc)
	case from.Kind == to.Kind:
		if to.Width < 0 {
			d.T = to
			return d, nil
		}
		switch to.Kind {
		case types.Numeric:
			return types.ParseText(to, d.S, loc)
		case types.Time, types.Timestamp, types.TimestampTZ:
			out.I = types.RoundMicros(d.I, to.Width)
			return out, nil
		}
		d.T = to
		return d, nil
	case from.IsInteger() && to.Kind == types.OID:
		// int4 wraps into oid as PostgreSQL's binary-coercible cast does;
		// int8 must fit.
		if from.Kind == types.Int8 && (d.I < 0 || d.I > math.MaxUint32) {
			return out, pgerr.New(pgerr.NumericValueOutOfRange, "OID out of range")
		}
		out.I = int64(uint32(d.I))
		return out, nil
	case from.Kind == types.OID && to.IsInteger():
		switch to.Kind {
		case types.Int4:
			out.I = int64(int32(uint32(d.I)))
		case types.Int8:
			out.I = d.I
		default:
			return out, cannotCast(from, to)
		}
		return out, nil
	case from.IsInteger() && to.IsInteger():
		if err := types.CheckIntRange(to.Kind, d.I); err != nil {
			return out, err
		}
		out.I = d.I
	case from.IsInteger() && (to.Kind == types.Float4 || to.Kind == types.Float8):
		out.F = float64(d.I)
	case from.IsInteger() && to.Kind == types.Numeric:
		dec := types.DecFromInt(d.I)
		return numericOut(dec, to)
	case (from.Kind == types.Float4 || from.Kind == types.Float8) && to.IsInteger():
		if math.IsNaN(d.F) || math.IsInf(d.F, 0) {
			return out, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
		}
		r := math.RoundToEven(d.F)
		if r < -9.223372036854775808e18 || r >= 9.223372036854775808e18 {
			return out, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
		}
		if err := types.CheckIntRange(to.Kind, int64(r)); err != nil {
			return out, err
		}
		out.I = int64(r)
	case from.Kind == types.Float4 && to.Kind == types.Float8:
		// Exact, as PostgreSQL widens: 0.1::real::float8 is
		// 0.10000000149011612 (it was 0.1, read back from the real's
		// shortest text, and real-with-float8 arithmetic differed).
		out.F = float64(float32(d.F))
	case from.Kind == types.Float8 && to.Kind == types.Float4:
		if f := float32(d.F); math.IsInf(float64(f), 0) && !math.IsInf(d.F, 0) {
			return out, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
		}
		out.F = float64(float32(d.F))
	case (from.Kind == types.Float4 || from.Kind == types.Float8) && to.Kind == types.Numeric:
		dec, err := types.DecFromFloat(d.F)
		if err != nil {
			return out, err
		}
		return numericOut(dec, to)
	case from.Kind == types.Numeric && to.IsInteger():
		dec, err := types.ParseDec(d.S)
		if err != nil {
			return out, err
		}
		v, ok := dec.Int64()
		if !ok {
			return out, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
		}
		if err := types.CheckIntRange(to.Kind, v); err != nil {
			return out, err
		}
		out.I = v
	case from.Kind == types.Numeric && (to.Kind == types.Float4 || to.Kind == types.Float8):
		// As PostgreSQL's numeric_float8, through the float's text
		// input: a value beyond the type's range (1e400, 1e-400) is
		// 22003, not ±Infinity or 0.
		f, err := types.ParseText(to, d.S, nil)
		if err != nil {
			return out, err
		}
		out.F = f.F
	case from.Kind == types.Bool && to.Kind == types.Int4, from.Kind == types.Int4 && to.Kind == types.Bool:
		out.I = d.I
		if to.Kind == types.Bool && d.I != 0 {
			out.I = 1
		}
	case from.Kind == types.Date && (to.Kind == types.Timestamp || to.Kind == types.TimestampTZ):
		if inf, ok := types.DateToTimestampInf(d.I); ok {
			out.I = inf
			return out, nil
		}
		out.I = d.I * 86400e6
		if to.Kind == types.TimestampTZ {
			out.I = zoneShift(out.I, loc, true)
		}
	case (from.Kind == types.Timestamp || from.Kind == types.TimestampTZ) && to.Kind == types.Date:
		if inf, ok := types.TimestampToDateInf(d.I); ok {
			out.I = inf
			return out, nil
		}
		us := d.I
		if from.Kind == types.TimestampTZ {
			us = zoneShift(us, loc, false)
		}
		out.I = floorDiv(us, 86400e6)
	case from.Kind == types.Timestamp && to.Kind == types.TimestampTZ:
		out.I = types.RoundMicros(zoneShift(d.I, loc, true), to.Width)
	case from.Kind == types.TimestampTZ && to.Kind == types.Timestamp:
		out.I = types.RoundMicros(zoneShift(d.I, loc, false), to.Width)
	case (from.Kind == types.Timestamp || from.Kind == types.TimestampTZ) && to.Kind == types.Time:
		if types.IsInfTimestamp(d.I) {
			return types.NullOf(to), nil // PostgreSQL's timestamp_time gives NULL
		}
		us := d.I
		if from.Kind == types.TimestampTZ {
			us = zoneShift(us, loc, false)
		}
		out.I = us - floorDiv(us, 86400e6)*86400e6
	default:
		return out, cannotCast(from, to)
	}
	return out, nil
}

func numericOut(dec types.Dec, to types.T) (types.Datum, error) {
	if to.Width >= 0 {
		var err error
		if dec, err = dec.Fit(to.Width, to.Scale); err != nil {
			return types.Datum{}, err
		}
	}
	return types.Datum{T: to, S: dec.String()}, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// zoneShift converts between a UTC instant and the wall clock of loc:
// toUTC reads us as a wall clock in loc and returns its instant.
func zoneShift(us int64, loc *time.Location, toUTC bool) int64 {
	if loc == nil || loc == time.UTC || types.IsInfTimestamp(us) {
		return us
	}
	sec := floorDiv(us, 1e6)
	if !toUTC {
		_, off := time.Unix(sec, 0).In(loc).Zone()
		return us + int64(off)*1e6
	}
	return types.WallToInstant(us, loc)
}

// castArray casts an array element by element (numeric[] to float8[]
// reprints 1.0 as 1), as PostgreSQL's array_map does.
func castArray(d types.Datum, to types.T, loc *time.Location) (types.Datum, error) {
	elems, null, err := types.SplitArrayText(d.S)
	if err != nil {
		return types.Datum{}, err
	}
	from, et := types.Of(d.T.Elem), types.Of(to.Elem)
	buf := []byte{'{'}
	for i, s := range elems {
		if i > 0 {
			buf = append(buf, ',')
		}
		if null[i] {
			buf = append(buf, "NULL"...)
			continue
		}
		e, err := types.ParseText(from, s, loc)
		if err != nil {
			return types.Datum{}, err
		}
		if e, err = CastDatum(e, et, loc); err != nil {
			return types.Datum{}, err
		}
		buf = types.AppendArrayElem(buf, types.FormatText(e, loc))
	}
	return types.Datum{T: to, S: string(append(buf, '}'))}, nil
}
