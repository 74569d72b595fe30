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

// morsel is a few of the input's batches, taken together: each hand-off
// between goroutines costs a wakeup when the machine is busy.
type morsel struct {
	recs []arrow.RecordBatch
	err  error
}

func (mo morsel) release() {
	for _, r := range mo.recs {
		r.Release()
	}
}

const (
	// morselQueue is how many morsels the feeder reads ahead.
	morselQueue = 4
	// morselBatches is the batches in a morsel (a scan's are 16,384 rows).
	morselBatches = 4
)

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
			mo.release()
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
		var mo morsel
		for len(mo.recs) < morselBatches {
			rec, err := m.raw(ctx)
			if err != nil {
				mo.err = err
				break
			}
			if rec == nil {
				break
			}
			mo.recs = append(mo.recs, rec)
		}
		if len(mo.recs) == 0 && mo.err == nil {
			return
		}
		if !send(mo) || mo.err != nil || len(mo.recs) < morselBatches {
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

// take is the next morsel's batches, none at the end. The first reader
// starts the feeder, with its context.
func (m *Morsels) take(ctx context.Context) ([]arrow.RecordBatch, error) {
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
		return mo.recs, mo.err
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
			mo.release()
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

// morselReader yields the batches of the morsels its worker takes.
type morselReader struct {
	m       *Morsels
	pending []arrow.RecordBatch // the rest of the morsel taken last
}

func (r *morselReader) Open(context.Context) error { return nil }
func (r *morselReader) Types() []types.T           { return r.m.in.Types() }

func (r *morselReader) Close() error {
	for _, rec := range r.pending {
		rec.Release()
	}
	r.pending = nil
	return nil
}

func (r *morselReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(r.pending) == 0 {
			recs, err := r.m.take(ctx)
			if err != nil {
				for _, rec := range recs {
					rec.Release()
				}
				return nil, err
			}
			if len(recs) == 0 {
				return nil, nil
			}
			r.pending = recs
		}
		rec := r.pending[0]
		r.pending = r.pending[1:]
		if out, err := r.m.finish(ctx, rec); out != nil || err != nil {
			return out, err
		}
	}
}
