package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/exec/spill"
	"github.com/loamdb/loam/types"
)

// maxMergeRuns bounds the runs merged at once (each holds a batch in
// memory); more runs are first merged into longer ones.
const maxMergeRuns = 32

// Sorter orders batches within the statement's memory budget: input is
// held in memory while the budget allows, and sorted runs are written to
// spill files when it does not; the runs are then merged (an external
// merge sort). The order is stable, as NewSort's.
type Sorter struct {
	ec    *expr.Ctx
	ts    []types.T
	keys  []SortKey
	acct  *mem.Account
	recs  []arrow.RecordBatch
	runs  []*spill.File
	out   arrow.RecordBatch // sorted in memory
	pos   int64
	merge *merger
}

// NewSorter starts a sort of batches of types ts by keys.
func NewSorter(ctx context.Context, ec *expr.Ctx, ts []types.T, keys []SortKey) *Sorter {
	return &Sorter{ec: ec, ts: ts, keys: keys, acct: budgetOf(ctx).Account()}
}

// Spilled reports whether the sort wrote runs to disk.
func (s *Sorter) Spilled() bool { return len(s.runs) > 0 }

// Add takes rec (the Sorter releases it).
func (s *Sorter) Add(ctx context.Context, rec arrow.RecordBatch) error {
	// The sort needs about as much again while it gathers the rows.
	need := 2 * spill.Size(rec)
	if s.acct.TryGrow(need) {
		s.recs = append(s.recs, rec)
		return nil
	}
	if !mergeable(s.keys) {
		rec.Release()
		return s.acct.Budget().OutOfMemory("sort", need)
	}
	s.recs = append(s.recs, rec)
	return s.spillRun(ctx)
}

// spillRun sorts the batches held and writes them as a run.
func (s *Sorter) spillRun(ctx context.Context) error {
	sorted, err := s.sortHeld(ctx, true)
	if err != nil || sorted == nil {
		return err
	}
	defer sorted.Release()
	fs, err := spillFiles(ctx, 1)
	if err != nil {
		return err
	}
	s.runs = append(s.runs, fs[0])
	for lo := int64(0); lo < sorted.NumRows(); lo += BatchSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		part := sorted.NewSlice(lo, min(lo+BatchSize, sorted.NumRows()))
		err := fs[0].Write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// sortHeld sorts the batches held, releasing them; withKeys appends the
// sort keys' values as columns after the rows' (for merging runs).
func (s *Sorter) sortHeld(ctx context.Context, withKeys bool) (arrow.RecordBatch, error) {
	recs := s.recs
	s.recs = nil
	defer func() {
		releaseAll(recs)
		s.acct.Clear()
	}()
	if len(recs) == 0 {
		return nil, nil
	}
	all, err := Concat(Schema(s.ts), recs)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	releaseAll(recs)
	recs = nil
	// The keys are evaluated once, so a volatile key (random()) sorts
	// and merges by the same values.
	cols := append([]arrow.Array(nil), all.Columns()...)
	tsk := append([]types.T(nil), s.ts...)
	ckeys := make([]SortKey, len(s.keys))
	for i, k := range s.keys {
		v, err := k.Expr.Eval(s.ec, all)
		if err != nil {
			releaseAll(nil)
			for _, c := range cols[len(s.ts):] {
				c.Release()
			}
			return nil, err
		}
		ckeys[i] = SortKey{Expr: &expr.Col{Idx: len(cols), T: k.Expr.Type()}, Desc: k.Desc, NullsFirst: k.NullsFirst}
		cols = append(cols, v)
		tsk = append(tsk, k.Expr.Type())
	}
	full := array.NewRecordBatch(Schema(tsk), cols, all.NumRows())
	for _, c := range cols[len(s.ts):] {
		c.Release()
	}
	defer full.Release()
	idx, err := SortIndices(ctx, s.ec, full, ckeys)
	if err != nil {
		return nil, err
	}
	defer idx.Release()
	if !withKeys {
		return expr.TakeRecord(ctx, all, idx)
	}
	return expr.TakeRecord(ctx, full, idx)
}

// Sort ends the input; Next then returns the rows in order.
func (s *Sorter) Sort(ctx context.Context) error {
	if len(s.runs) == 0 {
		out, err := s.sortHeld(ctx, false)
		s.out = out
		if out != nil {
			// The sorted copy stays while it is read.
			s.acct.TryGrow(spill.Size(out))
		}
		return err
	}
	if err := s.spillRun(ctx); err != nil {
		return err
	}
	for len(s.runs) > maxMergeRuns {
		if err := s.mergeRuns(ctx); err != nil {
			return err
		}
	}
	m, err := newMerger(ctx, s.runs, len(s.ts), s.keys)
	s.merge = m
	return err
}

// mergeRuns merges the first maxMergeRuns runs into one, at the end.
func (s *Sorter) mergeRuns(ctx context.Context) error {
	group := s.runs[:maxMergeRuns]
	m, err := newMerger(ctx, group, len(s.ts), s.keys)
	if err != nil {
		return err
	}
	defer m.close()
	fs, err := spillFiles(ctx, 1)
	if err != nil {
		return err
	}
	s.runs = append(s.runs[maxMergeRuns:], fs[0])
	for {
		rec, err := m.next(ctx)
		if err != nil {
			return err
		}
		if rec == nil {
			break
		}
		err = fs[0].Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	removeFiles(group)
	return nil
}

// Next is the next batch in order, nil at the end.
func (s *Sorter) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.merge != nil {
		rec, err := s.merge.next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		// Drop the key columns the runs carry.
		out := array.NewRecordBatch(Schema(s.ts), rec.Columns()[:len(s.ts)], rec.NumRows())
		rec.Release()
		return out, nil
	}
	return nextSlice(s.out, &s.pos), nil
}

// Close releases what the sort holds and removes its runs.
func (s *Sorter) Close() {
	releaseAll(s.recs)
	s.recs = nil
	if s.out != nil {
		s.out.Release()
		s.out = nil
	}
	if s.merge != nil {
		s.merge.close()
		s.merge = nil
	}
	removeFiles(s.runs)
	s.runs = nil
	s.acct.Clear()
}

// mergeable reports whether runs sorted by keys can be merged: every key
// type is one expr.CompareDatums orders as the sort does.
func mergeable(keys []SortKey) bool {
	for _, k := range keys {
		switch k.Expr.Type().Kind {
		case types.Float4, types.Float8, types.Numeric, types.Bool, types.Int2, types.Int4, types.Int8,
			types.OID, types.Date, types.Time, types.Timestamp, types.TimestampTZ, types.Bytea, types.Char,
			types.JSONB, types.Interval, types.Text, types.Varchar, types.Name, types.UUID:
		default:
			return false
		}
	}
	return true
}
