package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// MergeKind is what a MERGE's WHEN clause does to the rows it takes.
type MergeKind int

const (
	MergeNothing MergeKind = iota // DO NOTHING
	MergeUpdate                   // UPDATE SET …: delete the row, add its new version
	MergeDelete                   // DELETE
	MergeInsert                   // INSERT …: add a new row
)

func (k MergeKind) String() string {
	return [...]string{"DO NOTHING", "UPDATE", "DELETE", "INSERT"}[k]
}

// MergeAction is one WHEN clause of a MERGE, over the rows of the join
// the sink reads.
type MergeAction struct {
	// Matched: WHEN MATCHED (rows with a target row) or WHEN NOT MATCHED.
	Matched bool
	Kind    MergeKind
	// Cond is the clause's AND condition; nil when it has none.
	Cond expr.Expr
	// Row is, for UPDATE and INSERT, the row written: one expression per
	// table column, in table order, of the column's type.
	Row []expr.Expr
}

// mergeOp is the sink at the root of a MERGE's plan.
type mergeOp struct {
	in      Operator
	t       *Target
	rowID   int
	actions []MergeAction
	ec      *expr.Ctx

	w link.RowWriter
	n int64
	// rows counts the joined rows read; done[k] those a clause of kind k
	// took (EXPLAIN ANALYZE's Tuples line).
	rows int64
	done [4]int64
	// touched are the target rows this statement updated or deleted: a
	// second action on one is PostgreSQL's 21000. A bitmap, as a MERGE
	// may touch every row of a large table.
	touched *roaring64.Bitmap
	ended   bool
}

var _ Operator = (*mergeOp)(nil)

// NewMerge returns the sink of a MERGE. in yields the source rows joined
// to the target's (source LEFT JOIN target, or an inner join when no
// clause is WHEN NOT MATCHED), with the target row's id in column rowID:
// NULL when the source row matched none. Each row takes the first of
// actions whose kind of match and condition it meets, in order, as
// PostgreSQL's clauses do; updated and deleted rows are deleted by id
// and new rows added through the statement's writer, ec.Writer. It
// yields one bigint row: the rows inserted, updated and deleted.
func NewMerge(in Operator, t *Target, rowID int, actions []MergeAction, ec *expr.Ctx) Operator {
	return &mergeOp{in: in, t: t, rowID: rowID, actions: actions, ec: ec}
}

func (s *mergeOp) Types() []types.T { return []types.T{types.TInt8} }

func (s *mergeOp) Open(ctx context.Context) error {
	w, err := s.t.open(ctx, s.ec, "MERGE")
	if err != nil {
		return err
	}
	s.w, s.n, s.ended, s.touched = w, 0, false, roaring64.New()
	s.rows, s.done = 0, [4]int64{}
	return s.in.Open(ctx)
}

func (s *mergeOp) Close() error { return s.in.Close() }

func (s *mergeOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.ended {
		return nil, nil
	}
	for {
		rec, err := s.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			s.ended = true
			return countRow(s.n), nil
		}
		err = s.merge(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
}

// merge applies the WHEN clauses to one batch of joined rows.
func (s *mergeOp) merge(ctx context.Context, rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	s.rows += int64(n)
	ids, ok := rec.Column(s.rowID).(*array.Int64)
	if !ok {
		return errors.New("exec: MERGE's row id column is not bigint")
	}
	// Each row's clause: the first whose condition holds, evaluated only
	// over the rows no earlier clause took (a later condition may fail on
	// rows it would never see in PostgreSQL, 1/0 say).
	chosen := make([]int, n)
	for i := range chosen {
		chosen[i] = -1
	}
	for a, act := range s.actions {
		var open []int
		for i := 0; i < n; i++ {
			if chosen[i] < 0 && ids.IsValid(i) == act.Matched {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			continue
		}
		if act.Cond == nil {
			for _, i := range open {
				chosen[i] = a
			}
			continue
		}
		hold, err := s.eval(ctx, rec, open, act.Cond)
		if err != nil {
			return err
		}
		mask, ok := hold.(*array.Boolean)
		if !ok {
			hold.Release()
			return errors.New("exec: MERGE's WHEN condition is not boolean")
		}
		for k, i := range open {
			if mask.IsValid(k) && mask.Value(k) {
				chosen[i] = a
			}
		}
		hold.Release()
	}
	var dels []int64
	var adds []arrow.RecordBatch
	defer func() {
		for _, r := range adds {
			r.Release()
		}
	}()
	for a, act := range s.actions {
		var rows []int
		for i, c := range chosen {
			if c == a {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 || act.Kind == MergeNothing {
			continue
		}
		if act.Kind == MergeUpdate || act.Kind == MergeDelete {
			for _, i := range rows {
				id := ids.Value(i)
				if !s.touched.CheckedAdd(uint64(id)) {
					return pgerr.New(pgerr.CardinalityViolation, "MERGE command cannot affect row a second time").
						WithHint("Ensure that not more than one source row matches any one target row.")
				}
				dels = append(dels, id)
			}
		}
		if act.Kind == MergeUpdate || act.Kind == MergeInsert {
			out, err := s.newRows(ctx, rec, rows, act.Row)
			if err != nil {
				return err
			}
			adds = append(adds, out)
		}
		s.n += int64(len(rows))
		s.done[act.Kind] += int64(len(rows))
	}
	// The old rows go before the new ones come, as UPDATE's do: an updated
	// row that keeps its key must not meet itself in a keyed table.
	if len(dels) > 0 {
		if _, err := s.w.Delete(dels); err != nil {
			return err
		}
	}
	for _, out := range adds {
		if err := s.t.Write(s.w, out); err != nil {
			return err
		}
	}
	return nil
}

// RunDetails is the line PostgreSQL's EXPLAIN ANALYZE shows under a
// MERGE: the joined rows inserted, updated and deleted, and those no
// clause changed (skipped), each when not zero.
func (s *mergeOp) RunDetails() []string {
	line := "Tuples:"
	skipped := s.rows - s.done[MergeInsert] - s.done[MergeUpdate] - s.done[MergeDelete]
	for _, c := range []struct {
		name string
		n    int64
	}{{"inserted", s.done[MergeInsert]}, {"updated", s.done[MergeUpdate]}, {"deleted", s.done[MergeDelete]}, {"skipped", skipped}} {
		if c.n > 0 {
			line += fmt.Sprintf(" %s=%d", c.name, c.n)
		}
	}
	return []string{line}
}

// newRows are the rows the expressions row make of rec's rows at idx.
func (s *mergeOp) newRows(ctx context.Context, rec arrow.RecordBatch, idx []int, row []expr.Expr) (arrow.RecordBatch, error) {
	sub, err := takeRows(ctx, rec, idx)
	if err != nil {
		return nil, err
	}
	defer sub.Release()
	cols := make([]arrow.Array, len(row))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, e := range row {
		if cols[i], err = e.Eval(s.ec, sub); err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(Schema(s.t.Types), cols, sub.NumRows()), nil
}

// eval evaluates e over rec's rows at idx.
func (s *mergeOp) eval(ctx context.Context, rec arrow.RecordBatch, idx []int, e expr.Expr) (arrow.Array, error) {
	sub, err := takeRows(ctx, rec, idx)
	if err != nil {
		return nil, err
	}
	defer sub.Release()
	return e.Eval(s.ec, sub)
}

// takeRows is rec's rows at idx, in that order.
func takeRows(ctx context.Context, rec arrow.RecordBatch, idx []int) (arrow.RecordBatch, error) {
	if len(idx) == int(rec.NumRows()) {
		all := true
		for k, i := range idx {
			all = all && k == i
		}
		if all {
			rec.Retain()
			return rec, nil
		}
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for _, i := range idx {
		b.Append(int64(i))
	}
	ix := b.NewArray()
	defer ix.Release()
	return expr.TakeRecord(ctx, rec, ix)
}
