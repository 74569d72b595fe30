package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// insertOp is the sink at the root of an INSERT's plan.
type insertOp struct {
	in  Operator
	t   *Target
	ret []expr.Expr
	ec  *expr.Ctx
	ts  []types.T

	w    link.RowWriter
	n    int64
	done bool

	up *Upserter // an upsert's writer (upsert.go)
}

var _ Operator = (*insertOp)(nil)

// NewInsert returns the sink of an INSERT. It writes the rows of in (one
// column per table column, in table order, of the columns' types) to t
// through the statement's writer, ec.Writer, and yields the RETURNING
// rows, ret evaluated over each row written; without ret it yields one
// bigint row, the number of rows written. Rows are written batch by batch
// as they come, but nothing is visible until the session ends the
// statement (link.Statement), so the statement happens whole or not at
// all, and the RETURNING list's subqueries see the table as it was.
//
// UPDATE, DELETE and MERGE will be sinks of this shape, writing their
// delete files and new rows through the same writer.
func NewInsert(in Operator, t *Target, ret []expr.Expr, ec *expr.Ctx) Operator {
	ts := []types.T{types.TInt8}
	if ret != nil {
		ts = make([]types.T, len(ret))
		for i, e := range ret {
			ts[i] = e.Type()
		}
	}
	return &insertOp{in: in, t: t, ret: ret, ec: ec, ts: ts}
}

func (s *insertOp) Types() []types.T { return s.ts }

func (s *insertOp) Open(ctx context.Context) error {
	w, err := s.t.open(ctx, s.ec, "INSERT")
	if err != nil {
		return err
	}
	s.w, s.n, s.done, s.up = w, 0, false, nil
	if s.t.Conflict != nil {
		s.up = NewUpserter(s.t, w, s.ec)
	}
	return s.in.Open(ctx)
}

func (s *insertOp) Close() error { return s.in.Close() }

func (s *insertOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for !s.done {
		rec, err := s.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			s.done = true
			if s.ret == nil {
				return countRow(s.n), nil
			}
			return nil, nil
		}
		out, err := s.write(ctx, rec)
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
	return nil, nil
}

// write writes one batch and returns its RETURNING rows, if any.
func (s *insertOp) write(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if s.t.Conflict != nil {
		// An upsert writes some rows, replaces others, skips the rest.
		up, err := s.up.Write(ctx, rec)
		if err != nil || up == nil {
			return nil, err
		}
		defer up.Release()
		rec = up
	} else if err := s.t.Write(s.w, rec); err != nil {
		return nil, err
	}
	s.n += rec.NumRows()
	if s.ret == nil || rec.NumRows() == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, len(s.ret))
	for i, e := range s.ret {
		var err error
		if cols[i], err = e.Eval(s.ec, rec); err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
	}
	out := array.NewRecordBatch(Schema(s.ts), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// count is the one row a sink without RETURNING yields.

// countRow is the one bigint row a sink without RETURNING yields.
func countRow(n int64) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Append(n)
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(Schema([]types.T{types.TInt8}), []arrow.Array{col}, 1)
}
