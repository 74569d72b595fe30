// Package window computes SQL window functions: rows are partitioned and
// ordered per window, and each function appends one column.
package window

import (
	"bytes"
	"context"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Kind is a window function.
type Kind uint8

const (
	RowNumber Kind = iota
	Rank
	DenseRank
	PercentRank
	CumeDist
	Ntile
	Lag
	Lead
	FirstValue
	LastValue
	NthValue
	Aggregate // an aggregate used with OVER
)

// Kinds maps the names of the built-in window functions.
var Kinds = map[string]Kind{
	"row_number": RowNumber, "rank": Rank, "dense_rank": DenseRank,
	"percent_rank": PercentRank, "cume_dist": CumeDist, "ntile": Ntile,
	"lag": Lag, "lead": Lead, "first_value": FirstValue, "last_value": LastValue,
	"nth_value": NthValue,
}

// Mode is how a frame counts: RANGE (by peers), ROWS or GROUPS.
type Mode uint8

const (
	Range Mode = iota
	Rows
	Groups
)

// BoundKind is one end of a frame.
type BoundKind uint8

const (
	UnboundedPreceding BoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// Bound is a frame start or end; Offset is a constant for the offset kinds.
type Bound struct {
	Kind   BoundKind
	Offset expr.Expr
}

// Exclude is a frame's EXCLUDE option.
type Exclude uint8

const (
	ExcludeNoOthers Exclude = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

// Frame is a window frame; the zero value is the default frame (RANGE
// UNBOUNDED PRECEDING to CURRENT ROW).
type Frame struct {
	Mode       Mode
	Start, End Bound
	Exclude    Exclude
}

// DefaultFrame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
var DefaultFrame = Frame{Mode: Range, Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: CurrentRow}}

// Spec is a window's partitioning and ordering: the functions over one
// Spec share a sort.
type Spec struct {
	Partition []expr.Expr
	Order     []exec.SortKey
}

// Func is one window function call over the window Specs[Spec].
type Func struct {
	Kind  Kind
	Args  []expr.Expr // of the non-aggregates
	Agg   agg.Agg     // for Aggregate: its Arg, Arg2 and Filter are evaluated
	T     types.T
	Spec  int
	Frame Frame
}

// String shows the call for EXPLAIN: the function, its arguments and the
// number of its window.
func (f Func) String() string {
	var s string
	if f.Kind == Aggregate {
		s = f.Agg.String()
	} else {
		for name, k := range Kinds {
			if k == f.Kind {
				s = name
			}
		}
		s += "(" + exec.ExprList(f.Args) + ")"
	}
	return s + " OVER w" + strconv.Itoa(f.Spec+1)
}

type op struct {
	in    exec.Operator
	specs []Spec
	funcs []Func
	ec    *expr.Ctx
	ts    []types.T

	out  arrow.RecordBatch
	pos  int64
	done bool
	// Memory: the input held, and the partition-at-a-time run when it
	// outgrew the query's budget (spill.go).
	acct  *mem.Account
	parts *byPartition
}

// New computes funcs over its input, appending one column per function
// after the input columns. It holds its whole input in memory, and emits
// rows in the order of the last window it sorted by.
func New(in exec.Operator, specs []Spec, funcs []Func, ec *expr.Ctx) exec.Operator {
	ts := append([]types.T(nil), in.Types()...)
	for _, f := range funcs {
		ts = append(ts, f.T)
	}
	return &op{in: in, specs: specs, funcs: funcs, ec: ec, ts: ts}
}

func (o *op) Types() []types.T               { return o.ts }
func (o *op) Open(ctx context.Context) error { return o.in.Open(ctx) }
func (o *op) Close() error {
	if o.parts != nil {
		o.parts.close()
		o.parts = nil
	}
	if o.acct != nil {
		o.acct.Clear()
	}
	if o.out != nil {
		o.out.Release()
		o.out = nil
	}
	return o.in.Close()
}

func (o *op) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !o.done {
		o.done = true
		offs, err := o.offsets()
		if err != nil {
			return nil, err
		}
		all, err := o.readAll(ctx, offs)
		if err != nil {
			return nil, err
		}
		if o.parts != nil {
			return o.parts.next(ctx, o)
		}
		if all == nil {
			return nil, nil
		}
		if o.out, err = o.compute(ctx, all, offs); err != nil {
			return nil, err
		}
	}
	if o.parts != nil {
		return o.parts.next(ctx, o)
	}
	if o.out == nil || o.pos >= o.out.NumRows() {
		return nil, nil
	}
	end := min(o.pos+exec.BatchSize, o.out.NumRows())
	rec := o.out.NewSlice(o.pos, end)
	o.pos = end
	return rec, nil
}

// offsets evaluates the constant frame offsets of every window, checking
// them as PostgreSQL does before reading any row.
func (o *op) offsets() ([]offsets, error) {
	offs := make([]offsets, len(o.funcs))
	for i, s := range o.funcs {
		for j, b := range []Bound{s.Frame.Start, s.Frame.End} {
			if b.Kind != OffsetPreceding && b.Kind != OffsetFollowing {
				continue
			}
			which := "starting"
			if j == 1 {
				which = "ending"
			}
			d, err := exec.EvalConst(o.ec, b.Offset)
			if err != nil {
				return nil, err
			}
			if d.Null {
				return nil, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
			}
			if s.Frame.Mode == Range {
				key := o.specs[s.Spec].Order[0].Expr.Type().Kind
				if negativeOffset(key, d) && offs[i].bad == nil {
					offs[i].bad = invalidSize()
				}
				offs[i].d[j] = d
				continue
			}
			if d.I < 0 {
				return nil, pgerr.New(pgerr.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", which)
			}
			offs[i].n[j] = d.I
		}
	}
	return offs, nil
}

func (o *op) compute(ctx context.Context, all arrow.RecordBatch, offs []offsets) (arrow.RecordBatch, error) {
	nIn := len(o.in.Types())
	cur := all // owned: released when replaced
	curTs := append([]types.T(nil), o.ts[:nIn]...)
	colOf := make([]int, len(o.funcs))
	for si, s := range o.specs {
		var keys []exec.SortKey
		for _, p := range s.Partition {
			keys = append(keys, exec.SortKey{Expr: p})
		}
		keys = append(keys, s.Order...)
		if len(keys) > 0 {
			idx, err := exec.SortIndices(ctx, o.ec, cur, keys)
			if err != nil {
				cur.Release()
				return nil, err
			}
			// expr.TakeRecord also gathers interval columns.
			res, err := expr.TakeRecord(ctx, cur, idx)
			idx.Release()
			cur.Release()
			if err != nil {
				return nil, err
			}
			cur = res
		}
		w, err := newWin(o.ec, cur, s)
		if err != nil {
			cur.Release()
			return nil, err
		}
		var added []arrow.Array
		defer w.release()
		for fi, f := range o.funcs {
			if f.Spec != si {
				continue
			}
			a, err := w.eval(f, offs[fi])
			if err != nil {
				cur.Release()
				for _, x := range added {
					x.Release()
				}
				return nil, err
			}
			colOf[fi] = len(curTs)
			curTs = append(curTs, f.T)
			added = append(added, a)
		}
		cols := append(append([]arrow.Array(nil), cur.Columns()...), added...)
		next := array.NewRecordBatch(exec.Schema(curTs), cols, cur.NumRows())
		for _, x := range added {
			x.Release()
		}
		cur.Release()
		cur = next
	}
	cols := make([]arrow.Array, 0, len(o.ts))
	for i := 0; i < nIn; i++ {
		cols = append(cols, cur.Column(i))
	}
	for _, c := range colOf {
		cols = append(cols, cur.Column(c))
	}
	out := array.NewRecordBatch(exec.Schema(o.ts), cols, cur.NumRows())
	cur.Release()
	return out, nil
}

// win is one window over the batch sorted by its keys: where partitions
// and peer groups start.
type win struct {
	ec     *expr.Ctx
	rec    arrow.RecordBatch
	spec   Spec
	n      int
	parts  []int // partition starts, then n
	peerOf []int // index into peers of each row's peer group
	peers  []int // peer group starts, then n
	order  []arrow.Array
	err    error // the first error moving a RANGE offset bound
	work   int   // frame rows visited since the last cancellation check
}

func newWin(ec *expr.Ctx, rec arrow.RecordBatch, s Spec) (*win, error) {
	w := &win{ec: ec, rec: rec, spec: s, n: int(rec.NumRows())}
	eval := func(es []expr.Expr) ([]arrow.Array, error) {
		out := make([]arrow.Array, len(es))
		for i, e := range es {
			a, err := e.Eval(ec, rec)
			if err != nil {
				return nil, err
			}
			out[i] = a
		}
		return out, nil
	}
	part, err := eval(s.Partition)
	if err != nil {
		return nil, err
	}
	orderExprs := make([]expr.Expr, len(s.Order))
	for i, k := range s.Order {
		orderExprs[i] = k.Expr
	}
	if w.order, err = eval(orderExprs); err != nil {
		return nil, err
	}
	w.peerOf = make([]int, w.n)
	for r := 0; r < w.n; r++ {
		newPart := r == 0
		for i, a := range part {
			if !newPart && !equalAt(s.Partition[i].Type(), a, r-1, r) {
				newPart = true
			}
		}
		newPeer := newPart
		for i, a := range w.order {
			if !newPeer && !equalAt(orderExprs[i].Type(), a, r-1, r) {
				newPeer = true
			}
		}
		if newPart {
			w.parts = append(w.parts, r)
		}
		if newPeer {
			w.peers = append(w.peers, r)
		}
		w.peerOf[r] = len(w.peers) - 1
	}
	w.parts = append(w.parts, w.n)
	w.peers = append(w.peers, w.n)
	for _, a := range part {
		a.Release()
	}
	return w, nil
}

func (w *win) release() {
	for _, a := range w.order {
		a.Release()
	}
	w.order = nil
}

// equalAt says whether rows i and j of a hold the same value; NULLs are
// equal here, as partitions and peers treat them.
func equalAt(t types.T, a arrow.Array, i, j int) bool {
	ni, nj := a.IsNull(i), a.IsNull(j)
	if ni || nj {
		return ni == nj
	}
	x, y := types.DatumAt(t, a, i), types.DatumAt(t, a, j)
	switch t.Kind {
	case types.Float4, types.Float8:
		return x.F == y.F || (math.IsNaN(x.F) && math.IsNaN(y.F))
	case types.Numeric:
		return expr.CompareNumericText(x.S, y.S) == 0
	case types.Bytea:
		return bytes.Equal(x.B, y.B)
	case types.Interval:
		return types.CmpInterval(x.Interval(), y.Interval()) == 0 // '1 day' and '24 hours' are peers
	}
	return x.I == y.I && x.S == y.S
}

// frame is the frame [fs, fe) of row i in the partition [ps, pe).
func (w *win) frame(f Frame, offs offsets, i, ps, pe int) (int, int) {
	g := w.peerOf[i]
	// groupAt is the start of the peer group k groups away from row i's,
	// clamped to the partition.
	groupAt := func(k int64) int {
		first, last := w.peerOf[ps], w.peerOf[pe-1]+1 // group indexes of the partition
		t := int64(g) + k
		if t <= int64(first) {
			return ps
		}
		if t >= int64(last) {
			return pe
		}
		return w.peers[t]
	}
	var fs, fe int
	switch f.Start.Kind {
	case UnboundedPreceding:
		fs = ps
	case CurrentRow:
		fs = i
		if f.Mode != Rows {
			fs = w.peers[g]
		}
	case OffsetPreceding, OffsetFollowing:
		k := offs.n[0]
		if f.Start.Kind == OffsetPreceding {
			k = -k
		}
		if f.Mode == Range {
			fs = w.rangeBound(offs.d[0], f.Start.Kind == OffsetPreceding, false, i, ps, pe)
		} else if f.Mode == Groups {
			fs = groupAt(k)
		} else {
			fs = clamp(int64(i)+k, ps, pe)
		}
	case UnboundedFollowing:
		fs = pe
	}
	switch f.End.Kind {
	case UnboundedFollowing:
		fe = pe
	case CurrentRow:
		fe = i + 1
		if f.Mode != Rows {
			fe = w.peers[g+1]
		}
	case OffsetPreceding, OffsetFollowing:
		k := offs.n[1]
		if f.End.Kind == OffsetPreceding {
			k = -k
		}
		if f.Mode == Range {
			fe = w.rangeBound(offs.d[1], f.End.Kind == OffsetPreceding, true, i, ps, pe)
		} else if f.Mode == Groups {
			fe = groupAt(k + 1)
		} else {
			fe = clamp(int64(i)+k+1, ps, pe)
		}
	case UnboundedPreceding:
		fe = ps
	}
	if fe < fs {
		fe = fs
	}
	return fs, fe
}

func clamp(v int64, lo, hi int) int {
	if v < int64(lo) {
		return lo
	}
	if v > int64(hi) {
		return hi
	}
	return int(v)
}

func (w *win) eval(f Func, offs offsets) (arrow.Array, error) {
	args := make([]arrow.Array, len(f.Args))
	defer func() {
		for _, a := range args {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, e := range f.Args {
		a, err := e.Eval(w.ec, w.rec)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	if err := w.checkRange(f.Frame, offs); err != nil {
		return nil, err
	}
	b := expr.NewBuilder(f.T, w.n)
	argAt := func(k, row int) types.Datum { return types.DatumAt(f.Args[k].Type(), args[k], row) }
	var acc accumulator
	if f.Kind == Aggregate {
		cols := make([]arrow.Array, 3) // Arg, Arg2, Filter
		for i, e := range []expr.Expr{f.Agg.Arg, f.Agg.Arg2, f.Agg.Filter} {
			if e == nil {
				continue
			}
			a, err := e.Eval(w.ec, w.rec)
			if err != nil {
				return nil, err
			}
			cols[i] = a
			args = append(args, a) // released with the arguments
		}
		acc = newAccumulator(f.Agg, w.ec, cols[0], cols[1], cols[2])
	}
	for p := 0; p+1 < len(w.parts); p++ {
		ps, pe := w.parts[p], w.parts[p+1]
		n := pe - ps
		switch f.Kind {
		case RowNumber:
			for i := ps; i < pe; i++ {
				b.Append(types.Int(types.TInt8, int64(i-ps+1)))
			}
		case Rank, PercentRank:
			for i := ps; i < pe; i++ {
				rank := w.peers[w.peerOf[i]] - ps + 1
				if f.Kind == Rank {
					b.Append(types.Int(types.TInt8, int64(rank)))
				} else if n == 1 {
					b.Append(types.Float8Datum(0))
				} else {
					b.Append(types.Float8Datum(float64(rank-1) / float64(n-1)))
				}
			}
		case DenseRank:
			for i := ps; i < pe; i++ {
				b.Append(types.Int(types.TInt8, int64(w.peerOf[i]-w.peerOf[ps]+1)))
			}
		case CumeDist:
			for i := ps; i < pe; i++ {
				b.Append(types.Float8Datum(float64(w.peers[w.peerOf[i]+1]-ps) / float64(n)))
			}
		case Ntile:
			// The bucket count is read from the partition's first row.
			d := argAt(0, ps)
			if d.Null {
				for i := ps; i < pe; i++ {
					b.AppendNull()
				}
				continue
			}
			if d.I <= 0 {
				return nil, pgerr.New(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
			}
			buckets := d.I
			per, extra := int64(n)/buckets, int64(n)%buckets
			bucket, left := int64(1), per
			if extra > 0 {
				left++
			}
			for i := ps; i < pe; i++ {
				if left == 0 {
					bucket++
					left = per
					if bucket <= extra {
						left++
					}
				}
				b.Append(types.Int(f.T, bucket))
				left--
			}
		case Lag, Lead:
			for i := ps; i < pe; i++ {
				off := int64(1)
				if len(args) > 1 {
					d := argAt(1, i)
					if d.Null {
						b.AppendNull()
						continue
					}
					off = d.I
				}
				if f.Kind == Lag {
					off = -off
				}
				t := int64(i) + off
				switch {
				case t >= int64(ps) && t < int64(pe):
					b.Append(argAt(0, int(t)))
				case len(args) > 2:
					b.Append(argAt(2, i))
				default:
					b.AppendNull()
				}
			}
		case FirstValue, LastValue, NthValue:
			for i := ps; i < pe; i++ {
				segs := w.segments(f.Frame, offs, i, ps, pe)
				var k int64 // 1-based position in the frame; negative counts from its end
				switch f.Kind {
				case FirstValue:
					k = 1
				case LastValue:
					k = -1
				default:
					d := argAt(1, i)
					if d.Null {
						b.AppendNull()
						continue
					}
					if d.I <= 0 {
						return nil, pgerr.New(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
					}
					k = d.I
				}
				if t, ok := nthRow(segs, k); ok {
					b.Append(argAt(0, t))
				} else {
					b.AppendNull()
				}
			}
		case Aggregate:
			if err := w.aggregate(acc, b, f.Frame, offs, ps, pe); err != nil {
				return nil, err
			}
		}
	}
	if w.err != nil {
		b.Finish().Release()
		return nil, w.err
	}
	return b.Finish(), nil
}

// aggregate computes an aggregate over each row's frame. Frames only move
// forward, so rows are added as the end advances and removed (or the
// state rebuilt, for aggregates that cannot remove) as the start does:
// a frame that starts at the partition start costs O(n) in all.
func (w *win) aggregate(acc accumulator, b *expr.Builder, f Frame, offs offsets, ps, pe int) error {
	if f.Exclude != ExcludeNoOthers {
		// Excluding rows makes frames gappy: recompute each one.
		for i := ps; i < pe; i++ {
			acc.reset()
			for _, sg := range w.segments(f, offs, i, ps, pe) {
				if err := w.spend(1 + sg[1] - sg[0]); err != nil {
					return err
				}
				acc.add(sg[0], sg[1])
			}
			res, err := acc.result()
			if err != nil {
				return err
			}
			b.Append(res)
		}
		return nil
	}
	acc.reset()
	curS, curE := ps, ps
	prevS, prevE := -1, -1
	var res types.Datum
	for i := ps; i < pe; i++ {
		if err := w.spend(1); err != nil {
			return err
		}
		fs, fe := w.frame(f, offs, i, ps, pe)
		if fs != prevS || fe != prevE {
			if fs < curS || fe < curE {
				acc.reset()
				curS, curE = fs, fs
			}
			if fs > curS {
				if acc.removable() && fs <= curE {
					acc.remove(curS, fs)
					curS = fs
				} else {
					acc.reset()
					curS, curE = fs, fs
				}
			}
			if fe > curE {
				if err := w.spend(fe - curE); err != nil {
					return err
				}
				acc.add(curE, fe)
				curE = fe
			}
			var err error
			if res, err = acc.result(); err != nil {
				return err
			}
			prevS, prevE = fs, fe
		}
		b.Append(res)
	}
	return nil
}

// spend counts n rows of frame work and checks whether the statement was
// cancelled once enough has been done since the last check: a frame that
// cannot shrink rebuilds its state for every row, so rows alone are no
// measure of the time taken.
func (w *win) spend(n int) error {
	if w.work += n; w.work < 1<<16 {
		return nil
	}
	w.work = 0
	return expr.Context(w.ec).Err()
}

// segments is row i's frame as row ranges in order, without the rows its
// EXCLUDE option leaves out.
func (w *win) segments(f Frame, offs offsets, i, ps, pe int) [][2]int {
	fs, fe := w.frame(f, offs, i, ps, pe)
	if f.Exclude == ExcludeNoOthers {
		return [][2]int{{fs, fe}}
	}
	xs, xe := i, i+1
	if f.Exclude != ExcludeCurrentRow {
		g := w.peerOf[i]
		xs, xe = w.peers[g], w.peers[g+1]
	}
	segs := make([][2]int, 0, 3)
	add := func(s, e int) {
		s, e = max(s, fs), min(e, fe)
		if s < e {
			segs = append(segs, [2]int{s, e})
		}
	}
	add(fs, xs)
	if f.Exclude == ExcludeTies {
		add(i, i+1)
	}
	add(xe, fe)
	return segs
}

// nthRow is the k-th row (1-based; -1 the last) of the ranges segs.
func nthRow(segs [][2]int, k int64) (int, bool) {
	if k < 0 {
		if len(segs) == 0 {
			return 0, false
		}
		return segs[len(segs)-1][1] - 1, true
	}
	for _, sg := range segs {
		n := int64(sg[1] - sg[0])
		if k <= n {
			return sg[0] + int(k) - 1, true
		}
		k -= n
	}
	return 0, false
}
