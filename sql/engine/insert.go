package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// runInsert runs an INSERT the planner planned (plan.Insert), kept by its
// statement (plancache.go) and built with env: its sink writes through
// the statement's writer, which goes into the plan's execution context.
// The RETURNING rows are held in memory until the statement has ended, so
// a client sees none of a statement that fails. The tag is INSERT's.
func (s *Session) runInsert(ctx context.Context, q *plan.Query, env build.Env) (*Cursor, error) {
	return s.runWriteStmt(ctx, q, env, "INSERT 0 ")
}

// runWriteStmt runs an INSERT, UPDATE or DELETE as runInsert does; its
// tag is tag followed by the number of rows written.
func (s *Session) runWriteStmt(ctx context.Context, q *plan.Query, env build.Env, tag string) (*Cursor, error) {
	cols := columns(q)
	var recs []arrow.RecordBatch
	release := func() {
		releaseAll(recs)
		recs = nil
	}
	count, err := s.writing(ctx, func(w link.Writer) (int64, error) {
		if len(q.Columns) == 0 {
			return runWrite(ctx, q.Root, env, w, nil)
		}
		return runWrite(ctx, q.Root, env, w, &recs)
	})
	if err != nil {
		release()
		return nil, err
	}
	tag = fmt.Sprintf("%s%d", tag, count)
	if len(q.Columns) == 0 {
		return &Cursor{tag: tag, sess: s}, nil
	}
	out, err := build.Build(ctx, &physical.Batches{ColumnTypes: q.Root.Types(), Recs: recs}, env)
	if err != nil {
		release()
		return nil, err
	}
	c, err := s.queryCursor(ctx, cols, out, release)
	if err != nil {
		return nil, err
	}
	c.tagFn = func(int64) string { return tag }
	return c, nil
}

// runWrite builds and runs a plan whose root is a sink, with the
// statement's writer w in its execution context, and returns the number
// of rows it wrote. With returning set the sink's RETURNING rows are kept
// there (the caller releases them); else the sink yields its count.
func runWrite(ctx context.Context, root physical.Node, env build.Env, w link.Writer, returning *[]arrow.RecordBatch) (int64, error) {
	env.Ec.Writer = w
	defer func() { env.Ec.Writer = nil }()
	op, err := build.Build(ctx, root, env)
	if err != nil {
		return 0, err
	}
	recs, err := runSink(ctx, op)
	if err != nil {
		return 0, err
	}
	if returning == nil {
		defer releaseAll(recs)
		return sinkCount(recs), nil
	}
	*returning = recs
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	return n, nil
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
