package window

import (
	"math"
	"sort"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
)

// offsets are a frame's constant start and end offsets: row or group
// counts for ROWS and GROUPS, values of the order key's kind for RANGE.
type offsets struct {
	n  [2]int64
	d  [2]types.Datum
	iv [2]types.IntervalValue // for date and timestamp keys
}

func negative(d types.Datum) bool {
	switch d.T.Kind {
	case types.Text:
		return false // an interval, checked apart
	case types.Float4, types.Float8:
		return d.F < 0
	case types.Numeric:
		return len(d.S) > 0 && d.S[0] == '-'
	}
	return d.I < 0
}

// rangeBound is where a RANGE offset frame bound of row i falls: the first
// row whose key is past (for an end) or not before (for a start) the
// current key moved by the offset, in the direction of the ordering.
// A row with a NULL key has its NULL peers as the offset bound; rows with
// NULL keys are never within an offset of a non-NULL key.
func (w *win) rangeBound(off types.Datum, iv types.IntervalValue, preceding, end bool, i, ps, pe int) int {
	key := w.spec.Order[0]
	t, a := key.Expr.Type(), w.order[0]
	if a.IsNull(i) {
		g := w.peerOf[i]
		if end {
			return w.peers[g+1]
		}
		return w.peers[g]
	}
	// The non-NULL rows of the partition: NULLs sit at one end.
	lo, hi := ps, pe
	if key.NullsFirst {
		lo = ps + sort.Search(pe-ps, func(k int) bool { return !a.IsNull(ps + k) })
	} else {
		hi = ps + sort.Search(pe-ps, func(k int) bool { return a.IsNull(ps + k) })
	}
	cur := types.DatumAt(t, a, i)
	// Moving "back" is towards the frame start: down for ascending keys.
	back := preceding != key.Desc
	var target types.Datum
	switch t.Kind {
	case types.Date, types.Timestamp, types.TimestampTZ:
		target = shiftTime(cur, iv, back, w.ec.Loc)
	default:
		target = shift(cur, off, back)
	}
	// cmp orders values as the window does, so positions are monotone.
	cmp := func(k int) int {
		c := compareKey(types.DatumAt(t, a, k), target)
		if key.Desc {
			c = -c
		}
		return c
	}
	if end {
		return lo + sort.Search(hi-lo, func(k int) bool { return cmp(lo+k) > 0 })
	}
	return lo + sort.Search(hi-lo, func(k int) bool { return cmp(lo+k) >= 0 })
}

// shift is v minus (down) or plus the offset, saturating for integers so
// that comparisons stay right at the ends of the range.
func shift(v, off types.Datum, down bool) types.Datum {
	switch v.T.Kind {
	case types.Int2, types.Int4, types.Int8:
		o := off.I
		if down {
			if v.I < math.MinInt64+o {
				return types.Int(v.T, math.MinInt64)
			}
			return types.Int(v.T, v.I-o)
		}
		if v.I > math.MaxInt64-o {
			return types.Int(v.T, math.MaxInt64)
		}
		return types.Int(v.T, v.I+o)
	case types.Float4, types.Float8:
		if down {
			return types.Datum{T: v.T, F: v.F - off.F}
		}
		return types.Datum{T: v.T, F: v.F + off.F}
	}
	x, _ := types.ParseDec(v.S)
	y, _ := types.ParseDec(off.S)
	var r types.Dec
	if down {
		r = x.Sub(&y)
	} else {
		r = x.Add(&y)
	}
	return types.Datum{T: v.T, S: r.String()}
}

func compareKey(a, b types.Datum) int {
	switch a.T.Kind {
	case types.Date:
		// Shifted dates are timestamps.
		a = types.Int(types.TTimestamp, a.I*usPerDay)
	case types.Float4, types.Float8:
		switch {
		case a.F < b.F:
			return -1
		case a.F > b.F:
			return 1
		}
		return 0
	case types.Numeric:
		return expr.CompareNumericText(a.S, b.S)
	}
	switch {
	case a.I < b.I:
		return -1
	case a.I > b.I:
		return 1
	}
	return 0
}

const usPerDay = 86400 * 1000000

// intervalNegative compares an interval with zero as PostgreSQL does, a
// month counting 30 days.
func intervalNegative(iv types.IntervalValue) bool {
	return (int64(iv.Months)*30+int64(iv.Days))*usPerDay+iv.Micros < 0
}

// shiftTime is a date or timestamp plus or minus an interval, as a
// timestamp of the same kind (dates become timestamps at midnight): months
// first, clamped to the month's last day, then days, in the session zone
// for timestamptz, then the microseconds.
func shiftTime(v types.Datum, iv types.IntervalValue, down bool, loc *time.Location) types.Datum {
	us, kind := v.I, v.T.Kind
	if kind == types.Date {
		us, kind = v.I*usPerDay, types.Timestamp
	}
	months, days, micros := int(iv.Months), int(iv.Days), iv.Micros
	if down {
		months, days, micros = -months, -days, -micros
	}
	zone := time.UTC
	if kind == types.TimestampTZ && loc != nil {
		zone = loc
	}
	t := time.UnixMicro(us).In(zone)
	if months != 0 || days != 0 {
		y, m, d := t.Date()
		mi := int(m) - 1 + months
		y += mi / 12
		if mi %= 12; mi < 0 {
			mi += 12
			y--
		}
		if last := time.Date(y, time.Month(mi+2), 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
			d = last
		}
		t = time.Date(y, time.Month(mi+1), d+days, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), zone)
	}
	return types.Int(types.Of(kind), t.UnixMicro()+micros)
}
