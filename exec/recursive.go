package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

type batchesOp struct {
	ts   []types.T
	recs []arrow.RecordBatch
	i    int
}

// NewBatches replays batches it does not own: each is retained for the
// caller that receives it.
func NewBatches(ts []types.T, recs []arrow.RecordBatch) Operator {
	return &batchesOp{ts: ts, recs: recs}
}

func (b *batchesOp) Types() []types.T           { return b.ts }
func (b *batchesOp) Open(context.Context) error { b.i = 0; return nil }
func (b *batchesOp) Close() error               { return nil }
func (b *batchesOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.i >= len(b.recs) {
		return nil, nil
	}
	r := b.recs[b.i]
	b.i++
	r.Retain()
	return r, nil
}

// WorkTable is the working table of a running recursive union: the rows
// its previous iteration produced, which the work-table scans of its
// recursive term read. The union owns the batches.
type WorkTable struct {
	recs []arrow.RecordBatch
}

type workTableScan struct {
	wt *WorkTable
	batchesOp
}

// NewWorkTableScan reads wt as it is when the scan opens (PostgreSQL's
// WorkTable Scan).
func NewWorkTableScan(ts []types.T, wt *WorkTable) Operator {
	return &workTableScan{wt: wt, batchesOp: batchesOp{ts: ts}}
}

func (w *workTableScan) Open(ctx context.Context) error {
	w.recs = w.wt.recs
	return w.batchesOp.Open(ctx)
}

// Step builds the operators of the recursive term of a recursive query
// for one iteration; they read the working table through work-table
// scans.
type Step func() (Operator, error)

type recursiveOp struct {
	ts       []types.T
	init     Operator
	wt       *WorkTable
	step     Step
	distinct bool

	seen    map[string]struct{}
	keyBuf  []byte
	cur     Operator // init, then the current iteration's term
	work    []arrow.RecordBatch
	next    []arrow.RecordBatch // rows of this iteration: the next working table
	started bool
	done    bool
}

// NewRecursiveUnion runs WITH RECURSIVE: it emits the rows of init, then
// runs the operators step builds, with the rows last emitted in wt, until
// an iteration yields none. With distinct (UNION rather than UNION ALL) a
// row already emitted is dropped, which is also what ends most
// recursions over cycles.
func NewRecursiveUnion(ts []types.T, init Operator, wt *WorkTable, step Step, distinct bool) Operator {
	return &recursiveOp{ts: ts, init: init, wt: wt, step: step, distinct: distinct}
}

func (r *recursiveOp) Types() []types.T { return r.ts }

func (r *recursiveOp) Open(ctx context.Context) error {
	if r.distinct {
		r.seen = map[string]struct{}{}
	}
	r.cur = r.init
	r.started, r.done = true, false
	return r.init.Open(ctx)
}

func (r *recursiveOp) Close() error {
	var err error
	if r.cur != nil {
		err = r.cur.Close()
		r.cur = nil
	}
	releaseAll(r.work)
	releaseAll(r.next)
	r.work, r.next = nil, nil
	r.wt.recs = nil
	return err
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, x := range recs {
		x.Release()
	}
}

func (r *recursiveOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for !r.done {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := r.cur.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			if r.distinct {
				if rec, err = r.dedup(ctx, rec); err != nil {
					return nil, err
				}
				if rec == nil {
					continue
				}
			}
			rec.Retain()
			r.next = append(r.next, rec)
			return rec, nil
		}
		// The term is exhausted: its rows become the working table.
		err = r.cur.Close()
		r.cur = nil
		if err != nil {
			return nil, err
		}
		releaseAll(r.work)
		r.work, r.next = r.next, nil
		r.wt.recs = r.work
		if len(r.work) == 0 {
			r.done = true
			break
		}
		op, err := r.step()
		if err != nil {
			return nil, err
		}
		if err := op.Open(ctx); err != nil {
			op.Close()
			return nil, err
		}
		r.cur = op
	}
	return nil, nil
}

// dedup drops the rows of rec already seen (and repeats within rec).
func (r *recursiveOp) dedup(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	writers := make([]func([]byte, int) []byte, rec.NumCols())
	for i := range writers {
		writers[i] = KeyWriter(r.ts[i], rec.Column(i))
	}
	mb := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer mb.Release()
	kept := 0
	for row := 0; row < n; row++ {
		buf := r.keyBuf[:0]
		for _, w := range writers {
			buf = w(buf, row)
		}
		r.keyBuf = buf
		_, dup := r.seen[string(buf)]
		if !dup {
			r.seen[string(buf)] = struct{}{}
			kept++
		}
		mb.Append(!dup)
	}
	if kept == 0 {
		rec.Release()
		return nil, nil
	}
	mask := mb.NewBooleanArray()
	defer mask.Release()
	out, err := applyMask(ctx, rec, mask)
	rec.Release()
	return out, err
}
