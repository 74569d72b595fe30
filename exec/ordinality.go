package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// ordinalityOp appends a bigint column numbering its input's rows from 1:
// a function in FROM WITH ORDINALITY.
type ordinalityOp struct {
	in Operator
	ts []types.T
	n  int64
}

// NewOrdinality numbers the rows of in in a last bigint column.
func NewOrdinality(in Operator) Operator {
	return &ordinalityOp{in: in, ts: append(append([]types.T{}, in.Types()...), types.TInt8)}
}

func (o *ordinalityOp) Types() []types.T               { return o.ts }
func (o *ordinalityOp) Open(ctx context.Context) error { o.n = 0; return o.in.Open(ctx) }
func (o *ordinalityOp) Close() error                   { return o.in.Close() }

func (o *ordinalityOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := o.in.Next(ctx)
	if err != nil || rec == nil {
		return nil, err
	}
	defer rec.Release()
	n := int(rec.NumRows())
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < n; i++ {
		o.n++
		b.Append(o.n)
	}
	num := b.NewArray()
	defer num.Release()
	cols := append(append([]arrow.Array{}, rec.Columns()...), num)
	return array.NewRecordBatch(Schema(o.ts), cols, int64(n)), nil
}
