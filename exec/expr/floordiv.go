package expr

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// FloorDiv is floor(L / R) over numerics, which time bucketing computes on
// every row (Grafana's floor(extract(epoch from ts)/300)*300). Where both
// operands fit in int64 at their scales it divides integers; a batch with
// any other row is evaluated as Orig, the plain floor of the quotient, so
// the results are PostgreSQL's either way.
type FloorDiv struct {
	L, R Expr
	Orig Expr
	// EpochOf, when set, is the timestamp L is extract(epoch from …) of,
	// and R is a constant: the quotient is then taken on the timestamp's
	// microseconds without making numeric texts at all.
	EpochOf Expr
	// Times, when not 0, multiplies the result: floor(a / b) * Times, an
	// integer constant, computed in the same pass.
	Times int64
}

func (e *FloorDiv) Type() types.T  { return types.TNumeric }
func (e *FloorDiv) String() string { return e.Orig.String() }

func (e *FloorDiv) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	if e.EpochOf != nil {
		if out, ok, err := e.epochBuckets(c, b); ok || err != nil {
			return out, err
		}
	}
	l, err := e.L.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	r, err := e.R.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	ls, ok1 := l.(*array.String)
	rs, ok2 := r.(*array.String)
	if !ok1 || !ok2 {
		return e.Orig.Eval(c, b)
	}
	n := ls.Len()
	out := array.NewStringBuilder(memory.DefaultAllocator)
	defer out.Release()
	out.Reserve(n)
	var buf []byte
	for i := 0; i < n; i++ {
		if ls.IsNull(i) || rs.IsNull(i) {
			out.AppendNull()
			continue
		}
		q, ok := floorDivSmall(ls.Value(i), rs.Value(i))
		if ok && e.Times != 0 {
			q, ok = mulSmall(q, e.Times)
		}
		if !ok {
			return e.Orig.Eval(c, b)
		}
		buf = strconv.AppendInt(buf[:0], q, 10)
		out.BinaryBuilder.Append(buf)
	}
	return out.NewArray(), nil
}

// floorDivSmall is floor(a/b) for decimal texts a and b whose digits fit
// in int64 once brought to one scale; ok is false otherwise, and for a
// zero divisor (the general path reports the error).
func floorDivSmall(a, b string) (int64, bool) {
	ma, sa, ok := parseSmallDec(a)
	if !ok {
		return 0, false
	}
	mb, sb, ok := parseSmallDec(b)
	if !ok || mb == 0 {
		return 0, false
	}
	// a/b = (ma·10^sb) / (mb·10^sa)
	if ma, ok = rescaleSmall(ma, sb); !ok {
		return 0, false
	}
	if mb, ok = rescaleSmall(mb, sa); !ok {
		return 0, false
	}
	q := ma / mb
	if (ma%mb != 0) && ((ma < 0) != (mb < 0)) {
		q--
	}
	return q, true
}

// epochBuckets is floor(epoch(ts) / R) for a constant R: with ts in µs and
// R = m·10^-s, that is floor(ts·10^s / (m·10^6)).
func (e *FloorDiv) epochBuckets(c *Ctx, b arrow.RecordBatch) (arrow.Array, bool, error) {
	k, ok := e.R.(*Const)
	if !ok || k.D.Null {
		return nil, false, nil
	}
	m, s, ok := parseSmallDec(k.D.S)
	if !ok || m == 0 {
		return nil, false, nil
	}
	div, ok := rescaleSmall(m, 6)
	if !ok {
		return nil, false, nil
	}
	ts, err := e.EpochOf.Eval(c, b)
	if err != nil {
		return nil, false, err
	}
	defer ts.Release()
	ta, ok := ts.(*array.Timestamp)
	if !ok {
		return nil, false, nil
	}
	n := ta.Len()
	out := array.NewStringBuilder(memory.DefaultAllocator)
	defer out.Release()
	out.Reserve(n)
	var buf []byte
	vals := ta.TimestampValues()
	for i := 0; i < n; i++ {
		if ta.IsNull(i) {
			out.AppendNull()
			continue
		}
		x, ok := rescaleSmall(int64(vals[i]), s)
		if !ok {
			return nil, false, nil
		}
		q := x / div
		if x%div != 0 && (x < 0) != (div < 0) {
			q--
		}
		if e.Times != 0 {
			if q, ok = mulSmall(q, e.Times); !ok {
				return nil, false, nil
			}
		}
		buf = strconv.AppendInt(buf[:0], q, 10)
		out.BinaryBuilder.Append(buf)
	}
	return out.NewArray(), true, nil
}

// mulSmall is a·b, ok false on int64 overflow.
func mulSmall(a, b int64) (int64, bool) {
	p := a * b
	if a != 0 && (p/a != b || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)) {
		return 0, false
	}
	return p, true
}
