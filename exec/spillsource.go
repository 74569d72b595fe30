package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/exec/spill"
	"github.com/loamdb/loam/types"
)

// spillSource reads back the batches of a spill file, as an operator.
// The file stays its writer's to remove.
type spillSource struct {
	f  *spill.File
	ts []types.T
	r  *spill.Reader
}

func newSpillSource(f *spill.File, ts []types.T) Operator { return &spillSource{f: f, ts: ts} }

func (s *spillSource) Types() []types.T { return s.ts }

func (s *spillSource) Open(context.Context) error {
	r, err := s.f.Reader()
	s.r = r
	return err
}

func (s *spillSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.r.Next()
}

func (s *spillSource) Close() error {
	if s.r == nil {
		return nil
	}
	err := s.r.Close()
	s.r = nil
	return err
}

// spillFiles makes n empty spill files of the budget's statement.
func spillFiles(ctx context.Context, n int) ([]*spill.File, error) {
	b := budgetOf(ctx)
	fs := make([]*spill.File, n)
	for i := range fs {
		f, err := spill.Create(b)
		if err != nil {
			removeFiles(fs)
			return nil, err
		}
		fs[i] = f
	}
	return fs, nil
}

func removeFiles(fs []*spill.File) {
	for _, f := range fs {
		f.Remove()
	}
}

// drainCounted is Drain holding the rows in acct (nil: uncounted): an
// input that does not fit (and that the operator cannot spill) fails with
// 53200.
func drainCounted(ctx context.Context, in Operator, acct *mem.Account, what string) (arrow.RecordBatch, error) {
	var recs []arrow.RecordBatch
	defer func() { releaseAll(recs) }()
	for {
		rec, err := in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		recs = append(recs, rec)
		if acct == nil {
			continue
		}
		if err := acct.Grow(spill.Size(rec), what); err != nil {
			return nil, err
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	return Concat(Schema(in.Types()), recs)
}
