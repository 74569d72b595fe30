package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// insert runs an INSERT: the planner plans it (plan.Insert), whose sink
// writes through the statement's writer, which goes into the execution
// context ec the plan was made with. The RETURNING rows are held in
// memory until the statement has ended, so a client sees none of a
// statement that fails. The tag is INSERT's.
func (s *Session) insert(ctx context.Context, st *Statement, p *plan.Planner, ec *expr.Ctx, ins *pg.InsertStmt) (*Cursor, error) {
	q, err := p.Insert(ins)
	if err != nil {
		return nil, err
	}
	cols := columns(q)
	if st.Columns != nil && !sameResult(st.Columns, cols) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cached plan must not change result type")
	}
	var recs []arrow.RecordBatch
	release := func() {
		releaseAll(recs)
		recs = nil
	}
	count, err := s.writing(ctx, func(w link.Writer) (int64, error) {
		ec.Writer = w
		defer func() { ec.Writer = nil }()
		var err error
		recs, err = runSink(ctx, q.Root)
		if err != nil {
			return 0, err
		}
		if len(q.Columns) > 0 {
			var n int64
			for _, r := range recs {
				n += r.NumRows()
			}
			return n, nil
		}
		n := sinkCount(recs)
		release()
		return n, nil
	})
	if err != nil {
		release()
		return nil, err
	}
	tag := fmt.Sprintf("INSERT 0 %d", count)
	if len(q.Columns) == 0 {
		return &Cursor{tag: tag, sess: s}, nil
	}
	c, err := s.queryCursor(ctx, cols, exec.NewBatches(q.Root.Types(), recs), release)
	if err != nil {
		return nil, err
	}
	c.tagFn = func(int64) string { return tag }
	return c, nil
}

// runSink runs a sink to its end and returns the batches it yielded.
func runSink(ctx context.Context, op exec.Operator) ([]arrow.RecordBatch, error) {
	var recs []arrow.RecordBatch
	err := op.Open(ctx)
	for err == nil {
		var rec arrow.RecordBatch
		if rec, err = op.Next(ctx); rec == nil {
			break
		}
		recs = append(recs, rec)
	}
	op.Close()
	if err != nil {
		releaseAll(recs)
		return nil, err
	}
	return recs, nil
}

// sinkCount reads the number of rows a sink without RETURNING wrote from
// the one row it yields.
func sinkCount(recs []arrow.RecordBatch) int64 {
	var n int64
	for _, r := range recs {
		if c, ok := r.Column(0).(*array.Int64); ok {
			for i := 0; i < c.Len(); i++ {
				n += c.Value(i)
			}
		}
	}
	return n
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
