package expr

import (
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

const (
	usPerDay = int64(86400e6)
	// PostgreSQL's timestamp range, 4714-11-24 BC to 294277-01-01 AD
	// (exclusive), in µs since 1970, where the top is cut at int64.
	minTimestamp = int64(-211813488000000000)
	maxTimestamp = int64(math.MaxInt64) // PostgreSQL's end (294277 AD) is past int64 µs since 1970
)

func timestampOutOfRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
}

func intervalOutOfRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date.
func civil(days int64) (y, m, d int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// addMonths moves a day number by n calendar months, clamping the day of
// month to the target month's length (Jan 31 + 1 month = Feb 28/29).
func addMonths(days int64, n int32) int64 {
	y, m, d := civil(days)
	mm := int64(y)*12 + int64(m-1) + int64(n)
	y, m = int(floorDiv(mm, 12)), int(mm-floorDiv(mm, 12)*12)+1
	if dim := daysInMonth(y, m); d > dim {
		d = dim
	}
	return daysFromCivil(y, m, d)
}

// isUTC reports whether loc needs no zone rules.
func isUTC(loc *time.Location) bool { return loc == nil || loc == time.UTC }

// TimestampAddInterval adds iv to a timestamp (µs since 1970). For a
// timestamptz, loc is the session zone: months and days move the local
// wall clock, the time part moves the instant, as PostgreSQL does.
func TimestampAddInterval(us int64, iv types.IntervalValue, tz bool, loc *time.Location) (int64, error) {
	if types.IsInfTimestamp(us) {
		return us, nil // ±infinity plus anything stays itself
	}
	// Months, then days, each moving the wall clock and finding its instant
	// again, as timestamptz_pl_interval does: the steps differ where the
	// month step lands in a daylight-saving gap.
	step := func(us int64, months, days int32) (int64, error) {
		local := us
		if tz {
			local = zoneShift(us, loc, false)
		}
		d := floorDiv(local, usPerDay)
		tod := local - d*usPerDay
		if months != 0 {
			d = addMonths(d, months)
		}
		d += int64(days)
		if d > maxTimestamp/usPerDay || d < minTimestamp/usPerDay-1 {
			return 0, timestampOutOfRange()
		}
		local = d*usPerDay + tod
		if tz {
			return zoneShift(local, loc, true), nil
		}
		return local, nil
	}
	var err error
	if iv.Months != 0 {
		if us, err = step(us, iv.Months, 0); err != nil {
			return 0, err
		}
	}
	if iv.Days != 0 {
		if us, err = step(us, 0, iv.Days); err != nil {
			return 0, err
		}
	}
	r := us + iv.Micros
	if (iv.Micros > 0 && r < us) || (iv.Micros < 0 && r > us) || r < minTimestamp || r >= maxTimestamp {
		return 0, timestampOutOfRange()
	}
	return r, nil
}

// TimestampDiff is a - b as PostgreSQL's timestamp_mi gives it: whole
// days and the remaining time, both with the sign of the difference.
func TimestampDiff(a, b int64) (types.IntervalValue, error) {
	d := a - b
	if (b < 0 && d < a) || (b > 0 && d > a) {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	return types.IntervalValue{Days: int32(d / usPerDay), Micros: d % usPerDay}, nil
}

// IntervalAdd adds two intervals field by field.
func IntervalAdd(a, b types.IntervalValue) (types.IntervalValue, error) {
	m := int64(a.Months) + int64(b.Months)
	d := int64(a.Days) + int64(b.Days)
	us := a.Micros + b.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (a.Micros > 0 && b.Micros > 0 && us < 0) || (a.Micros < 0 && b.Micros < 0 && us >= 0) ||
		us > types.MaxIntervalMicros || us < -types.MaxIntervalMicros {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	return types.IntervalValue{Months: int32(m), Days: int32(d), Micros: us}, nil
}

// tsRound rounds to microsecond precision as PostgreSQL's TSROUND does.
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

func fitsInt32(f float64) bool { return !math.IsNaN(f) && f >= math.MinInt32 && f < math.MaxInt32+1 }

// IntervalMul multiplies an interval by a number as interval_mul does,
// cascading fractional months into days and fractional days into time.
func IntervalMul(iv types.IntervalValue, f float64) (types.IntervalValue, error) {
	var r types.IntervalValue
	md := float64(iv.Months) * f
	if !fitsInt32(md) {
		return r, intervalOutOfRange()
	}
	r.Months = int32(md)
	dd := float64(iv.Days) * f
	if !fitsInt32(dd) {
		return r, intervalOutOfRange()
	}
	r.Days = int32(dd)
	monthRemDays := tsRound((float64(iv.Months)*f - float64(r.Months)) * 30)
	secRem := tsRound((float64(iv.Days)*f - float64(r.Days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	r.Days += int32(monthRemDays)
	t := math.RoundToEven(float64(iv.Micros)*f + secRem*1e6)
	if math.IsNaN(t) || math.Abs(t) > types.MaxIntervalMicros {
		return r, intervalOutOfRange()
	}
	r.Micros = int64(t)
	return r, nil
}

// IntervalDiv divides an interval by a number as interval_div does.
func IntervalDiv(iv types.IntervalValue, f float64) (types.IntervalValue, error) {
	var r types.IntervalValue
	if f == 0 {
		return r, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	md, dd := float64(iv.Months)/f, float64(iv.Days)/f
	if !fitsInt32(md) || !fitsInt32(dd) {
		return r, intervalOutOfRange()
	}
	r.Months, r.Days = int32(md), int32(dd)
	monthRemDays := tsRound((md - float64(r.Months)) * 30)
	secRem := tsRound((dd - float64(r.Days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	r.Days += int32(monthRemDays)
	t := math.RoundToEven(float64(iv.Micros)/f + secRem*1e6)
	if math.IsNaN(t) || math.Abs(t) > types.MaxIntervalMicros {
		return r, intervalOutOfRange()
	}
	r.Micros = int64(t)
	return r, nil
}

// TimeArith is arithmetic on dates, timestamps and intervals; the planner
// has picked the operand kinds and result type T (see TimeArithType).
type TimeArith struct {
	Op   ArithOp
	L, R Expr
	T    types.T
}

// TimeArithType gives the result type of l op r for date/time operands,
// ok false when PostgreSQL has no such operator. Numbers multiplying or
// dividing an interval are float8.
func TimeArithType(op ArithOp, l, r types.T) (types.T, bool) {
	lk, rk := l.Kind, r.Kind
	isTS := func(k types.Kind) bool { return k == types.Timestamp || k == types.TimestampTZ }
	switch op {
	case Add:
		switch {
		case isTS(lk) && rk == types.Interval:
			return types.Of(lk), true
		case lk == types.Interval && isTS(rk):
			return types.Of(rk), true
		case lk == types.Date && r.IsInteger(), l.IsInteger() && rk == types.Date:
			return types.TDate, true
		case lk == types.Date && rk == types.Interval, lk == types.Interval && rk == types.Date:
			return types.TTimestamp, true
		case lk == types.Date && rk == types.Time, lk == types.Time && rk == types.Date:
			return types.TTimestamp, true
		case lk == types.Interval && rk == types.Interval:
			return types.TInterval, true
		case lk == types.Time && rk == types.Interval, lk == types.Interval && rk == types.Time:
			return types.TTime, true
		}
	case Sub:
		switch {
		case isTS(lk) && rk == types.Interval:
			return types.Of(lk), true
		case lk == types.Date && r.IsInteger():
			return types.TDate, true
		case lk == types.Date && rk == types.Interval:
			return types.TTimestamp, true
		case lk == types.Date && rk == types.Date:
			return types.TInt4, true
		case isTS(lk) && lk == rk:
			return types.TInterval, true
		case lk == types.Interval && rk == types.Interval:
			return types.TInterval, true
		case lk == types.Time && rk == types.Interval:
			return types.TTime, true
		case lk == types.Time && rk == types.Time:
			return types.TInterval, true
		}
	case Mul:
		if lk == types.Interval && r.IsNumeric() || l.IsNumeric() && rk == types.Interval {
			return types.TInterval, true
		}
	case Div:
		if lk == types.Interval && r.IsNumeric() {
			return types.TInterval, true
		}
	}
	return types.TUnknown, false
}

func (e *TimeArith) Type() types.T { return e.T }
func (e *TimeArith) String() string {
	return "(" + e.L.String() + " " + arithNames[e.Op] + " " + e.R.String() + ")"
}

func (e *TimeArith) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	lk, rk := e.L.Type().Kind, e.R.Type().Kind
	// For + the interval (or integer) goes on the right, for * on the left.
	l, r := e.L, e.R
	if e.Op == Add && (lk == types.Interval && rk != types.Interval || lk != types.Date && rk == types.Date) ||
		e.Op == Mul && rk == types.Interval {
		l, r = r, l
		lk, rk = rk, lk
	}
	if lk == types.Timestamp || lk == types.TimestampTZ {
		if rk == types.Interval {
			if d, ok := IsConst(r); ok && !d.Null {
				return tsPlusConst(c, b, l, e.Op, d.Interval(), lk == types.TimestampTZ)
			}
		}
	}
	if lk == types.Date && r.Type().IsInteger() && e.T.Kind == types.Date {
		return dateArith(c, b, l, r, e.Op)
	}
	args, err := evalAll(c, b, []Expr{l, r})
	if err != nil {
		return nil, err
	}
	defer release(args)
	lt, rt := l.Type(), r.Type()
	n := int(b.NumRows())
	return mapDatums(e.T, n, func(i int) (types.Datum, error) {
		x, y := types.DatumAt(lt, args[0], i), types.DatumAt(rt, args[1], i)
		if x.Null || y.Null {
			return types.NullOf(e.T), nil
		}
		return timeArithDatum(c, e.Op, x, y, e.T)
	})
}

// timeArithDatum computes one row; the interval or integer operand of a
// commutative operator is on the right.
func timeArithDatum(c *Ctx, op ArithOp, x, y types.Datum, t types.T) (types.Datum, error) {
	lk, rk := x.T.Kind, y.T.Kind
	switch {
	case (lk == types.Timestamp || lk == types.TimestampTZ || lk == types.Date) && rk == types.Interval:
		us, tz := x.I, lk == types.TimestampTZ
		if lk == types.Date {
			us = x.I * usPerDay
			if inf, ok := types.DateToTimestampInf(x.I); ok {
				us = inf
			}
		}
		iv := y.Interval()
		if op == Sub {
			iv = iv.Neg()
		}
		v, err := TimestampAddInterval(us, iv, tz, c.Loc)
		return types.Int(t, v), err
	case lk == types.Time && rk == types.Interval:
		// Time wraps around midnight; months and days do not move it.
		us := y.I
		if op == Sub {
			us = -us
		}
		return types.Int(t, floorMod(x.I+us%usPerDay, usPerDay)), nil
	case lk == types.Time && rk == types.Time:
		return types.IntervalDatum(types.IntervalValue{Micros: x.I - y.I}), nil
	case lk == types.Date && rk == types.Time:
		if inf, ok := types.DateToTimestampInf(x.I); ok {
			return types.Int(t, inf), nil
		}
		return types.Int(t, x.I*usPerDay+y.I), nil
	case lk == types.Time && rk == types.Date:
		if inf, ok := types.DateToTimestampInf(y.I); ok {
			return types.Int(t, inf), nil
		}
		return types.Int(t, y.I*usPerDay+x.I), nil
	case lk == types.Date && rk == types.Date:
		if types.IsInfDate(x.I) || types.IsInfDate(y.I) {
			return types.Datum{}, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
		}
		return types.Int(t, x.I-y.I), nil
	case lk == rk && (lk == types.Timestamp || lk == types.TimestampTZ):
		if types.IsInfTimestamp(x.I) || types.IsInfTimestamp(y.I) {
			return types.Datum{}, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
		}
		iv, err := TimestampDiff(x.I, y.I)
		return types.IntervalDatum(iv), err
	case lk == types.Interval && rk == types.Interval:
		b := y.Interval()
		if op == Sub {
			b = b.Neg()
		}
		iv, err := IntervalAdd(x.Interval(), b)
		return types.IntervalDatum(iv), err
	case lk == types.Interval:
		f, err := CastDatum(y, types.TFloat8, c.Loc)
		if err != nil {
			return types.Datum{}, err
		}
		var iv types.IntervalValue
		if op == Mul {
			iv, err = IntervalMul(x.Interval(), f.F)
		} else {
			iv, err = IntervalDiv(x.Interval(), f.F)
		}
		return types.IntervalDatum(iv), err
	}
	return types.Datum{}, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", x.T, arithNames[op], y.T)
}

// tsPlusConst adds a constant interval to a timestamp column in a typed
// loop: with no months, and no days in a zone with rules, it is one
// addition a row.
func tsPlusConst(c *Ctx, b arrow.RecordBatch, l Expr, op ArithOp, iv types.IntervalValue, tz bool) (arrow.Array, error) {
	a, err := l.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if op == Sub {
		iv = iv.Neg()
	}
	in := arrow.GetValues[int64](a.Data(), 1)
	out := make([]int64, len(in))
	if iv.Months == 0 && (iv.Days == 0 || !tz || isUTC(c.Loc)) {
		delta := int64(iv.Days)*usPerDay + iv.Micros
		for i, v := range in {
			if types.IsInfTimestamp(v) {
				out[i] = v
				continue
			}
			r := v + delta
			if (r < v) != (delta < 0) || r < minTimestamp || r >= maxTimestamp {
				if a.IsValid(i) {
					return nil, timestampOutOfRange()
				}
			}
			out[i] = r
		}
	} else {
		for i, v := range in {
			if a.IsNull(i) {
				continue
			}
			if out[i], err = TimestampAddInterval(v, iv, tz, c.Loc); err != nil {
				return nil, err
			}
		}
	}
	return typedArray(a.DataType(), arrow.GetBytes(out), len(out), a), nil
}

// dateArith is date ± integer, a typed loop.
func dateArith(c *Ctx, b arrow.RecordBatch, l, r Expr, op ArithOp) (arrow.Array, error) {
	args, err := evalAll(c, b, []Expr{l, r})
	if err != nil {
		return nil, err
	}
	defer release(args)
	d := arrow.GetValues[int32](args[0].Data(), 1)
	k := intsOf(r.Type(), args[1])
	out := make([]int32, len(d))
	for i := range d {
		if types.IsInfDate(int64(d[i])) {
			out[i] = d[i] // ±infinity plus days stays itself
			continue
		}
		v := int64(d[i]) + k[i]
		if op == Sub {
			v = int64(d[i]) - k[i]
		}
		if v != int64(int32(v)) || v < minTimestamp/usPerDay || v >= maxTimestamp/usPerDay {
			if args[0].IsValid(i) && args[1].IsValid(i) {
				return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
			}
		}
		out[i] = int32(v)
	}
	return typedArray(arrow.FixedWidthTypes.Date32, arrow.GetBytes(out), len(out), args...), nil
}

// IntervalNeg is unary minus on an interval.
type IntervalNeg struct{ Arg Expr }

func (e *IntervalNeg) Type() types.T  { return types.TInterval }
func (e *IntervalNeg) String() string { return "(-" + e.Arg.String() + ")" }
func (e *IntervalNeg) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := e.Arg.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	in := arrow.GetValues[arrow.MonthDayNanoInterval](a.Data(), 1)
	out := make([]arrow.MonthDayNanoInterval, len(in))
	for i, v := range in {
		if a.IsValid(i) && (v.Months == math.MinInt32 || v.Days == math.MinInt32 || v.Nanoseconds == math.MinInt64) {
			return nil, intervalOutOfRange()
		}
		out[i] = arrow.MonthDayNanoInterval{Months: -v.Months, Days: -v.Days, Nanoseconds: -v.Nanoseconds}
	}
	return typedArray(arrow.FixedWidthTypes.MonthDayNanoInterval, arrow.GetBytes(out), len(out), a), nil
}

// IntervalSortKeys maps an interval column to float64 spans in µs, which
// order as the intervals do (to 2^53 µs exactly, beyond with rounding).
func IntervalSortKeys(a arrow.Array) arrow.Array {
	in := arrow.GetValues[arrow.MonthDayNanoInterval](a.Data(), 1)
	out := make([]float64, len(in))
	for i, v := range in {
		out[i] = (float64(v.Months)*30+float64(v.Days))*float64(usPerDay) + float64(v.Nanoseconds/1000)
	}
	return fixedArray(out, a)
}
