package exec

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Morsels hands one input's batches out to the workers of a parallel
// plan, one batch (a morsel: a slice of a data file or row group, or a
// chunk of the write log's tail) to whichever worker asks first. The
// input is typically a table scan, which already decodes files ahead on
// all cores; what the workers take in parallel is everything above it.
//
// A feeder goroutine reads the input ahead into a small queue: a worker
// that asks finds a morsel waiting rather than queueing on a lock, which
// on a busy machine costs a wakeup per morsel.
type Morsels struct {
	in      Operator
	once    sync.Once
	started atomic.Bool
	queue   chan morsel
	stop    chan struct{}
	stopped sync.Once
	fed     sync.WaitGroup
	mu      sync.Mutex
	err     error // the input's error, for every reader after the first
}

type morsel struct {
	rec arrow.RecordBatch
	err error
}

// morselQueue is how many morsels the feeder reads ahead.
const morselQueue = 8

// NewMorsels shares in among readers; Close closes it once they are done.
func NewMorsels(in Operator) *Morsels {
	return &Morsels{in: in, queue: make(chan morsel, morselQueue), stop: make(chan struct{})}
}

// feed reads the input into the queue until its end, an error, or Close;
// ctx (the first reader's) is the input's.
func (m *Morsels) feed(ctx context.Context) {
	defer m.fed.Done()
	defer close(m.queue)
	send := func(mo morsel) bool {
		select {
		case m.queue <- mo:
			return true
		case <-m.stop:
			if mo.rec != nil {
				mo.rec.Release()
			}
			return false
		}
	}
	defer func() {
		if r := recover(); r != nil {
			send(morsel{err: pgerr.New(pgerr.InternalError, "parallel scan: %v", r)})
		}
	}()
	if err := m.in.Open(ctx); err != nil {
		send(morsel{err: err})
		return
	}
	for {
		rec, err := m.raw(ctx)
		if rec == nil && err == nil {
			return
		}
		if !send(morsel{rec: rec, err: err}) || err != nil {
			return
		}
	}
}

// raw is the input's next batch; a scan's comes unfinished (finish).
func (m *Morsels) raw(ctx context.Context) (arrow.RecordBatch, error) {
	if s, ok := m.in.(*scanOp); ok {
		return s.nextRaw(ctx)
	}
	return m.in.Next(ctx)
}

// take is the next morsel, nil at the end. The first reader starts the
// feeder, with its context.
func (m *Morsels) take(ctx context.Context) (arrow.RecordBatch, error) {
	m.once.Do(func() {
		m.started.Store(true)
		m.fed.Add(1)
		go m.feed(ctx)
	})
	select {
	case mo, ok := <-m.queue:
		if !ok {
			m.mu.Lock()
			defer m.mu.Unlock()
			return nil, m.err
		}
		if mo.err != nil {
			m.mu.Lock()
			m.err = mo.err
			m.mu.Unlock()
		}
		return mo.rec, mo.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close stops the feeder, releases what it read ahead and closes the
// input. Readers then see the end.
func (m *Morsels) Close() error {
	m.stopped.Do(func() { close(m.stop) })
	if m.started.Load() {
		m.fed.Wait()
		for mo := range m.queue {
			if mo.rec != nil {
				mo.rec.Release()
			}
		}
	}
	return m.in.Close()
}

// Reader is one worker's view of the morsels: an operator whose batches
// are the morsels this worker took. Closing it leaves the shared input
// open for the others.
func (m *Morsels) Reader() Operator { return &morselReader{m: m} }

// finish is what a reader does to a morsel outside the lock: a scan's
// batch is finished (retention, conversion) by the worker that took it.
// nil when no row is left.
func (m *Morsels) finish(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if s, ok := m.in.(*scanOp); ok {
		return s.finish(ctx, rec)
	}
	return rec, nil
}

type morselReader struct{ m *Morsels }

func (r *morselReader) Open(context.Context) error { return nil }
func (r *morselReader) Close() error               { return nil }
func (r *morselReader) Types() []types.T           { return r.m.in.Types() }
func (r *morselReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := r.m.take(ctx)
		if rec == nil || err != nil {
			return nil, err
		}
		if out, err := r.m.finish(ctx, rec); out != nil || err != nil {
			return out, err
		}
	}
}
