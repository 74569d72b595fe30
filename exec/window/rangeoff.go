package window

import (
	"math"
	"sort"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// offsets are a frame's constant start and end offsets: row or group
// counts for ROWS and GROUPS, values for RANGE (of the order key's kind,
// or intervals for date/time keys).
type offsets struct {
	n [2]int64
	d [2]types.Datum
	// bad is a RANGE offset's "invalid preceding or following size".
	// PostgreSQL's in_range raises it only when it compares a row, so it
	// waits for a window with a non-NULL order key.
	bad error
}

func invalidSize() error {
	return pgerr.New(pgerr.InvalidPrecedingOrFollowingSize, "invalid preceding or following size in window function")
}

// negativeOffset says whether a RANGE offset is below zero as in_range
// for the key's kind sees it: time keys ignore an interval's months and
// days (as time plus interval does), the others compare its whole span.
func negativeOffset(key types.Kind, d types.Datum) bool {
	switch d.T.Kind {
	case types.Interval:
		if key == types.Time {
			return d.I < 0
		}
		return types.CmpInterval(d.Interval(), types.IntervalValue{}) < 0
	case types.Float4, types.Float8:
		return d.F < 0
	case types.Numeric:
		return len(d.S) > 0 && d.S[0] == '-'
	}
	return d.I < 0
}

// checkRange is the deferred offset error of a RANGE frame, raised once
// the window has a row with a non-NULL order key.
func (w *win) checkRange(f Frame, offs offsets) error {
	if f.Mode != Range || offs.bad == nil || len(w.order) == 0 {
		return nil
	}
	if w.order[0].NullN() < w.n {
		return offs.bad
	}
	return nil
}

// rangeBound is where a RANGE offset frame bound of row i falls: the first
// row whose key is past (for an end) or not before (for a start) the
// current key moved by the offset, in the direction of the ordering.
// A row with a NULL key has its NULL peers as the offset bound; rows with
// NULL keys are never within an offset of a non-NULL key. An error moving
// the key (a timestamp out of range) is kept in w.err.
func (w *win) rangeBound(off types.Datum, preceding, end bool, i, ps, pe int) int {
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
	target, err := w.shift(cur, off, back)
	if err != nil {
		if w.err == nil {
			w.err = err
		}
		return i
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

// shift is v minus (down) or plus the offset, as in_range computes it.
// Integers saturate so that comparisons stay right at the ends of the
// range; dates move as timestamps (and compare as such in compareKey).
func (w *win) shift(v, off types.Datum, down bool) (types.Datum, error) {
	switch v.T.Kind {
	case types.Int2, types.Int4, types.Int8:
		o := off.I
		if down {
			if v.I < math.MinInt64+o {
				return types.Int(v.T, math.MinInt64), nil
			}
			return types.Int(v.T, v.I-o), nil
		}
		if v.I > math.MaxInt64-o {
			return types.Int(v.T, math.MaxInt64), nil
		}
		return types.Int(v.T, v.I+o), nil
	case types.Float4, types.Float8:
		if down {
			return types.Datum{T: v.T, F: v.F - off.F}, nil
		}
		return types.Datum{T: v.T, F: v.F + off.F}, nil
	case types.Numeric:
		x, _ := types.ParseDec(v.S)
		y, _ := types.ParseDec(off.S)
		var r types.Dec
		if down {
			r = x.Sub(&y)
		} else {
			r = x.Add(&y)
		}
		return types.Datum{T: v.T, S: r.String()}, nil
	case types.Time:
		// in_range_time_interval: the time part only, without wrapping
		// around midnight.
		if down {
			return types.Int(v.T, v.I-off.I), nil
		}
		return types.Int(v.T, v.I+off.I), nil
	case types.Interval:
		iv := off.Interval()
		if down {
			iv = iv.Neg()
		}
		r, err := expr.IntervalAdd(v.Interval(), iv)
		return types.IntervalDatum(r), err
	}
	// Dates, timestamps and timestamptz: timestamp plus interval, in the
	// session zone for timestamptz.
	us, kind := v.I, v.T.Kind
	if kind == types.Date {
		us, kind = v.I*usPerDay, types.Timestamp
		if inf, ok := types.DateToTimestampInf(v.I); ok {
			us = inf
		}
	}
	iv := off.Interval()
	if down {
		iv = iv.Neg()
	}
	r, err := expr.TimestampAddInterval(us, iv, kind == types.TimestampTZ, w.ec.Loc)
	return types.Int(types.Of(kind), r), err
}

func compareKey(a, b types.Datum) int {
	switch a.T.Kind {
	case types.Date:
		// Shifted dates are timestamps.
		us := a.I * usPerDay
		if inf, ok := types.DateToTimestampInf(a.I); ok {
			us = inf
		}
		a = types.Int(types.TTimestamp, us)
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
	case types.Interval:
		return types.CmpInterval(a.Interval(), b.Interval())
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
