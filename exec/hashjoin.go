package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/types"
)

type hashJoin struct {
	kind   JoinKind
	left   SelOperator // probes: only the rows it selects
	right  Operator
	lkeys  []expr.Expr // over the left input
	rkeys  []expr.Expr // over the right input, same types as lkeys
	extra  expr.Expr   // the rest of ON, over left then right columns; may be nil
	ec     *expr.Ctx
	ts     []types.T
	schema *arrow.Schema

	built        bool
	right0       arrow.RecordBatch
	table        map[string][]int32
	rightMatched []bool
	keyBuf       []byte
	pending      []arrow.RecordBatch
	rightDone    bool
	probing      *probeState // the left batch being joined, nil between batches

	// Memory: the build side's reservation, and the partitions the join
	// runs one at a time once the build side outgrew it (hashjoin_spill.go).
	acct  *mem.Account
	grace *graceJoin
	depth int // how many times the rows were partitioned on the way here
	// shared, when set, is the table this join probes, built once for
	// several joins (jointable.go).
	shared *JoinTable
}

var _ Operator = (*hashJoin)(nil)

// NewHashJoin is an equi-join: the rows of left and right whose key
// expressions are all equal (a NULL key matches nothing) and for which
// extra (if any) is true; LEFT, RIGHT and FULL add the unmatched rows of
// their side with NULLs for the other. The right input is read into a hash
// table; the left streams.
func NewHashJoin(kind JoinKind, left, right Operator, lkeys, rkeys []expr.Expr, extra expr.Expr, ec *expr.Ctx) Operator {
	ts := append(append([]types.T{}, left.Types()...), right.Types()...)
	return &hashJoin{kind: kind, left: Selecting(left), right: right, lkeys: lkeys, rkeys: rkeys, extra: extra, ec: ec, ts: ts, schema: Schema(ts)}
}

func (h *hashJoin) Types() []types.T { return h.ts }
func (h *hashJoin) Open(ctx context.Context) error {
	return openBoth(ctx, h.left, h.right)
}
func (h *hashJoin) Close() error {
	h.endProbe()
	if h.grace != nil {
		h.grace.close()
		h.grace = nil
	}
	if h.right0 != nil {
		h.right0.Release()
		h.right0 = nil
	}
	for _, p := range h.pending {
		p.Release()
	}
	h.pending = nil
	if h.acct != nil {
		h.acct.Clear()
	}
	return closeBoth(h.left, h.right)
}

// keyFunc evaluates the key expressions over rec and returns a function
// giving row r's key bytes, or false when a key column is NULL there. The
// bytes are valid until the next call.
func (h *hashJoin) keyFunc(rec arrow.RecordBatch, exprs []expr.Expr) (func(r int) ([]byte, bool), func(), error) {
	return joinKeys(h.ec, rec, exprs, &h.keyBuf)
}

// joinKeys is keyFunc for any join: the key bytes are built in *buf,
// which the caller keeps to reuse across batches.
func joinKeys(ec *expr.Ctx, rec arrow.RecordBatch, exprs []expr.Expr, buf *[]byte) (func(r int) ([]byte, bool), func(), error) {
	cols := make([]arrow.Array, 0, len(exprs))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	writers := make([]func([]byte, int) []byte, len(exprs))
	for i, e := range exprs {
		a, err := e.Eval(ec, rec)
		if err != nil {
			release()
			return nil, nil, err
		}
		cols = append(cols, a)
		writers[i] = KeyWriter(e.Type(), a)
	}
	return func(r int) ([]byte, bool) {
		for _, c := range cols {
			if c.IsNull(r) {
				return nil, false
			}
		}
		b := (*buf)[:0]
		for _, w := range writers {
			b = w(b, r)
		}
		*buf = b
		return b, true
	}, release, nil
}

func (h *hashJoin) build(ctx context.Context) error {
	h.built = true
	if h.shared != nil {
		right0, table, err := h.shared.get(ctx)
		if err != nil {
			return err
		}
		right0.Retain()
		h.right0, h.table = right0, table
		return nil
	}
	all, err := h.readBuild(ctx)
	if err != nil || h.grace != nil {
		return err
	}
	if all == nil {
		all = emptyBatch(h.right.Types())
	}
	h.right0 = all
	key, release, err := h.keyFunc(all, h.rkeys)
	if err != nil {
		return err
	}
	defer release()
	n := int(all.NumRows())
	if h.table, _, err = hashRows(ctx, key, n, false); err != nil {
		return err
	}
	if h.kind == RightJoin || h.kind == FullJoin {
		h.rightMatched = make([]bool, n)
	}
	return nil
}

// hashRows maps the key of each of n build rows to its row numbers
// (keysOnly: to nil, when only whether a key is there matters); hasNull
// tells whether some row's key was NULL and so left out.
func hashRows(ctx context.Context, key func(int) ([]byte, bool), n int, keysOnly bool) (table map[string][]int32, hasNull bool, err error) {
	table = make(map[string][]int32, n)
	for r := 0; r < n; r++ {
		if r%(64*BatchSize) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
		}
		k, ok := key(r)
		switch {
		case !ok:
			hasNull = true
		case keysOnly:
			if _, seen := table[string(k)]; !seen {
				table[string(k)] = nil
			}
		default:
			table[string(k)] = append(table[string(k)], int32(r))
		}
	}
	return table, hasNull, nil
}

func (h *hashJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !h.built {
		if err := h.build(ctx); err != nil {
			return nil, err
		}
	}
	if h.grace != nil {
		return h.grace.next(ctx)
	}
	for {
		if len(h.pending) > 0 {
			out := h.pending[0]
			h.pending = h.pending[1:]
			return out, nil
		}
		// A left batch whose rows match many right rows makes many
		// output batches without pulling from below: check here too.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if h.probing != nil {
			if err := h.probeStep(ctx); err != nil {
				return nil, err
			}
			continue
		}
		rec, sel, err := h.left.NextSel(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			if h.rightMatched != nil && !h.rightDone {
				h.rightDone = true
				if out, err := h.unmatchedRight(ctx); out != nil || err != nil {
					return out, err
				}
			}
			return nil, nil
		}
		if err := h.startProbe(rec, sel); err != nil {
			rec.Release()
			return nil, err
		}
	}
}

// probeState is the left batch being joined: the output streams from it
// a batch at a time, so a key that matches many rows never makes the
// whole fan-out at once.
type probeState struct {
	rec         arrow.RecordBatch
	sel         []int32 // the rows of rec the join reads; nil: all
	key         func(r int) ([]byte, bool)
	release     func()
	leftMatched []bool
	next, match int // the next pair: index of its left row (in sel), index in its matches
	matches     []int32
	prev        []byte
	havePrev    bool
}

// startProbe starts joining the rows sel selects (nil: all) of a left
// batch, which the probe then owns.
func (h *hashJoin) startProbe(rec arrow.RecordBatch, sel []int32) error {
	if sel != nil && !allCols(h.lkeys) {
		// Computed keys see the selected rows alone (a cast must not fail
		// on a row a filter dropped).
		c, err := Compact(rec, sel)
		if err != nil {
			return err
		}
		rec.Release()
		rec, sel = c, nil
	} else if sel != nil {
		// The selection belongs to the input until its next batch.
		sel = append([]int32(nil), sel...)
	}
	key, release, err := h.keyFunc(rec, h.lkeys)
	if err != nil {
		return err
	}
	p := &probeState{rec: rec, sel: sel, key: key, release: release, match: -1}
	if h.kind == LeftJoin || h.kind == FullJoin {
		p.leftMatched = make([]bool, rec.NumRows())
		if sel != nil {
			// Rows not selected are not the join's: never null-extended.
			for i := range p.leftMatched {
				p.leftMatched[i] = true
			}
			for _, r := range sel {
				p.leftMatched[r] = false
			}
		}
	}
	h.probing = p
	return nil
}

func (h *hashJoin) endProbe() {
	if p := h.probing; p != nil {
		p.release()
		p.rec.Release()
		h.probing = nil
	}
}

// probeStep joins the next stretch of the left batch, at most one output
// batch of pairs (or the whole batch when every row matches once), and
// queues its output; at the batch's end it queues the unmatched left rows.
func (h *hashJoin) probeStep(ctx context.Context) error {
	p := h.probing
	n := int(p.rec.NumRows())
	if p.sel != nil {
		n = len(p.sel)
	}
	limit := max(BatchSize, n)
	var li, ri []int32
	for p.next < n && len(li) < limit {
		r := p.next
		if p.sel != nil {
			r = int(p.sel[p.next])
		}
		if p.match < 0 {
			// The left input is often sorted on the key: a run of equal
			// keys takes one lookup.
			k, ok := p.key(r)
			if !ok {
				p.next++
				continue
			}
			if !p.havePrev || string(k) != string(p.prev) {
				p.matches = h.table[string(k)]
				p.prev, p.havePrev = append(p.prev[:0], k...), true
			}
			p.match = 0
		}
		take := min(len(p.matches)-p.match, limit-len(li))
		for _, m := range p.matches[p.match : p.match+take] {
			li = append(li, int32(r))
			ri = append(ri, m)
		}
		p.match += take
		if p.match >= len(p.matches) {
			p.next, p.match = p.next+1, -1
		}
	}
	if err := h.emitPairs(ctx, p, li, ri); err != nil {
		return err
	}
	if p.next < n {
		return nil
	}
	if p.leftMatched != nil {
		out, err := nullExtended(ctx, h.schema, p.rec, unmatched(p.leftMatched), h.right.Types(), true)
		if err != nil {
			return err
		}
		if out != nil {
			h.pending = append(h.pending, out)
		}
	}
	h.endProbe()
	return nil
}

// emitPairs queues the joined rows of the pairs (li[k], ri[k]) that pass
// the rest of ON, marking their rows matched.
func (h *hashJoin) emitPairs(ctx context.Context, p *probeState, li, ri []int32) error {
	if len(li) == 0 {
		return nil
	}
	var lcols []arrow.Array
	var err error
	if identity(li, int(p.rec.NumRows())) {
		// Every left row matched once, in order: its columns as they are.
		for _, c := range p.rec.Columns() {
			c.Retain()
			lcols = append(lcols, c)
		}
	} else if lcols, err = takeCols(ctx, p.rec, li); err != nil {
		return err
	}
	rcols, err := h.rightCols(ctx, ri, lcols)
	if err != nil {
		for _, c := range lcols {
			c.Release()
		}
		return err
	}
	cols := append(lcols, rcols...)
	out := array.NewRecordBatch(h.schema, cols, int64(len(li)))
	for _, c := range cols {
		c.Release()
	}
	if h.extra != nil {
		mask, err := h.extra.Eval(h.ec, out)
		if err != nil {
			out.Release()
			return err
		}
		m := mask.(*array.Boolean)
		for k := range li {
			if m.IsValid(k) && m.Value(k) {
				h.mark(p.leftMatched, li[k], ri[k])
			}
		}
		kept, err := applyMask(ctx, out, m)
		mask.Release()
		out.Release()
		if err != nil {
			return err
		}
		out = kept
	} else {
		for k := range li {
			h.mark(p.leftMatched, li[k], ri[k])
		}
	}
	if out.NumRows() > 0 {
		h.pending = append(h.pending, out)
	} else {
		out.Release()
	}
	return nil
}

// rightCols gathers the right input's columns for matched pairs. A right
// key that is a plain column equals its left key on every pair, so the
// left one (already gathered) stands in for it.
func (h *hashJoin) rightCols(ctx context.Context, ri []int32, lcols []arrow.Array) ([]arrow.Array, error) {
	same := map[int]int{}
	for k, rk := range h.rkeys {
		rc, ok1 := rk.(*expr.Col)
		lc, ok2 := h.lkeys[k].(*expr.Col)
		if ok1 && ok2 && exactKey(rk.Type()) && rk.Type() == h.lkeys[k].Type() &&
			arrow.TypeEqual(lcols[lc.Idx].DataType(), h.right0.Column(rc.Idx).DataType()) {
			same[rc.Idx] = lc.Idx
		}
	}
	if len(same) == 0 {
		return takeCols(ctx, h.right0, ri)
	}
	out := make([]arrow.Array, h.right0.NumCols())
	for c := range out {
		if l, ok := same[c]; ok {
			lcols[l].Retain()
			out[c] = lcols[l]
			continue
		}
		one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{h.right0.Schema().Field(c)}, nil), []arrow.Array{h.right0.Column(c)}, h.right0.NumRows())
		taken, err := takeCols(ctx, one, ri)
		one.Release()
		if err != nil {
			for _, a := range out[:c] {
				if a != nil {
					a.Release()
				}
			}
			return nil, err
		}
		out[c] = taken[0]
	}
	return out, nil
}

// ExactKey reports types whose equal values are equal bytes, so that a
// value's text or bits can key a hash table as they are.
func ExactKey(t types.T) bool { return exactKey(t) }

// exactKey reports types whose equal keys are equal values, bit for bit
// (not float's -0 and 0, numeric's 1.0 and 1.00 or char's padding).
func exactKey(t types.T) bool {
	switch t.Kind {
	case types.Text, types.Varchar, types.Int2, types.Int4, types.Int8, types.Bool,
		types.Date, types.Timestamp, types.TimestampTZ, types.UUID, types.Name, types.OID, types.QChar:
		return true
	}
	return false
}

// identity reports whether rows is 0, 1, …, n-1.
func identity(rows []int32, n int) bool {
	if len(rows) != n {
		return false
	}
	for i, r := range rows {
		if int(r) != i {
			return false
		}
	}
	return true
}

func (h *hashJoin) mark(leftMatched []bool, l, r int32) {
	if leftMatched != nil {
		leftMatched[l] = true
	}
	if h.rightMatched != nil {
		h.rightMatched[r] = true
	}
}

func (h *hashJoin) unmatchedRight(ctx context.Context) (arrow.RecordBatch, error) {
	return nullExtended(ctx, h.schema, h.right0, unmatched(h.rightMatched), h.left.Types(), false)
}

// allCols reports whether every expression is a plain column.
func allCols(es []expr.Expr) bool {
	for _, e := range es {
		if _, ok := e.(*expr.Col); !ok {
			return false
		}
	}
	return true
}
