package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// dictFilterOp is a filter over batches that may hold dictionary columns:
// the comparisons of those columns with constants test codes against the
// entries that satisfy them; rest, the other conjuncts, never reads a
// dictionary column. Its output keeps the dictionaries.
type dictFilterOp struct {
	in   Operator
	cmps []DictCmp
	hits []dictHits
	rest expr.Expr // nil when every conjunct is a DictCmp
	ec   *expr.Ctx
	mask []bool
	idx  []int32
}

// NewDictFilter keeps the rows satisfying every cmp and rest (when not
// nil; rest must not refer to the cmps' columns if they may be
// dictionaries).
func NewDictFilter(in Operator, cmps []DictCmp, rest expr.Expr, ec *expr.Ctx) Operator {
	return &dictFilterOp{in: in, cmps: cmps, hits: make([]dictHits, len(cmps)), rest: rest, ec: ec}
}

func (f *dictFilterOp) Types() []types.T               { return f.in.Types() }
func (f *dictFilterOp) Open(ctx context.Context) error { return f.in.Open(ctx) }
func (f *dictFilterOp) Close() error                   { return f.in.Close() }
func (f *dictFilterOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return nextKept(ctx, f.in, f.filter)
}

// nextKept is the next non-empty batch keep makes of in's batches; keep
// returns a batch of its own and leaves the input's to the caller.
func nextKept(ctx context.Context, in Operator, keep func(context.Context, arrow.RecordBatch) (arrow.RecordBatch, error)) (arrow.RecordBatch, error) {
	for {
		rec, err := in.Next(ctx)
		if rec == nil || err != nil {
			return nil, err
		}
		out, err := keep(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		if out.NumRows() > 0 {
			return out, nil
		}
		out.Release()
	}
}

func (f *dictFilterOp) filter(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	if cap(f.mask) < n {
		f.mask = make([]bool, n)
	}
	mask := f.mask[:n]
	for i := range mask {
		mask[i] = true
	}
	for i, c := range f.cmps {
		f.hits[i].match(rec.Column(c.Col), c, mask)
	}
	if f.rest != nil {
		m, err := f.rest.Eval(f.ec, rec)
		if err != nil {
			return nil, err
		}
		b := m.(*array.Boolean)
		for i := range mask {
			mask[i] = mask[i] && b.IsValid(i) && b.Value(i)
		}
		m.Release()
	}
	// Kept rows are taken by index: dictionary filters are mostly
	// selective, and a take keeps the dictionaries shared.
	idx := f.idx[:0]
	for i, ok := range mask {
		if ok {
			idx = append(idx, int32(i))
		}
	}
	f.idx = idx
	if len(idx) == n {
		rec.Retain()
		return rec, nil
	}
	ia := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(idx), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))}, nil, 0, 0))
	defer ia.Release()
	return expr.TakeRecord(ctx, rec, ia)
}
