package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/types"
)

type limitOp struct {
	in            Operator
	limit, offset int64 // limit < 0: none
	seen, emitted int64
}

var _ Operator = (*limitOp)(nil)

// NewLimit skips offset rows, then passes at most limit rows (limit < 0:
// all). It stops pulling its input once the limit is reached.
func NewLimit(in Operator, limit, offset int64) Operator {
	return &limitOp{in: in, limit: limit, offset: offset}
}

func (l *limitOp) Types() []types.T               { return l.in.Types() }
func (l *limitOp) Open(ctx context.Context) error { return l.in.Open(ctx) }
func (l *limitOp) Close() error                   { return l.in.Close() }
func (l *limitOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if l.limit >= 0 && l.emitted >= l.limit {
			return nil, nil
		}
		rec, err := l.in.Next(ctx)
		if rec == nil || err != nil {
			return nil, err
		}
		n := rec.NumRows()
		start := int64(0)
		if l.seen < l.offset {
			start = min(l.offset-l.seen, n)
		}
		l.seen += n
		end := n
		if l.limit >= 0 {
			end = min(n, start+l.limit-l.emitted)
		}
		if start >= end {
			rec.Release()
			continue
		}
		l.emitted += end - start
		if start == 0 && end == n {
			return rec, nil
		}
		out := rec.NewSlice(start, end)
		rec.Release()
		return out, nil
	}
}
