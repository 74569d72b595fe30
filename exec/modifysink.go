package exec

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// modifyOp is the sink at the root of an UPDATE's or DELETE's plan.
type modifyOp struct {
	in     Operator
	update bool
	dedupe bool // a row id may come twice (FROM, USING)
	t      *Target
	ret    []expr.Expr
	ec     *expr.Ctx
	ts     []types.T

	w    link.RowWriter
	seen map[int64]struct{} // the row ids changed so far
	n    int64
	done bool
}

var _ Operator = (*modifyOp)(nil)

// NewModify returns the sink of an UPDATE (update set) or DELETE. in
// yields each row's id (link.RowIDColumn) and then the row, one column
// per table column in table order: the new row of an UPDATE, the old row
// of a DELETE (a DELETE without ret may yield the ids alone). The sink
// deletes the rows by id through the statement's writer (ec.Writer) and,
// for an UPDATE, writes the new rows to t; it yields ret evaluated over
// those rows, or without ret one bigint row, the number of rows changed.
// With dedupe, a row id seen before in the statement is skipped: a row
// that joins several rows of FROM or USING changes once, as in
// PostgreSQL (which takes one of the joined rows; so does this, the
// first). Without it, every id must come once.
//
// The statement must hold the table's row lock from before its scan read
// the ids (link.Manager.LockRows). As for INSERT, nothing is visible
// until the session ends the statement.
func NewModify(in Operator, update, dedupe bool, t *Target, ret []expr.Expr, ec *expr.Ctx) Operator {
	ts := []types.T{types.TInt8}
	if ret != nil {
		ts = make([]types.T, len(ret))
		for i, e := range ret {
			ts[i] = e.Type()
		}
	}
	return &modifyOp{in: in, update: update, dedupe: dedupe, t: t, ret: ret, ec: ec, ts: ts}
}

func (s *modifyOp) Types() []types.T { return s.ts }

func (s *modifyOp) Open(ctx context.Context) error {
	w, err := s.t.open(ctx, s.ec, "UPDATE or DELETE")
	if err != nil {
		return err
	}
	s.w, s.n, s.done, s.seen = w, 0, false, nil
	if s.dedupe {
		s.seen = map[int64]struct{}{}
	}
	return s.in.Open(ctx)
}

func (s *modifyOp) Close() error { return s.in.Close() }

func (s *modifyOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
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
		out, err := s.change(ctx, rec)
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
	return nil, nil
}

// change changes one batch's rows and returns their RETURNING rows, if
// any.
func (s *modifyOp) change(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	idCol, ok := rec.Column(0).(*array.Int64)
	if !ok {
		return nil, errors.New("exec: UPDATE or DELETE input without row ids")
	}
	ids := make([]int64, 0, rec.NumRows())
	rows := make([]int32, 0, rec.NumRows())
	for i := 0; i < idCol.Len(); i++ {
		if idCol.IsNull(i) {
			continue
		}
		id := idCol.Value(i)
		if s.seen != nil {
			if _, dup := s.seen[id]; dup {
				continue
			}
			s.seen[id] = struct{}{}
		}
		ids = append(ids, id)
		rows = append(rows, int32(i))
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if !s.update && s.ret == nil {
		n, err := s.w.Delete(ids)
		s.n += n
		return nil, err
	}
	row, err := s.rows(ctx, rec, rows)
	if err != nil {
		return nil, err
	}
	defer row.Release()
	var conv arrow.RecordBatch
	if s.update {
		// The new rows are checked (NOT NULL) before any row is deleted:
		// a failing statement writes nothing either way, but the error is
		// the constraint's.
		tbl := s.tableCols(row)
		conv, err = s.t.Convert(tbl)
		tbl.Release()
		if err != nil {
			return nil, err
		}
		defer conv.Release()
	}
	n, err := s.w.Delete(ids)
	if err != nil {
		return nil, err
	}
	if s.update {
		// Added after the old rows went: a row keeping its key must not
		// meet itself in a keyed table's index.
		if err := s.t.keyDetail(s.w.Add(conv), row); err != nil {
			return nil, err
		}
	}
	s.n += n
	if s.ret == nil {
		return nil, nil
	}
	return evalReturning(s.ec, s.ret, s.ts, row)
}

// tableCols is the new rows' table columns: row's first columns, one
// per table column (RETURNING may read more after them).
func (s *modifyOp) tableCols(row arrow.RecordBatch) arrow.RecordBatch {
	n := len(s.t.Types)
	if int(row.NumCols()) == n {
		row.Retain()
		return row
	}
	return array.NewRecordBatch(Schema(s.in.Types()[1:1+n]), row.Columns()[:n], row.NumRows())
}

// rows is the columns after the row id of rec's rows at rows (all of them: rec
// without its row id column, when no row was skipped).
func (s *modifyOp) rows(ctx context.Context, rec arrow.RecordBatch, rows []int32) (arrow.RecordBatch, error) {
	sc := Schema(s.in.Types()[1:])
	if len(rows) == int(rec.NumRows()) {
		return array.NewRecordBatch(sc, rec.Columns()[1:], rec.NumRows()), nil
	}
	cols, err := takeCols(ctx, rec, rows)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return array.NewRecordBatch(sc, cols[1:], int64(len(rows))), nil
}

// evalReturning evaluates a RETURNING list over rows.
func evalReturning(ec *expr.Ctx, ret []expr.Expr, ts []types.T, rows arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(ret))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, e := range ret {
		var err error
		if cols[i], err = e.Eval(ec, rows); err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(Schema(ts), cols, rows.NumRows()), nil
}
