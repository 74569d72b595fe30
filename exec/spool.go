package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// Spool runs its input once and replays the rows to several readers, as
// the grouping sets of one GROUP BY each aggregate the same rows. It holds
// the whole input in memory.
type Spool struct {
	in      Operator
	recs    []arrow.RecordBatch
	filled  bool
	err     error
	readers int
	closed  int
	first   *spoolReader
}

// NewSpool spools in; read it through Reader.
func NewSpool(in Operator) *Spool { return &Spool{in: in} }

// Reader is one more consumer of the spooled rows.
func (s *Spool) Reader() Operator {
	s.readers++
	r := &spoolReader{s: s}
	if s.first == nil {
		s.first = r
	}
	return r
}

func (s *Spool) fill(ctx context.Context) error {
	if s.filled {
		return s.err
	}
	s.filled = true
	if s.err = s.in.Open(ctx); s.err == nil {
		for {
			rec, err := s.in.Next(ctx)
			if err != nil {
				s.err = err
				break
			}
			if rec == nil {
				break
			}
			s.recs = append(s.recs, rec)
		}
	}
	if err := s.in.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}

type spoolReader struct {
	s      *Spool
	i      int
	closed bool
}

func (r *spoolReader) Types() []types.T { return r.s.in.Types() }

// Open fills the spool on the first reader's first read rather than here,
// so an operator that opens all its inputs up front does not pay twice.
func (r *spoolReader) Open(context.Context) error { return nil }

func (r *spoolReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := r.s.fill(ctx); err != nil {
		return nil, err
	}
	if r.i >= len(r.s.recs) {
		return nil, nil
	}
	rec := r.s.recs[r.i]
	r.i++
	rec.Retain()
	return rec, nil
}

func (r *spoolReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.s.closed++
	if r.s.closed == r.s.readers {
		releaseAll(r.s.recs)
		r.s.recs = nil
		if !r.s.filled {
			// Never read: the input was never opened either.
			r.s.filled = true
		}
	}
	return nil
}
