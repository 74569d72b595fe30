package exec

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// gatherOp runs copies of one pipeline on goroutines of their own and
// passes their batches on in the order they come (PostgreSQL's Gather).
// The copies share their input through Morsels. The first error of any
// worker, or the consumer's cancellation, stops them all; Close waits for
// every worker, so none outlives the operator.
type gatherOp struct {
	workers []Operator
	shared  []io.Closer // closed after the workers are done (the Morsels)
	ts      []types.T

	started bool
	cancel  context.CancelFunc
	out     chan arrow.RecordBatch
	wg      sync.WaitGroup
	failed  atomic.Bool
	errMu   sync.Mutex
	err     error
	closed  bool
	// rows and batches each worker passed on, read once they are done.
	rows, batches []int64
}

var _ Operator = (*gatherOp)(nil)

// NewGather runs workers in parallel; shared (the inputs they read
// together) are closed once all of them are done.
func NewGather(workers []Operator, ts []types.T, shared ...io.Closer) Operator {
	return &gatherOp{workers: workers, shared: shared, ts: ts,
		rows: make([]int64, len(workers)), batches: make([]int64, len(workers))}
}

func (g *gatherOp) Types() []types.T { return g.ts }

// Open starts nothing: the workers start at the first Next, so a plan
// that is opened but never read (LIMIT 0, a cursor never fetched) costs
// no goroutines.
func (g *gatherOp) Open(context.Context) error { return nil }

func (g *gatherOp) start(ctx context.Context) {
	g.started = true
	// The workers outlive this call (a cursor's fetches come with
	// contexts of their own): they keep ctx's values, and stop on cancel,
	// which Next calls when the consumer's context ends.
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	g.cancel = cancel
	g.out = make(chan arrow.RecordBatch, 2*len(g.workers))
	for i := range g.workers {
		g.wg.Add(1)
		go g.run(wctx, i)
	}
	go func() {
		g.wg.Wait()
		close(g.out)
	}()
}

// run is worker i: it drives its pipeline to the end, an error, or the
// cancellation, and closes it.
func (g *gatherOp) run(ctx context.Context, i int) {
	defer g.wg.Done()
	op := g.workers[i]
	defer func() {
		if r := recover(); r != nil {
			// A panic on a goroutine of its own would end the server.
			g.fail(pgerr.New(pgerr.InternalError, "parallel worker %d: %v", i, r))
		}
		if err := op.Close(); err != nil {
			g.fail(err)
		}
	}()
	if err := op.Open(ctx); err != nil {
		g.fail(err)
		return
	}
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			g.fail(err)
			return
		}
		if rec == nil {
			return
		}
		g.rows[i] += rec.NumRows()
		g.batches[i]++
		select {
		case g.out <- rec:
		case <-ctx.Done():
			rec.Release()
			return
		}
	}
}

// fail keeps the first error and stops the other workers.
func (g *gatherOp) fail(err error) {
	g.errMu.Lock()
	if g.err == nil && !g.closed {
		g.err = err
		g.failed.Store(true)
	}
	g.errMu.Unlock()
	g.cancel()
}

func (g *gatherOp) firstErr() error {
	g.errMu.Lock()
	defer g.errMu.Unlock()
	return g.err
}

func (g *gatherOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if g.closed {
		return nil, nil
	}
	if !g.started {
		g.start(ctx)
	}
	for {
		if g.failed.Load() {
			return nil, g.firstErr()
		}
		select {
		case rec, ok := <-g.out:
			if !ok {
				return nil, g.firstErr()
			}
			if g.failed.Load() {
				rec.Release()
				return nil, g.firstErr()
			}
			return rec, nil
		case <-ctx.Done():
			g.cancel()
			return nil, ctx.Err()
		}
	}
}

// Close stops the workers, waits for them and releases what they sent
// that was not read.
func (g *gatherOp) Close() error {
	if g.closed {
		return nil
	}
	if g.started {
		g.cancel()
		for rec := range g.out {
			rec.Release()
		}
	} else {
		for _, w := range g.workers {
			w.Close()
		}
	}
	g.errMu.Lock()
	g.closed = true
	g.errMu.Unlock()
	var err error
	for _, s := range g.shared {
		if e := s.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// RunDetails is what EXPLAIN ANALYZE shows under the Gather: the workers
// launched and what each passed on.
func (g *gatherOp) RunDetails() []string {
	launched := 0
	if g.started {
		launched = len(g.workers)
	}
	out := []string{fmt.Sprintf("Workers Launched: %d", launched)}
	if !g.started {
		return out
	}
	for i := range g.workers {
		out = append(out, fmt.Sprintf("Worker %d: rows=%d batches=%d", i, g.rows[i], g.batches[i]))
	}
	return out
}
