package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
)

// SelOperator is an Operator that can pass its output as a batch and a
// selection of its rows instead of copying the rows it keeps (a filter,
// and the operators that carry a selection through: project, limit).
// Operators that understand selections read their input with NextSel
// (see Selecting); the others call Next and get a compacted batch, as
// from any operator.
type SelOperator interface {
	Operator
	// NextSel is Next without compaction: a batch (the caller's, as from
	// Next) and the rows of it that are in the output, ascending, or nil
	// for all of them. The selection belongs to the operator and is valid
	// until its next NextSel. A batch with no rows selected is never
	// returned; at the end the batch is nil. An operator is read with Next
	// or with NextSel, not both.
	NextSel(ctx context.Context) (arrow.RecordBatch, []int32, error)
}

// Selecting is in read through NextSel: in itself when it is a
// SelOperator, else in with every row of each batch selected.
func Selecting(in Operator) SelOperator {
	if s, ok := in.(SelOperator); ok {
		return s
	}
	return allRows{in}
}

type allRows struct{ Operator }

func (a allRows) NextSel(ctx context.Context) (arrow.RecordBatch, []int32, error) {
	rec, err := a.Next(ctx)
	return rec, nil, err
}

// Compact is the batch of rec's rows sel lists (nil: rec itself). rec
// stays the caller's; the result is a new reference.
func Compact(rec arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
	if sel == nil || len(sel) == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil
	}
	return expr.Gather(rec, sel, nil)
}

// NextCompacted is Next over a SelOperator: its next batch with the
// selected rows gathered.
func NextCompacted(ctx context.Context, in SelOperator) (arrow.RecordBatch, error) {
	rec, sel, err := in.NextSel(ctx)
	if rec == nil || err != nil || sel == nil {
		return rec, err
	}
	out, err := Compact(rec, sel)
	rec.Release()
	return out, err
}

// gatherUsed is the batch of rec's selected rows in the columns used
// marks, for evaluating expressions on those rows alone: rec itself when
// every row is selected.
func gatherUsed(rec arrow.RecordBatch, sel []int32, used []bool) (arrow.RecordBatch, error) {
	if sel == nil || len(sel) == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil
	}
	return expr.Gather(rec, sel, used)
}
