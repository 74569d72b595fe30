package exec

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// Morsels hands one input's batches out to the workers of a parallel
// plan, one batch (a morsel: a slice of a data file or row group, or a
// chunk of the write log's tail) to whichever worker asks first. The
// input is typically a table scan, which already decodes files ahead on
// all cores; what the workers take in parallel is everything above it.
type Morsels struct {
	mu     sync.Mutex
	in     Operator
	opened bool
	err    error // the input's Open error, given to every reader
	done   bool
	closed bool
}

// NewMorsels shares in among readers; Close closes it once they are done.
func NewMorsels(in Operator) *Morsels { return &Morsels{in: in} }

// take is the next morsel, nil at the end. The first reader opens the
// input, with its context.
func (m *Morsels) take(ctx context.Context) (arrow.RecordBatch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.opened {
		m.opened = true
		m.err = m.in.Open(ctx)
	}
	if m.err != nil {
		return nil, m.err
	}
	if m.done || m.closed {
		return nil, nil
	}
	var rec arrow.RecordBatch
	var err error
	if s, ok := m.in.(*scanOp); ok {
		rec, err = s.nextRaw(ctx)
	} else {
		rec, err = m.in.Next(ctx)
	}
	if rec == nil || err != nil {
		m.done = true
	}
	return rec, err
}

// finish is what a reader does to a morsel outside the lock: a scan's
// batch is finished (retention, conversion) by the worker that took it.
// nil when no row is left.
func (m *Morsels) finish(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if s, ok := m.in.(*scanOp); ok {
		return s.finish(ctx, rec)
	}
	return rec, nil
}

// Close closes the input; readers then see its end.
func (m *Morsels) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	return m.in.Close()
}

// Reader is one worker's view of the morsels: an operator whose batches
// are the morsels this worker took. Closing it leaves the shared input
// open for the others.
func (m *Morsels) Reader() Operator { return &morselReader{m: m} }

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
