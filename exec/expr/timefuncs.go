package expr

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Date/time functions of PostgreSQL 15. They register into Builtins from
// init so that other files adding functions do not touch one table.

// unknownAt is an Ambiguous test: the argument at i is an untyped literal.
func unknownAt(i int) func([]types.T) bool {
	return func(args []types.T) bool { return len(args) > i && args[i].Kind == types.Unknown }
}

func init() {
	for _, n := range []string{"extract", "date_part", "date_trunc"} {
		b := timeBuiltins[n]
		b.Ambiguous = unknownAt(1)
		timeBuiltins[n] = b
	}
	age := timeBuiltins["age"]
	// age(unknown) fits age(xid), age(timestamp) and age(timestamptz);
	// with two untyped literals only the timestamp pairs fit, and
	// timestamptz, the preferred type, wins.
	age.Ambiguous = func(args []types.T) bool {
		return len(args) == 1 && args[0].Kind == types.Unknown
	}
	timeBuiltins["age"] = age
	for name, b := range timeBuiltins {
		Builtins[name] = b
	}
}

// timeUnit is a field or precision name of extract, date_part, date_trunc.
type timeUnit uint8

const (
	uNone timeUnit = iota
	uMicroseconds
	uMilliseconds
	uSecond
	uMinute
	uHour
	uDay
	uWeek
	uMonth
	uQuarter
	uYear
	uDecade
	uCentury
	uMillennium
	uEpoch
	uDow
	uIsodow
	uDoy
	uIsoyear
	uJulian
	uTimezone
	uTimezoneHour
	uTimezoneMinute
)

var unitNames = map[string]timeUnit{
	"microsecond": uMicroseconds, "microseconds": uMicroseconds, "us": uMicroseconds, "usec": uMicroseconds, "usecs": uMicroseconds, "usecond": uMicroseconds, "useconds": uMicroseconds,
	"millisecond": uMilliseconds, "milliseconds": uMilliseconds, "ms": uMilliseconds, "msec": uMilliseconds, "msecs": uMilliseconds, "msecond": uMilliseconds, "mseconds": uMilliseconds,
	"second": uSecond, "seconds": uSecond, "s": uSecond, "sec": uSecond, "secs": uSecond,
	"minute": uMinute, "minutes": uMinute, "m": uMinute, "min": uMinute, "mins": uMinute,
	"hour": uHour, "hours": uHour, "h": uHour, "hr": uHour, "hrs": uHour,
	"day": uDay, "days": uDay, "d": uDay,
	"week": uWeek, "weeks": uWeek, "w": uWeek,
	"month": uMonth, "months": uMonth, "mon": uMonth, "mons": uMonth,
	"quarter": uQuarter, "qtr": uQuarter,
	"year": uYear, "years": uYear, "y": uYear, "yr": uYear, "yrs": uYear,
	"decade": uDecade, "decades": uDecade, "dec": uDecade, "decs": uDecade,
	"century": uCentury, "centuries": uCentury, "c": uCentury, "cent": uCentury,
	"millennium": uMillennium, "millennia": uMillennium, "millenniums": uMillennium, "mil": uMillennium, "mils": uMillennium,
	"epoch": uEpoch, "dow": uDow, "isodow": uIsodow, "doy": uDoy, "isoyear": uIsoyear,
	"julian": uJulian, "j": uJulian,
	"timezone": uTimezone, "timezone_h": uTimezoneHour, "timezone_hour": uTimezoneHour, "timezone_m": uTimezoneMinute, "timezone_minute": uTimezoneMinute,
}

func parseUnit(s string, t types.T) (timeUnit, error) {
	u, ok := unitNames[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		return uNone, pgerr.New(pgerr.InvalidParameterValue, "unit %q not recognized for type %s", s, t)
	}
	return u, nil
}

func unitNotSupported(s string, t types.T) error {
	return pgerr.New(pgerr.FeatureNotSupported, "unit %q not supported for type %s", s, t)
}

// tsArg is the timestamp type a datetime argument is read as: an untyped
// literal or a date is a timestamptz, PostgreSQL's preferred datetime type.
func tsArg(t types.T) (types.T, bool) {
	switch t.Kind {
	case types.Unknown, types.Date, types.TimestampTZ:
		return types.TTimestampTZ, true
	case types.Timestamp:
		return types.TTimestamp, true
	}
	return types.TUnknown, false
}

// ageType is the argument type of the age overload PostgreSQL picks:
// age(timestamp, timestamp) when every argument casts to timestamp
// implicitly (unknown, date, timestamp) and one is a timestamp (more exact
// matches), else age(timestamptz, timestamptz), which every date/time
// argument reaches by an implicit cast and which is the preferred type.
func ageType(args []types.T) (types.T, bool) {
	toTS, exact := true, false
	for _, a := range args {
		switch a.Kind {
		case types.Timestamp:
			exact = true
		case types.Unknown, types.Date:
		case types.TimestampTZ:
			toTS = false
		default:
			return types.TUnknown, false
		}
	}
	if toTS && exact {
		return types.TTimestamp, true
	}
	return types.TTimestampTZ, true
}

func isTextArg(t types.T) bool { return t.IsString() }

// constString returns the text of a constant argument.
func constString(e Expr) (string, bool, bool) {
	d, ok := IsConst(e)
	if !ok {
		return "", false, false
	}
	return d.S, d.Null, true
}

// ---- field extraction ----

// fieldVal is a field's value: N / 10^Scale, or for julian a numeric
// computed apart (Num) and a float (F).
type fieldVal struct {
	N     int64
	Scale int
	Num   string
	F     float64
	HasF  bool
}

// tsField extracts a field from a wall clock w (µs since 1970); inst is
// the instant and off the zone offset (µs) for a timestamptz.
func tsField(u timeUnit, w int64, tz bool, off int64, inst int64) (fieldVal, bool) {
	days := floorDiv(w, usPerDay)
	tod := w - days*usPerDay
	if f, ok := clockField(u, tod); ok {
		return f, true
	}
	y, m, d := civil(days)
	switch u {
	case uDay:
		return fieldVal{N: int64(d)}, true
	case uMonth:
		return fieldVal{N: int64(m)}, true
	case uQuarter:
		return fieldVal{N: int64((m-1)/3 + 1)}, true
	case uWeek:
		_, wk := isoWeek(days)
		return fieldVal{N: int64(wk)}, true
	case uIsoyear:
		iy, _ := isoWeek(days)
		if iy <= 0 {
			iy--
		}
		return fieldVal{N: int64(iy)}, true
	case uYear:
		if y <= 0 {
			return fieldVal{N: int64(y - 1)}, true
		}
		return fieldVal{N: int64(y)}, true
	case uDecade:
		if y >= 0 {
			return fieldVal{N: int64(y / 10)}, true
		}
		return fieldVal{N: int64(-((8 - (y - 1)) / 10))}, true
	case uCentury:
		if y > 0 {
			return fieldVal{N: int64((y + 99) / 100)}, true
		}
		return fieldVal{N: int64(-((99 - (y - 1)) / 100))}, true
	case uMillennium:
		if y > 0 {
			return fieldVal{N: int64((y + 999) / 1000)}, true
		}
		return fieldVal{N: int64(-((999 - (y - 1)) / 1000))}, true
	case uDow:
		return fieldVal{N: floorMod(days+4, 7)}, true
	case uIsodow:
		dow := floorMod(days+4, 7)
		if dow == 0 {
			dow = 7
		}
		return fieldVal{N: dow}, true
	case uDoy:
		return fieldVal{N: days - daysFromCivil(y, 1, 1) + 1}, true
	case uJulian:
		j := days + 2440588
		num := types.DecFromInt(j)
		frac := types.DecFromInt(tod)
		div := types.DecFromInt(usPerDay)
		q, _ := frac.Div(&div)
		sum := num.Add(&q)
		return fieldVal{Num: sum.String(), F: float64(j) + (float64(tod/1e6)+float64(tod%1e6)/1e6)/86400, HasF: true}, true
	case uEpoch:
		e := w
		if tz {
			e = inst
		}
		return fieldVal{N: e, Scale: 6, F: float64(e) / 1e6, HasF: true}, true
	case uTimezone:
		if tz {
			return fieldVal{N: off / 1e6}, true
		}
	case uTimezoneHour:
		if tz {
			return fieldVal{N: off / 3600e6}, true
		}
	case uTimezoneMinute:
		if tz {
			return fieldVal{N: off / 60e6 % 60}, true
		}
	}
	return fieldVal{}, false
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// isoWeek gives the ISO 8601 year and week of a day.
func isoWeek(days int64) (int, int) {
	// The Thursday of this ISO week decides its year.
	dow := floorMod(days+3, 7) // Monday = 0
	thu := days - dow + 3
	y, _, _ := civil(thu)
	jan1 := daysFromCivil(y, 1, 1)
	return y, int((thu-jan1)/7) + 1
}

// dateField extracts a field from a date for extract(… FROM date).
func dateField(u timeUnit, days int64) (fieldVal, bool) {
	switch u {
	case uDay, uMonth, uQuarter, uWeek, uIsoyear, uYear, uDecade, uCentury, uMillennium, uDow, uIsodow, uDoy:
		return tsField(u, days*usPerDay, false, 0, 0)
	case uJulian:
		return fieldVal{N: days + 2440588}, true
	case uEpoch:
		return fieldVal{N: days * 86400}, true
	}
	return fieldVal{}, false
}

// clockField extracts the fields of a time of day, or of an interval's
// time part, from its microseconds: seconds and below within the minute,
// minutes within the hour, and whole hours.
func clockField(u timeUnit, us int64) (fieldVal, bool) {
	switch u {
	case uMicroseconds:
		return fieldVal{N: us % 60e6}, true
	case uMilliseconds:
		return fieldVal{N: us % 60e6, Scale: 3, F: float64(us%60e6/1e6*1000) + float64(us%1e6)/1000.0, HasF: true}, true
	case uSecond:
		return fieldVal{N: us % 60e6, Scale: 6, F: float64(us%60e6/1e6) + float64(us%1e6)/1e6, HasF: true}, true
	case uMinute:
		return fieldVal{N: us / 60e6 % 60}, true
	case uHour:
		return fieldVal{N: us / 3600e6}, true
	}
	return fieldVal{}, false
}

// intervalField extracts a field from an interval.
func intervalField(u timeUnit, iv types.IntervalValue) (fieldVal, bool) {
	us := iv.Micros
	if f, ok := clockField(u, us); ok {
		return f, true
	}
	switch u {
	case uDay:
		return fieldVal{N: int64(iv.Days)}, true
	case uMonth:
		return fieldVal{N: int64(iv.Months % 12)}, true
	case uQuarter:
		return fieldVal{N: int64(iv.Months%12/3 + 1)}, true
	case uYear:
		return fieldVal{N: int64(iv.Months / 12)}, true
	case uDecade:
		return fieldVal{N: int64(iv.Months / 120)}, true
	case uCentury:
		return fieldVal{N: int64(iv.Months / 1200)}, true
	case uMillennium:
		return fieldVal{N: int64(iv.Months / 12000)}, true
	case uEpoch:
		// A year is 365.25 days, a month 30.
		secs := int64(365.25*86400*float64(iv.Months/12)) + (int64(30*(iv.Months%12))+int64(iv.Days))*86400
		return fieldVal{N: secs*1e6 + us, Scale: 6, F: float64(us)/1e6 + float64(secs), HasF: true}, true
	}
	return fieldVal{}, false
}

func (f fieldVal) numeric() string {
	if f.Num != "" {
		return f.Num
	}
	return string(appendScaled(nil, f.N, f.Scale))
}

func (f fieldVal) float() float64 {
	if f.HasF {
		return f.F
	}
	return float64(f.N)
}

// appendScaled prints n / 10^scale with exactly scale decimals.
func appendScaled(buf []byte, n int64, scale int) []byte {
	if scale == 0 {
		return strconv.AppendInt(buf, n, 10)
	}
	u := uint64(n)
	if n < 0 {
		buf = append(buf, '-')
		u = -u
	}
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], u, 10)
	if len(d) <= scale {
		buf = append(buf, '0', '.')
		for i := len(d); i < scale; i++ {
			buf = append(buf, '0')
		}
		return append(buf, d...)
	}
	buf = append(buf, d[:len(d)-scale]...)
	buf = append(buf, '.')
	return append(buf, d[len(d)-scale:]...)
}

// extractDatum is extract (numeric) or date_part (float8) of one value.
func extractDatum(c *Ctx, unit string, d types.Datum, numeric bool) (types.Datum, error) {
	u, err := parseUnit(unit, d.T)
	if err != nil {
		return types.Datum{}, err
	}
	if neg, inf := infiniteTime(d); inf {
		if d.T.Kind == types.Date {
			if _, ok := dateField(u, 0); !ok {
				return types.Datum{}, unitNotSupported(unit, d.T)
			}
		}
		return infinitePart(u, neg, numeric), nil
	}
	var f fieldVal
	ok := false
	switch d.T.Kind {
	case types.Timestamp:
		f, ok = tsField(u, d.I, false, 0, d.I)
	case types.TimestampTZ:
		z := newZoneCache(c.Loc)
		off := z.offsetAt(d.I)
		f, ok = tsField(u, d.I+off, true, off, d.I)
	case types.Date:
		f, ok = dateField(u, d.I)
	case types.Interval:
		if u == uWeek || u == uDow || u == uIsodow || u == uDoy || u == uIsoyear || u == uJulian || u >= uTimezone {
			return types.Datum{}, unitNotSupported(unit, d.T)
		}
		f, ok = intervalField(u, d.Interval())
	case types.Time:
		if u <= uHour || u == uEpoch {
			f, ok = tsField(u, d.I, false, 0, d.I)
		}
	}
	if !ok {
		return types.Datum{}, unitNotSupported(unit, d.T)
	}
	if numeric {
		return types.Datum{T: types.TNumeric, S: f.numeric()}, nil
	}
	return types.Float8Datum(f.float()), nil
}

// infiniteTime says whether d is a date or timestamp ±infinity, and which.
func infiniteTime(d types.Datum) (neg, inf bool) {
	switch d.T.Kind {
	case types.Date:
		return d.I == types.DateNegInf, types.IsInfDate(d.I)
	case types.Timestamp, types.TimestampTZ:
		return d.I == types.TimestampNegInf, types.IsInfTimestamp(d.I)
	}
	return false, false
}

// infinitePart is extract/date_part of ±infinity as PostgreSQL 15 gives
// it: ±Infinity for the units that grow with time, NULL for the others.
func infinitePart(u timeUnit, neg, numeric bool) types.Datum {
	switch u {
	case uYear, uDecade, uCentury, uMillennium, uJulian, uIsoyear, uEpoch:
		if numeric {
			if neg {
				return types.Datum{T: types.TNumeric, S: "-Infinity"}
			}
			return types.Datum{T: types.TNumeric, S: "Infinity"}
		}
		if neg {
			return types.Float8Datum(math.Inf(-1))
		}
		return types.Float8Datum(math.Inf(1))
	}
	if numeric {
		return types.NullOf(types.TNumeric)
	}
	return types.NullOf(types.TFloat8)
}

// extractVec is extract/date_part over a timestamp column with a constant
// field: a typed loop, one zone lookup per zone period.
func extractVec(numeric bool) VecFunc {
	return func(c *Ctx, args []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
		unit, null, ok := constString(args[0])
		k := args[1].Type().Kind
		if !ok || null || (k != types.Timestamp && k != types.TimestampTZ) || vals[1] == nil {
			return nil, nil // constant or not a timestamp: the row path
		}
		u, err := parseUnit(unit, args[1].Type())
		if err != nil {
			return nil, err
		}
		tz := k == types.TimestampTZ
		if _, ok := tsField(u, 0, tz, 0, 0); !ok {
			return nil, unitNotSupported(unit, args[1].Type())
		}
		a := vals[1]
		in := arrow.GetValues[int64](a.Data(), 1)
		if hasInfinity(in) {
			return nil, nil // ±infinity: the row path
		}
		z := newZoneCache(c.Loc)
		// The epoch of a timestamptz needs neither zone nor calendar.
		epoch := u == uEpoch && tz
		if numeric {
			// Numeric travels as text: write all values into one buffer.
			offsets := make([]int32, len(in)+1)
			data := make([]byte, 0, len(in)*18)
			for i, v := range in {
				if a.IsValid(i) {
					if epoch {
						data = appendScaled(data, v, 6)
					} else {
						w, off := v, int64(0)
						if tz {
							off = z.offsetAt(v)
							w += off
						}
						f, _ := tsField(u, w, tz, off, v)
						if f.Num != "" {
							data = append(data, f.Num...)
						} else {
							data = appendScaled(data, f.N, f.Scale)
						}
					}
				}
				offsets[i+1] = int32(len(data))
			}
			return stringArray(offsets, data, a), nil
		}
		out := make([]float64, len(in))
		if epoch {
			for i, v := range in {
				out[i] = float64(v) / 1e6
			}
			return fixedArray(out, a), nil
		}
		for i, v := range in {
			w, off := v, int64(0)
			if tz {
				off = z.offsetAt(v)
				w += off
			}
			f, _ := tsField(u, w, tz, off, v)
			out[i] = f.float()
		}
		return fixedArray(out, a), nil
	}
}

// stringArray wraps offsets and bytes as a string array with the validity
// of in.
func stringArray(offsets []int32, data []byte, in arrow.Array) arrow.Array {
	n := len(offsets) - 1
	var bitmap *memory.Buffer
	if in.NullN() > 0 {
		bitmap = memory.NewResizableBuffer(memory.DefaultAllocator)
		bitmap.Resize((n + 7) / 8)
		bits := bitmap.Bytes()
		for i := range bits {
			bits[i] = 0
		}
		for i := 0; i < n; i++ {
			if in.IsValid(i) {
				bits[i/8] |= 1 << (i % 8)
			}
		}
	}
	d := array.NewData(arrow.BinaryTypes.String, n,
		[]*memory.Buffer{bitmap, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(data)}, nil, in.NullN(), 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// ---- date_trunc ----

// truncWall truncates a wall clock to a unit.
func truncWall(u timeUnit, w int64) (int64, bool) {
	switch u {
	case uMicroseconds:
		return w, true
	case uMilliseconds:
		return floorDiv(w, 1000) * 1000, true
	case uSecond:
		return floorDiv(w, 1e6) * 1e6, true
	case uMinute:
		return floorDiv(w, 60e6) * 60e6, true
	case uHour:
		return floorDiv(w, 3600e6) * 3600e6, true
	case uDay:
		return floorDiv(w, usPerDay) * usPerDay, true
	case uWeek:
		days := floorDiv(w, usPerDay)
		return (days - floorMod(days+3, 7)) * usPerDay, true
	}
	days := floorDiv(w, usPerDay)
	y, m, _ := civil(days)
	switch u {
	case uMonth:
	case uQuarter:
		m = (m-1)/3*3 + 1
	case uYear:
		m = 1
	case uDecade:
		m = 1
		if y > 0 {
			y = y / 10 * 10
		} else {
			y = -((8-(y-1))/10)*10 + 1
		}
	case uCentury:
		m = 1
		if y > 0 {
			y = (y+99)/100*100 - 99
		} else {
			y = -((99-(y-1))/100)*100 + 1
		}
	case uMillennium:
		m = 1
		if y > 0 {
			y = (y+999)/1000*1000 - 999
		} else {
			y = -((999-(y-1))/1000)*1000 + 1
		}
	default:
		return 0, false
	}
	return daysFromCivil(y, m, 1) * usPerDay, true
}

// hasInfinity says whether a timestamp column holds ±infinity, which the
// typed loops leave to the row path.
func hasInfinity(in []int64) bool {
	for _, v := range in {
		if types.IsInfTimestamp(v) {
			return true
		}
	}
	return false
}

func dateTruncDatum(c *Ctx, a []types.Datum) (types.Datum, error) {
	d := a[1]
	if (d.T.Kind == types.Timestamp || d.T.Kind == types.TimestampTZ) && types.IsInfTimestamp(d.I) {
		return d, nil // PostgreSQL returns ±infinity before reading the unit
	}
	u, err := parseUnit(a[0].S, d.T)
	if err != nil {
		return types.Datum{}, err
	}
	switch d.T.Kind {
	case types.Interval:
		return intervalTrunc(a[0].S, u, d.Interval())
	case types.Timestamp:
		r, ok := truncWall(u, d.I)
		if !ok {
			return types.Datum{}, unitNotSupported(a[0].S, d.T)
		}
		return types.Int(d.T, r), nil
	}
	loc := c.Loc
	if len(a) == 3 {
		if loc, err = LookupZone(a[2].S); err != nil {
			return types.Datum{}, err
		}
	}
	z := newZoneCache(loc)
	r, ok := truncWall(u, z.local(d.I))
	if !ok {
		return types.Datum{}, unitNotSupported(a[0].S, d.T)
	}
	if u <= uHour && u != uNone {
		// Below a day PostgreSQL keeps the value's own offset (no redotz).
		return types.Int(d.T, r-z.offsetAt(d.I)), nil
	}
	return types.Int(d.T, z.instant(r)), nil
}

func intervalTrunc(unit string, u timeUnit, iv types.IntervalValue) (types.Datum, error) {
	var r types.IntervalValue
	switch u {
	case uMillennium:
		r.Months = iv.Months / 12000 * 12000
	case uCentury:
		r.Months = iv.Months / 1200 * 1200
	case uDecade:
		r.Months = iv.Months / 120 * 120
	case uYear:
		r.Months = iv.Months / 12 * 12
	case uQuarter:
		r.Months = iv.Months/12*12 + iv.Months%12/3*3
	case uMonth:
		r.Months = iv.Months
	case uDay:
		r.Months, r.Days = iv.Months, iv.Days
	case uHour, uMinute, uSecond, uMilliseconds, uMicroseconds:
		r = iv
		unit := map[timeUnit]int64{uHour: 3600e6, uMinute: 60e6, uSecond: 1e6, uMilliseconds: 1000, uMicroseconds: 1}[u]
		r.Micros = iv.Micros / unit * unit
	case uWeek:
		return types.Datum{}, pgerr.New(pgerr.FeatureNotSupported, "unit %q not supported for type interval", unit).
			WithHint("Months usually have fractional weeks.")
	default:
		return types.Datum{}, unitNotSupported(unit, types.TInterval)
	}
	return types.IntervalDatum(r), nil
}

// dateTruncVec truncates a timestamp column to a constant unit in a typed
// loop.
func dateTruncVec(c *Ctx, args []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
	unit, null, ok := constString(args[0])
	t := args[1].Type()
	if !ok || null || (t.Kind != types.Timestamp && t.Kind != types.TimestampTZ) || vals[1] == nil {
		return nil, nil // constant or not a timestamp: the row path
	}
	loc := c.Loc
	if len(args) == 3 {
		zn, znull, ok := constString(args[2])
		if !ok || znull {
			return nil, nil
		}
		var err error
		if loc, err = LookupZone(zn); err != nil {
			return nil, err
		}
	}
	u, err := parseUnit(unit, t)
	if err != nil {
		return nil, err
	}
	if _, ok := truncWall(u, 0); !ok {
		return nil, unitNotSupported(unit, t)
	}
	a := vals[1]
	in := arrow.GetValues[int64](a.Data(), 1)
	if hasInfinity(in) {
		return nil, nil // ±infinity: the row path
	}
	out := make([]int64, len(in))
	if t.Kind == types.Timestamp || isUTC(loc) {
		var step int64
		switch u {
		case uMicroseconds:
			step = 1
		case uMilliseconds:
			step = 1000
		case uSecond:
			step = 1e6
		case uMinute:
			step = 60e6
		case uHour:
			step = 3600e6
		case uDay:
			step = usPerDay
		}
		if step > 0 {
			for i, v := range in {
				r := v - v/step*step
				if r < 0 {
					r += step
				}
				out[i] = v - r
			}
		} else {
			for i, v := range in {
				out[i], _ = truncWall(u, v)
			}
		}
	} else {
		z := newZoneCache(loc)
		for i, v := range in {
			if a.IsNull(i) {
				continue
			}
			off := z.offsetAt(v)
			r, _ := truncWall(u, v+off)
			if u <= uHour {
				out[i] = r - off
			} else {
				out[i] = z.instant(r)
			}
		}
	}
	return typedArray(a.DataType(), arrow.GetBytes(out), len(out), a), nil
}

// ---- date_bin ----

func dateBinDatum(_ *Ctx, a []types.Datum) (types.Datum, error) {
	if types.IsInfTimestamp(a[1].I) {
		return a[1], nil // as PostgreSQL's timestamp_bin, before any check
	}
	iv := a[0].Interval()
	if iv.Months != 0 {
		return types.Datum{}, pgerr.New(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	stride := int64(iv.Days)*usPerDay + iv.Micros
	if stride <= 0 {
		return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "stride must be greater than zero")
	}
	ts, origin := a[1].I, a[2].I
	diff := ts - origin
	delta := diff - diff%stride
	if origin > ts && stride > 1 && diff%stride != 0 {
		delta -= stride
	}
	return types.Int(a[1].T, origin+delta), nil
}

// dateBinVec bins a timestamp column by a constant stride and origin.
func dateBinVec(c *Ctx, args []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
	sd, ok1 := IsConst(args[0])
	od, ok2 := IsConst(args[2])
	if !ok1 || !ok2 || sd.Null || od.Null || vals[1] == nil {
		return nil, nil
	}
	if _, err := dateBinDatum(c, []types.Datum{sd, od, od}); err != nil {
		return nil, err // a stride with months, or not positive
	}
	iv := sd.Interval()
	stride, origin := int64(iv.Days)*usPerDay+iv.Micros, od.I
	a := vals[1]
	in := arrow.GetValues[int64](a.Data(), 1)
	if hasInfinity(in) {
		return nil, nil // ±infinity: the row path
	}
	out := make([]int64, len(in))
	for i, v := range in {
		diff := v - origin
		r := diff % stride
		delta := diff - r
		if origin > v && stride > 1 && r != 0 {
			delta -= stride
		}
		out[i] = origin + delta
	}
	return typedArray(a.DataType(), arrow.GetBytes(out), len(out), a), nil
}

// ---- age ----

type tmParts struct {
	year, mon, mday, hour, min, sec int
	fsec                            int64
}

func splitWall(w int64) tmParts {
	days := floorDiv(w, usPerDay)
	tod := w - days*usPerDay
	y, m, d := civil(days)
	return tmParts{year: y, mon: m, mday: d, hour: int(tod / 3600e6), min: int(tod / 60e6 % 60), sec: int(tod / 1e6 % 60), fsec: tod % 1e6}
}

// age is PostgreSQL's timestamp_age on two wall clocks: field-by-field
// difference with borrows, months by the calendar.
func age(w1, w2 int64) types.IntervalValue {
	t1, t2 := splitWall(w1), splitWall(w2)
	fsec := t1.fsec - t2.fsec
	sec := t1.sec - t2.sec
	min := t1.min - t2.min
	hour := t1.hour - t2.hour
	mday := t1.mday - t2.mday
	mon := t1.mon - t2.mon
	year := t1.year - t2.year
	neg := w1 < w2
	if neg {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	for fsec < 0 {
		fsec += 1e6
		sec--
	}
	for sec < 0 {
		sec += 60
		min--
	}
	for min < 0 {
		min += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		mday--
	}
	for mday < 0 {
		if neg {
			mday += daysInMonth(t1.year, t1.mon)
		} else {
			mday += daysInMonth(t2.year, t2.mon)
		}
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if neg {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	return types.IntervalValue{Months: int32(year*12 + mon), Days: int32(mday),
		Micros: ((int64(hour)*60+int64(min))*60+int64(sec))*1e6 + fsec}
}

func ageDatum(c *Ctx, a []types.Datum) (types.Datum, error) {
	var w1, w2 int64
	tz := a[len(a)-1].T.Kind == types.TimestampTZ
	z := newZoneCache(c.Loc)
	if len(a) == 1 {
		// age(x) is age(current_date, x): midnight of today.
		today := floorDiv(z.local(c.Now.UnixMicro()), usPerDay) * usPerDay
		w1, w2 = today, a[0].I
	} else {
		w1, w2 = a[0].I, a[1].I
		if tz {
			w1 = z.local(w1)
		}
	}
	if tz {
		w2 = z.local(w2)
	}
	return types.IntervalDatum(age(w1, w2)), nil
}

// ---- justify ----

func justifyHours(iv types.IntervalValue) types.IntervalValue {
	iv.Days += int32(iv.Micros / usPerDay)
	iv.Micros %= usPerDay
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += usPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= usPerDay
		iv.Days++
	}
	return iv
}

func justifyDays(iv types.IntervalValue) types.IntervalValue {
	iv.Months += iv.Days / 30
	iv.Days %= 30
	if iv.Months > 0 && iv.Days < 0 {
		iv.Days += 30
		iv.Months--
	} else if iv.Months < 0 && iv.Days > 0 {
		iv.Days -= 30
		iv.Months++
	}
	return iv
}

func justifyInterval(iv types.IntervalValue) types.IntervalValue {
	if (iv.Days > 0 && iv.Micros > 0) || (iv.Days < 0 && iv.Micros < 0) {
		iv.Months += iv.Days / 30
		iv.Days %= 30
	}
	iv.Days += int32(iv.Micros / usPerDay)
	iv.Micros %= usPerDay
	iv.Months += iv.Days / 30
	iv.Days %= 30
	if iv.Months > 0 && (iv.Days < 0 || (iv.Days == 0 && iv.Micros < 0)) {
		iv.Days += 30
		iv.Months--
	} else if iv.Months < 0 && (iv.Days > 0 || (iv.Days == 0 && iv.Micros > 0)) {
		iv.Days -= 30
		iv.Months++
	}
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += usPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= usPerDay
		iv.Days++
	}
	return iv
}

// ---- make_* ----

func makeDate(y, m, d int64) (int64, error) {
	bad := func() (int64, error) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	if y == 0 || m < 1 || m > 12 || d < 1 || y > 5874897 || y < -4713 {
		return bad()
	}
	yy := int(y)
	if yy < 0 {
		yy++ // 1 BC is year 0
	}
	if int(d) > daysInMonth(yy, int(m)) {
		return bad()
	}
	return daysFromCivil(yy, int(m), int(d)), nil
}

func makeTimestamp(a []types.Datum) (int64, error) {
	days, err := makeDate(a[0].I, a[1].I, a[2].I)
	if err != nil {
		return 0, err
	}
	h, mi, s := a[3].I, a[4].I, a[5].F
	if h < 0 || h > 24 || mi < 0 || mi > 59 || s < 0 || s > 60 || math.IsNaN(s) ||
		(h == 24 && (mi != 0 || s != 0)) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, mi, types.FormatFloat8(s))
	}
	us := int64(math.RoundToEven(s * 1e6))
	return days*usPerDay + (h*60+mi)*60e6 + us, nil
}

func makeInterval(a []types.Datum) (types.Datum, error) {
	for _, d := range a[:6] {
		if d.Null {
			return types.NullOf(types.TInterval), nil
		}
	}
	y, mo, w, d, h, mi := a[0].I, a[1].I, a[2].I, a[3].I, a[4].I, a[5].I
	secs := a[6].F
	months := y*12 + mo
	days := w*7 + d
	if months != int64(int32(months)) || days != int64(int32(days)) || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return types.Datum{}, intervalOutOfRange()
	}
	us := math.RoundToEven(secs*1e6) + float64(h)*3600e6 + float64(mi)*60e6
	if math.Abs(us) > types.MaxIntervalMicros {
		return types.Datum{}, intervalOutOfRange()
	}
	return types.IntervalDatum(types.IntervalValue{Months: int32(months), Days: int32(days), Micros: int64(us)}), nil
}

// ---- AT TIME ZONE ----

func timezoneDatum(_ *Ctx, a []types.Datum) (types.Datum, error) {
	d := a[1]
	var loc *time.Location
	if a[0].T.Kind == types.Interval {
		iv := a[0].Interval()
		if iv.Months != 0 || iv.Days != 0 {
			return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "interval time zone %q must not include months or days", iv.String())
		}
		loc = time.FixedZone("", int(iv.Micros/1e6))
	} else {
		var err error
		if loc, err = LookupZone(a[0].S); err != nil {
			return types.Datum{}, err
		}
	}
	z := newZoneCache(loc)
	if d.T.Kind == types.TimestampTZ {
		return types.Int(types.TTimestamp, z.local(d.I)), nil
	}
	return types.Int(types.TTimestampTZ, z.instant(d.I)), nil
}

// timezoneVec is AT TIME ZONE with a constant zone over a column.
func timezoneVec(c *Ctx, args []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
	zd, ok := IsConst(args[0])
	if !ok || zd.Null || zd.T.Kind == types.Interval || vals[1] == nil {
		return nil, nil
	}
	loc, err := LookupZone(zd.S)
	if err != nil {
		return nil, err
	}
	z := newZoneCache(loc)
	a := vals[1]
	in := arrow.GetValues[int64](a.Data(), 1)
	out := make([]int64, len(in))
	toLocal := args[1].Type().Kind == types.TimestampTZ
	for i, v := range in {
		if a.IsNull(i) {
			continue
		}
		if toLocal {
			out[i] = z.local(v)
		} else {
			out[i] = z.instant(v)
		}
	}
	t := types.TTimestampTZ
	if toLocal {
		t = types.TTimestamp
	}
	return typedArray(t.Arrow(), arrow.GetBytes(out), len(out), a), nil
}

// ---- registration ----

var zeroInt = types.Int(types.TInt4, 0)

func nArgs(n int, t types.T) func([]types.T) (types.T, bool) {
	return func(args []types.T) (types.T, bool) { return t, len(args) == n }
}

func constTypes(ts ...types.T) func([]types.T) []types.T {
	return func([]types.T) []types.T { return ts }
}

func nowAs(t types.T) Builtin {
	return Builtin{Result: nArgs(0, t), Coerce: sameAsArgs,
		Fn: func(c *Ctx, _ []types.Datum) (types.Datum, error) {
			return types.Int(t, c.Now.UnixMicro()), nil
		}}
}

// extractBuiltin is extract (numeric) or date_part (float8) of
// (text, datetime).
func extractBuiltin(numeric bool) Builtin {
	rt := types.TFloat8
	if numeric {
		rt = types.TNumeric
	}
	argT := func(args []types.T) (types.T, bool) {
		if len(args) != 2 || !isTextArg(args[0]) {
			return types.TUnknown, false
		}
		switch args[1].Kind {
		case types.Interval, types.Time:
			return args[1], true
		case types.Date:
			if numeric {
				return types.TDate, true
			}
			return types.TTimestamp, true // date_part(text, date) reads a timestamp
		}
		return tsArg(args[1])
	}
	return Builtin{
		Result: func(args []types.T) (types.T, bool) { _, ok := argT(args); return rt, ok },
		Coerce: func(args []types.T) []types.T { t, _ := argT(args); return []types.T{types.TText, t} },
		Strict: true,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			return extractDatum(c, a[0].S, a[1], numeric)
		},
		Vec: extractVec(numeric),
	}
}

var timeBuiltins = map[string]Builtin{
	"now":                   nowAs(types.TTimestampTZ),
	"transaction_timestamp": nowAs(types.TTimestampTZ),
	"statement_timestamp": {Result: nArgs(0, types.TTimestampTZ), Coerce: sameAsArgs,
		Fn: func(c *Ctx, _ []types.Datum) (types.Datum, error) {
			at := c.Stmt
			if at.IsZero() {
				at = c.Now
			}
			return types.Int(types.TTimestampTZ, at.UnixMicro()), nil
		}},
	"clock_timestamp": {Result: nArgs(0, types.TTimestampTZ), Coerce: sameAsArgs,
		Fn: func(*Ctx, []types.Datum) (types.Datum, error) {
			return types.Int(types.TTimestampTZ, time.Now().UnixMicro()), nil
		}},
	"extract":   extractBuiltin(true),
	"date_part": extractBuiltin(false),
	"date_trunc": {
		Result: func(args []types.T) (types.T, bool) {
			if (len(args) != 2 && len(args) != 3) || !isTextArg(args[0]) {
				return types.TUnknown, false
			}
			if args[1].Kind == types.Interval && len(args) == 2 {
				return types.TInterval, true
			}
			t, ok := tsArg(args[1])
			if len(args) == 3 && (t.Kind != types.TimestampTZ || !isTextArg(args[2])) {
				return t, false
			}
			return t, ok
		},
		Coerce: func(args []types.T) []types.T {
			out := []types.T{types.TText, types.TInterval}
			if args[1].Kind != types.Interval {
				out[1], _ = tsArg(args[1])
			}
			if len(args) == 3 {
				out = append(out, types.TText)
			}
			return out
		},
		Strict: true, Fn: dateTruncDatum, Vec: dateTruncVec,
	},
	"date_bin": {
		Result: func(args []types.T) (types.T, bool) {
			if len(args) != 3 || (args[0].Kind != types.Interval && args[0].Kind != types.Unknown) {
				return types.TUnknown, false
			}
			t, ok := tsArg(args[1])
			if args[1].Kind == types.Unknown {
				t, ok = tsArg(args[2])
			}
			if t2, ok2 := tsArg(args[2]); !ok2 || (args[2].Kind != types.Unknown && args[1].Kind != types.Unknown && t2.Kind != t.Kind) {
				return t, false
			}
			return t, ok
		},
		Coerce: func(args []types.T) []types.T {
			t, _ := tsArg(args[1])
			if args[1].Kind == types.Unknown {
				t, _ = tsArg(args[2])
			}
			return []types.T{types.TInterval, t, t}
		},
		Strict: true, Fn: dateBinDatum, Vec: dateBinVec,
	},
	"age": {
		Result: func(args []types.T) (types.T, bool) {
			_, ok := ageType(args)
			return types.TInterval, ok && (len(args) == 1 || len(args) == 2)
		},
		Coerce: func(args []types.T) []types.T {
			t, _ := ageType(args)
			out := make([]types.T, len(args))
			for i := range out {
				out[i] = t
			}
			return out
		},
		Strict: true, Fn: ageDatum,
	},
	"justify_hours":    justifyBuiltin(justifyHours),
	"justify_days":     justifyBuiltin(justifyDays),
	"justify_interval": justifyBuiltin(justifyInterval),
	"make_date": {Result: nArgs(3, types.TDate), Coerce: constTypes(types.TInt4, types.TInt4, types.TInt4), Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			d, err := makeDate(a[0].I, a[1].I, a[2].I)
			return types.Int(types.TDate, d), err
		}},
	"make_timestamp": {Result: nArgs(6, types.TTimestamp), Coerce: constTypes(types.TInt4, types.TInt4, types.TInt4, types.TInt4, types.TInt4, types.TFloat8), Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			us, err := makeTimestamp(a)
			return types.Int(types.TTimestamp, us), err
		}},
	"make_timestamptz": {
		Result: func(args []types.T) (types.T, bool) { return types.TTimestampTZ, len(args) == 6 || len(args) == 7 },
		Coerce: func(args []types.T) []types.T {
			return []types.T{types.TInt4, types.TInt4, types.TInt4, types.TInt4, types.TInt4, types.TFloat8, types.TText}[:len(args)]
		},
		Strict: true,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			us, err := makeTimestamp(a)
			if err != nil {
				return types.Datum{}, err
			}
			loc := c.Loc
			if len(a) == 7 {
				if loc, err = LookupZone(a[6].S); err != nil {
					return types.Datum{}, err
				}
			}
			return types.Int(types.TTimestampTZ, newZoneCache(loc).instant(us)), nil
		}},
	"make_interval": {
		Result: func(args []types.T) (types.T, bool) { return types.TInterval, len(args) <= 7 },
		Coerce: func(args []types.T) []types.T {
			return []types.T{types.TInt4, types.TInt4, types.TInt4, types.TInt4, types.TInt4, types.TInt4, types.TFloat8}[:len(args)]
		},
		Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			full := []types.Datum{zeroInt, zeroInt, zeroInt, zeroInt, zeroInt, zeroInt, types.Float8Datum(0)}
			copy(full, a)
			return makeInterval(full)
		},
		ArgNames:    []string{"years", "months", "weeks", "days", "hours", "mins", "secs"},
		ArgDefaults: []types.Datum{zeroInt, zeroInt, zeroInt, zeroInt, zeroInt, zeroInt, types.Float8Datum(0)},
	},
	"timezone": {
		Result: func(args []types.T) (types.T, bool) {
			if len(args) != 2 || !(isTextArg(args[0]) || args[0].Kind == types.Interval) {
				return types.TUnknown, false
			}
			switch args[1].Kind {
			case types.TimestampTZ, types.Unknown, types.Date:
				return types.TTimestamp, true
			case types.Timestamp:
				return types.TTimestampTZ, true
			}
			return types.TUnknown, false
		},
		Coerce: func(args []types.T) []types.T {
			z := types.TText
			if args[0].Kind == types.Interval {
				z = types.TInterval
			}
			if args[1].Kind == types.Timestamp {
				return []types.T{z, types.TTimestamp}
			}
			return []types.T{z, types.TTimestampTZ}
		},
		Strict: true, Fn: timezoneDatum, Vec: timezoneVec,
	},
	"to_timestamp": {
		Result: func(args []types.T) (types.T, bool) {
			return types.TTimestampTZ, len(args) == 1 && (args[0].IsNumeric() || args[0].Kind == types.Unknown) ||
				len(args) == 2 && isTextArg(args[0]) && isTextArg(args[1])
		},
		Coerce: func(args []types.T) []types.T {
			if len(args) == 1 {
				return []types.T{types.TFloat8}
			}
			return []types.T{types.TText, types.TText}
		},
		Strict: true,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			if len(a) == 2 {
				us, err := toTimestamp(c, a[0].S, a[1].S, true)
				return types.Int(types.TTimestampTZ, us), err
			}
			f := a[0].F
			if math.IsNaN(f) {
				return types.Datum{}, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp cannot be NaN")
			}
			us := math.RoundToEven(f * 1e6)
			if math.IsInf(f, 0) || us < float64(minTimestamp) || us >= 9.2e18 {
				return types.Datum{}, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %q", types.FormatFloat8(f))
			}
			return types.Int(types.TTimestampTZ, int64(us)), nil
		}},
	"to_date": {
		Result: nArgs(2, types.TDate), Coerce: textArgs, Strict: true,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			us, err := toTimestamp(c, a[0].S, a[1].S, false)
			return types.Int(types.TDate, floorDiv(us, usPerDay)), err
		}},
	// date(x) is the cast x::date in function form.
	"date": {
		Result: func(args []types.T) (types.T, bool) {
			if len(args) != 1 {
				return types.TDate, false
			}
			switch args[0].Kind {
			case types.Date, types.Timestamp, types.TimestampTZ, types.Unknown, types.Text, types.Varchar, types.Char:
				return types.TDate, true
			}
			return types.TDate, false
		},
		Coerce: func(args []types.T) []types.T {
			if args[0].Kind == types.Unknown {
				return []types.T{types.TText}
			}
			return args
		},
		Strict: true,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			return CastDatum(a[0], types.TDate, c.Loc)
		}},
	"isfinite": {
		Result: func(args []types.T) (types.T, bool) {
			if len(args) != 1 {
				return types.TBool, false
			}
			switch args[0].Kind {
			case types.Date, types.Timestamp, types.TimestampTZ, types.Interval:
				return types.TBool, true
			}
			return types.TBool, false
		},
		Coerce: sameAsArgs, Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			_, inf := infiniteTime(a[0])
			return types.BoolDatum(!inf), nil
		}},
}

func justifyBuiltin(f func(types.IntervalValue) types.IntervalValue) Builtin {
	return Builtin{Result: nArgs(1, types.TInterval), Coerce: constTypes(types.TInterval), Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.IntervalDatum(f(a[0].Interval())), nil
		}}
}
