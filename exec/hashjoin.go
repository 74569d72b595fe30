package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
)

type hashJoin struct {
	left, right Operator
	lkeys       []expr.Expr // over the left input
	rkeys       []expr.Expr // over the right input, same types as lkeys
	ec          *expr.Ctx
	ts          []types.T
	schema      *arrow.Schema

	built   bool
	right0  arrow.RecordBatch
	table   map[string][]int32
	keyBuf  []byte
	pending []arrow.RecordBatch
}

var _ Operator = (*hashJoin)(nil)

// NewHashJoin is an inner equi-join: the rows of left and right whose key
// expressions are all equal (a NULL key matches nothing). The right input
// is read into a hash table; the left streams.
func NewHashJoin(left, right Operator, lkeys, rkeys []expr.Expr, ec *expr.Ctx) Operator {
	ts := append(append([]types.T{}, left.Types()...), right.Types()...)
	return &hashJoin{left: left, right: right, lkeys: lkeys, rkeys: rkeys, ec: ec, ts: ts, schema: Schema(ts)}
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
	err := h.left.Close()
	if rerr := h.right.Close(); err == nil {
		err = rerr
	}
	return err
}

// keys computes the join key of every row; ok[i] is false where a key
// column is NULL.
func (h *hashJoin) keys(rec arrow.RecordBatch, exprs []expr.Expr) ([]string, []bool, error) {
	cols := make([]arrow.Array, len(exprs))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	writers := make([]func([]byte, int) []byte, len(exprs))
	for i, e := range exprs {
		a, err := e.Eval(h.ec, rec)
		if err != nil {
			return nil, nil, err
		}
		cols[i] = a
		writers[i] = KeyWriter(e.Type(), a)
	}
	n := int(rec.NumRows())
	keys := make([]string, n)
	ok := make([]bool, n)
	for r := 0; r < n; r++ {
		ok[r] = true
		for _, c := range cols {
			if c.IsNull(r) {
				ok[r] = false
			}
		}
		if !ok[r] {
			continue
		}
		buf := h.keyBuf[:0]
		for _, w := range writers {
			buf = w(buf, r)
		}
		h.keyBuf = buf
		keys[r] = string(buf)
	}
	return keys, ok, nil
}

func (h *hashJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !h.built {
		h.built = true
		all, err := Drain(ctx, h.right)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = emptyBatch(h.right.Types())
		}
		h.right0 = all
		keys, ok, err := h.keys(all, h.rkeys)
		if err != nil {
			return nil, err
		}
		h.table = make(map[string][]int32, len(keys))
		for r, k := range keys {
			if ok[r] {
				h.table[k] = append(h.table[k], int32(r))
			}
		}
	}
	for {
		if len(h.pending) > 0 {
			out := h.pending[0]
			h.pending = h.pending[1:]
			return out, nil
		}
		rec, err := h.left.Next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		keys, ok, err := h.keys(rec, h.lkeys)
		if err != nil {
			rec.Release()
			return nil, err
		}
		var li, ri []int32
		flush := func() error {
			if len(li) == 0 {
				return nil
			}
			lcols, err := takeCols(ctx, rec, li)
			if err != nil {
				return err
			}
			rcols, err := takeCols(ctx, h.right0, ri)
			if err != nil {
				return err
			}
			cols := append(lcols, rcols...)
			out := array.NewRecordBatch(h.schema, cols, int64(len(li)))
			for _, c := range cols {
				c.Release()
			}
			h.pending = append(h.pending, out)
			li, ri = li[:0:0], ri[:0:0]
			return nil
		}
		for r, k := range keys {
			if !ok[r] {
				continue
			}
			for _, m := range h.table[k] {
				li = append(li, int32(r))
				ri = append(ri, m)
			}
			if len(li) >= BatchSize {
				if err := flush(); err != nil {
					rec.Release()
					return nil, err
				}
			}
		}
		err = flush()
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
}
