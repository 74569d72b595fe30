package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

type hashJoin struct {
	kind        JoinKind
	left, right Operator
	lkeys       []expr.Expr // over the left input
	rkeys       []expr.Expr // over the right input, same types as lkeys
	extra       expr.Expr   // the rest of ON, over left then right columns; may be nil
	ec          *expr.Ctx
	ts          []types.T
	schema      *arrow.Schema

	built        bool
	right0       arrow.RecordBatch
	table        map[string][]int32
	rightMatched []bool
	keyBuf       []byte
	pending      []arrow.RecordBatch
	rightDone    bool
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
	return &hashJoin{kind: kind, left: left, right: right, lkeys: lkeys, rkeys: rkeys, extra: extra, ec: ec, ts: ts, schema: Schema(ts)}
}

func (h *hashJoin) Types() []types.T { return h.ts }
func (h *hashJoin) Open(ctx context.Context) error {
	if err := h.left.Open(ctx); err != nil {
		return err
	}
	return h.right.Open(ctx)
}
func (h *hashJoin) Close() error {
	if h.right0 != nil {
		h.right0.Release()
		h.right0 = nil
	}
	for _, p := range h.pending {
		p.Release()
	}
	h.pending = nil
	err := h.left.Close()
	if rerr := h.right.Close(); err == nil {
		err = rerr
	}
	return err
}

// keyFunc evaluates the key expressions over rec and returns a function
// giving row r's key bytes, or false when a key column is NULL there. The
// bytes are valid until the next call.
func (h *hashJoin) keyFunc(rec arrow.RecordBatch, exprs []expr.Expr) (func(r int) ([]byte, bool), func(), error) {
	cols := make([]arrow.Array, 0, len(exprs))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	writers := make([]func([]byte, int) []byte, len(exprs))
	for i, e := range exprs {
		a, err := e.Eval(h.ec, rec)
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
		buf := h.keyBuf[:0]
		for _, w := range writers {
			buf = w(buf, r)
		}
		h.keyBuf = buf
		return buf, true
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
	if err := h.buildTable(ctx); err != nil {
		return err
	}
	if h.kind == RightJoin || h.kind == FullJoin {
		h.rightMatched = make([]bool, h.right0.NumRows())
	}
	return nil
}

// buildTable reads the right input into right0 and hashes its keys.
func (h *hashJoin) buildTable(ctx context.Context) error {
	all, err := Drain(ctx, h.right)
	if err != nil {
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
	h.table = make(map[string][]int32, n)
	for r := 0; r < n; r++ {
		if k, ok := key(r); ok {
			h.table[string(k)] = append(h.table[string(k)], int32(r))
		}
	}
	return nil
}

func (h *hashJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !h.built {
		if err := h.build(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if len(h.pending) > 0 {
			out := h.pending[0]
			h.pending = h.pending[1:]
			return out, nil
		}
		rec, err := h.left.Next(ctx)
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
		err = h.probe(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
}

// probe joins one batch of the left input, queueing the output batches.
func (h *hashJoin) probe(ctx context.Context, rec arrow.RecordBatch) error {
	key, release, err := h.keyFunc(rec, h.lkeys)
	if err != nil {
		return err
	}
	defer release()
	var leftMatched []bool
	if h.kind == LeftJoin || h.kind == FullJoin {
		leftMatched = make([]bool, rec.NumRows())
	}
	var li, ri []int32
	flush := func() error {
		if len(li) == 0 {
			return nil
		}
		var lcols []arrow.Array
		if identity(li, int(rec.NumRows())) {
			// Every left row matched once, in order: its columns as they are.
			for _, c := range rec.Columns() {
				c.Retain()
				lcols = append(lcols, c)
			}
		} else if lcols, err = takeCols(ctx, rec, li); err != nil {
			return err
		}
		rcols, err := h.rightCols(ctx, ri, lcols)
		if err != nil {
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
					h.mark(leftMatched, li[k], ri[k])
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
				h.mark(leftMatched, li[k], ri[k])
			}
		}
		if out.NumRows() > 0 {
			h.pending = append(h.pending, out)
		} else {
			out.Release()
		}
		li, ri = li[:0:0], ri[:0:0]
		return nil
	}
	n := int(rec.NumRows())
	// The left input is often sorted on the key: a run of equal keys
	// takes one lookup.
	var prev []byte
	var prevM []int32
	havePrev := false
	for r := 0; r < n; r++ {
		k, ok := key(r)
		if !ok {
			continue
		}
		matches := prevM
		if !havePrev || string(k) != string(prev) {
			matches = h.table[string(k)]
			prev, prevM, havePrev = append(prev[:0], k...), matches, true
		}
		for _, m := range matches {
			li = append(li, int32(r))
			ri = append(ri, m)
		}
	}
	if len(li) > 4*BatchSize && !identity(li, n) {
		// Keep output batches near BatchSize when matches multiply rows.
		allL, allR := li, ri
		for len(allL) > 0 {
			k := min(len(allL), BatchSize)
			li, ri = allL[:k], allR[:k]
			if err := flush(); err != nil {
				return err
			}
			allL, allR = allL[k:], allR[k:]
		}
		li, ri = nil, nil
	}
	if err := flush(); err != nil {
		return err
	}
	if leftMatched != nil {
		out, err := nullExtended(ctx, h.schema, rec, unmatched(leftMatched), h.right.Types(), true)
		if err != nil {
			return err
		}
		if out != nil {
			h.pending = append(h.pending, out)
		}
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
