package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/types"
)

// JoinKind is the kind of a join.
type JoinKind uint8

const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	// SemiJoin and AntiJoin yield the left rows that have, or have not, a
	// matching right row (EXISTS, IN and their negations), left columns only.
	SemiJoin
	AntiJoin
)

type nestedLoopJoin struct {
	kind        JoinKind
	left, right Operator
	on          expr.Expr // over left columns then right columns; nil: always true
	ec          *expr.Ctx
	ts          []types.T
	schema      *arrow.Schema

	rightAll     arrow.RecordBatch
	rightMatched []bool
	pending      []arrow.RecordBatch
	leftDone     bool
	opened       bool
	account      *mem.Account // holds the right input
}

var _ Operator = (*nestedLoopJoin)(nil)

// NewNestedLoopJoin joins every left row with every right row for which
// on is TRUE; outer kinds add the unmatched rows with NULLs on the other
// side. The right input is read whole; the left streams in blocks.
func NewNestedLoopJoin(kind JoinKind, left, right Operator, on expr.Expr, ec *expr.Ctx) Operator {
	ts := append(append([]types.T{}, left.Types()...), right.Types()...)
	return &nestedLoopJoin{kind: kind, left: left, right: right, on: on, ec: ec, ts: ts, schema: Schema(ts)}
}

func (j *nestedLoopJoin) Types() []types.T { return j.ts }
func (j *nestedLoopJoin) Open(ctx context.Context) error {
	return openBoth(ctx, j.left, j.right)
}
func (j *nestedLoopJoin) Close() error {
	if j.account != nil {
		j.account.Clear()
	}
	if j.rightAll != nil {
		j.rightAll.Release()
		j.rightAll = nil
	}
	return closeBoth(j.left, j.right)
}

func (j *nestedLoopJoin) acct(ctx context.Context) *mem.Account {
	j.account = budgetOf(ctx).Account()
	return j.account
}

// maxPairs bounds the rows of one evaluated block of the cross product.
const maxPairs = 1 << 16

func (j *nestedLoopJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !j.opened {
		j.opened = true
		all, err := drainCounted(ctx, j.right, j.acct(ctx), "nested loop join")
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = emptyBatch(j.right.Types())
		}
		j.rightAll = all
		j.rightMatched = make([]bool, all.NumRows())
	}
	for {
		// One left batch can make many blocks without pulling from a
		// scan, where a cancelled statement is noticed otherwise.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(j.pending) > 0 {
			out := j.pending[0]
			j.pending = j.pending[1:]
			return out, nil
		}
		if j.leftDone {
			return nil, nil
		}
		rec, err := j.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			j.leftDone = true
			if j.kind == RightJoin || j.kind == FullJoin {
				if out, err := j.unmatchedRight(ctx); out != nil || err != nil {
					return out, err
				}
			}
			return nil, nil
		}
		err = j.joinBatch(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
}

func (j *nestedLoopJoin) joinBatch(ctx context.Context, left arrow.RecordBatch) error {
	nL, nR := int(left.NumRows()), int(j.rightAll.NumRows())
	leftMatched := make([]bool, nL)
	block := max(1, maxPairs/max(nR, 1))
	for start := 0; start < nL && nR > 0; start += block {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(nL, start+block)
		var li, ri []int32
		for l := start; l < end; l++ {
			for r := 0; r < nR; r++ {
				li = append(li, int32(l))
				ri = append(ri, int32(r))
			}
		}
		pairs, err := j.pairs(ctx, left, li, ri)
		if err != nil {
			return err
		}
		if j.on != nil {
			mask, err := j.on.Eval(j.ec, pairs)
			if err != nil {
				pairs.Release()
				return err
			}
			m := mask.(*array.Boolean)
			for k := range li {
				if m.IsValid(k) && m.Value(k) {
					leftMatched[li[k]] = true
					j.rightMatched[ri[k]] = true
				}
			}
			kept, err := applyMask(ctx, pairs, m)
			mask.Release()
			pairs.Release()
			if err != nil {
				return err
			}
			pairs = kept
		} else {
			for k := range li {
				leftMatched[li[k]] = true
				j.rightMatched[ri[k]] = true
			}
		}
		if pairs.NumRows() > 0 {
			j.pending = append(j.pending, pairs)
		} else {
			pairs.Release()
		}
	}
	if j.kind == LeftJoin || j.kind == FullJoin {
		out, err := nullExtended(ctx, j.schema, left, unmatched(leftMatched), j.right.Types(), true)
		if err != nil {
			return err
		}
		if out != nil {
			j.pending = append(j.pending, out)
		}
	}
	return nil
}

func (j *nestedLoopJoin) unmatchedRight(ctx context.Context) (arrow.RecordBatch, error) {
	return nullExtended(ctx, j.schema, j.rightAll, unmatched(j.rightMatched), j.left.Types(), false)
}

func (j *nestedLoopJoin) pairs(ctx context.Context, left arrow.RecordBatch, li, ri []int32) (arrow.RecordBatch, error) {
	lcols, err := takeCols(ctx, left, li)
	if err != nil {
		return nil, err
	}
	rcols, err := takeCols(ctx, j.rightAll, ri)
	if err != nil {
		return nil, err
	}
	return j.batch(append(lcols, rcols...), len(li)), nil
}

func (j *nestedLoopJoin) batch(cols []arrow.Array, n int) arrow.RecordBatch {
	out := array.NewRecordBatch(j.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return out
}

// takeCols gathers rows of every column of rec.
func takeCols(ctx context.Context, rec arrow.RecordBatch, rows []int32) ([]arrow.Array, error) {
	var idx arrow.Array
	defer func() {
		if idx != nil {
			idx.Release()
		}
	}()
	out := make([]arrow.Array, rec.NumCols())
	for c := range out {
		if g, ok := gather(rec.Column(c), rows); ok {
			out[c] = g
			continue
		}
		if idx == nil {
			ib := array.NewInt32Builder(memory.DefaultAllocator)
			ib.AppendValues(rows, nil)
			idx = ib.NewArray()
			ib.Release()
		}
		a, err := expr.TakeArray(ctx, rec.Column(c), idx)
		if err != nil {
			return nil, err
		}
		out[c] = a
	}
	return out, nil
}

func emptyBatch(ts []types.T) arrow.RecordBatch {
	cols := make([]arrow.Array, len(ts))
	for i, t := range ts {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, t.Arrow(), 0)
	}
	out := array.NewRecordBatch(Schema(ts), cols, 0)
	for _, c := range cols {
		c.Release()
	}
	return out
}

// openBoth opens a join's two inputs, left first.
func openBoth(ctx context.Context, left, right Operator) error {
	if err := left.Open(ctx); err != nil {
		return err
	}
	return right.Open(ctx)
}

// closeBoth closes a join's two inputs, both even when one fails, and
// returns the first error.
func closeBoth(left, right Operator) error {
	err := left.Close()
	if rerr := right.Close(); err == nil {
		err = rerr
	}
	return err
}
