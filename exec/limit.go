package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

type limitOp struct {
	in            SelOperator
	limit, offset int64 // limit < 0: none
	seen, emitted int64
}

var _ SelOperator = (*limitOp)(nil)

// NewLimit skips offset rows, then passes at most limit rows (limit < 0:
// all). It stops pulling its input once the limit is reached, and counts
// the rows its input selects, passing the selection on.
func NewLimit(in Operator, limit, offset int64) Operator {
	return &limitOp{in: Selecting(in), limit: limit, offset: offset}
}

func (l *limitOp) Types() []types.T               { return l.in.Types() }
func (l *limitOp) Open(ctx context.Context) error { return l.in.Open(ctx) }
func (l *limitOp) Close() error                   { return l.in.Close() }
func (l *limitOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return NextCompacted(ctx, l)
}

func (l *limitOp) NextSel(ctx context.Context) (arrow.RecordBatch, []int32, error) {
	for {
		if l.limit >= 0 && l.emitted >= l.limit {
			return nil, nil, nil
		}
		rec, sel, err := l.in.NextSel(ctx)
		if rec == nil || err != nil {
			return nil, nil, err
		}
		n := rec.NumRows()
		if sel != nil {
			n = int64(len(sel))
		}
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
		switch {
		case start == 0 && end == n:
			return rec, sel, nil
		case sel != nil:
			return rec, sel[start:end], nil
		}
		out := rec.NewSlice(start, end)
		rec.Release()
		return out, nil, nil
	}
}

type tiesOp struct {
	in       Operator
	limit    int64
	offset   int64
	keys     []int // columns whose equality makes a tie
	seen     int64
	emitted  int64
	last     []byte
	buf      []byte
	finished bool
}

// NewLimitWithTies is FETCH FIRST n ROWS WITH TIES over input sorted on
// the key columns: after offset, n rows and then every row that ties with
// the n-th on the keys.
func NewLimitWithTies(in Operator, limit, offset int64, keys []int) Operator {
	return &tiesOp{in: in, limit: limit, offset: offset, keys: keys}
}

func (l *tiesOp) Types() []types.T               { return l.in.Types() }
func (l *tiesOp) Open(ctx context.Context) error { return l.in.Open(ctx) }
func (l *tiesOp) Close() error                   { return l.in.Close() }
func (l *tiesOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for !l.finished {
		rec, err := l.in.Next(ctx)
		if rec == nil || err != nil {
			return nil, err
		}
		ts := l.in.Types()
		writers := make([]func([]byte, int) []byte, len(l.keys))
		for i, k := range l.keys {
			writers[i] = KeyWriter(ts[k], rec.Column(k))
		}
		key := func(r int) []byte {
			b := l.buf[:0]
			for _, w := range writers {
				b = w(b, r)
			}
			l.buf = b
			return b
		}
		n := rec.NumRows()
		start, end := int64(-1), n
		for r := int64(0); r < n; r++ {
			if l.seen < l.offset {
				l.seen++
				continue
			}
			l.seen++
			if l.emitted >= l.limit {
				if l.limit == 0 || string(key(int(r))) != string(l.last) {
					end = r
					l.finished = true
					break
				}
			}
			if start < 0 {
				start = r
			}
			l.emitted++
			if l.emitted == l.limit {
				l.last = append(l.last[:0], key(int(r))...)
			}
		}
		if start < 0 || start >= end {
			rec.Release()
			continue
		}
		out := rec.NewSlice(start, end)
		rec.Release()
		return out, nil
	}
	return nil, nil
}
