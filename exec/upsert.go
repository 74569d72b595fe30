package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// Conflict makes an INSERT an upsert: INSERT … ON CONFLICT, or any INSERT
// into a table WITH (merge = 'last_non_null'). A proposed row whose key a
// live row holds (the table's key index finds it: link.KeyWriter) is
// skipped (DO NOTHING) or replaces that row (DO UPDATE): the old row is
// deleted by its row id and the row Set computes is added.
type Conflict struct {
	// Arbiters are the key constraints checked (indexes into
	// link.KeyWriter.Constraints); nil checks every one. Names are theirs,
	// for EXPLAIN.
	Arbiters []int
	Names    []string
	Update   bool
	// Set and Where are evaluated over the existing row's columns followed
	// by the proposed row's (EXCLUDED): Set one expression per table
	// column, Where a filter of the rows to update (nil for all).
	Set   []expr.Expr
	Where expr.Expr
	// Merge marks a merge = 'last_non_null' table: rows of one key within
	// the statement merge in turn instead of raising 21000.
	Merge bool
}

// Upserter writes an upsert's rows to one table: an INSERT's sink, or a
// COPY into a merge = 'last_non_null' table. It lives for one statement.
type Upserter struct {
	t       *Target
	w       link.RowWriter
	ec      *expr.Ctx
	touched map[int64]bool // rows replaced so far
}

// NewUpserter returns the upserter of a statement writing t (whose
// Conflict is set) through w.
func NewUpserter(t *Target, w link.RowWriter, ec *expr.Ctx) *Upserter {
	return &Upserter{t: t, w: w, ec: ec, touched: map[int64]bool{}}
}

// MergeConflict is the Conflict of a table WITH (merge =
// 'last_non_null') of columns of types ts: each column takes the
// proposed value unless it is NULL, and rows of one key merge in turn.
func MergeConflict(ts []types.T, names []string) *Conflict {
	set := make([]expr.Expr, len(ts))
	for i, t := range ts {
		set[i] = &expr.Coalesce{Args: []expr.Expr{&expr.Col{Idx: len(ts) + i, T: t}, &expr.Col{Idx: i, T: t}}, T: t}
	}
	return &Conflict{Update: true, Merge: true, Set: set, Names: names}
}

// Write writes one batch of an upsert and returns the rows it wrote
// (inserted and updated), one column per table column, for RETURNING and
// the count.
func (s *Upserter) Write(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	c := s.t.Conflict
	kw, ok := s.w.(link.KeyWriter)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "INSERT … ON CONFLICT into a branch is not supported")
	}
	// written are the rows written, each with its row's place in rec:
	// RETURNING lists them in the order proposed.
	var written []arrow.RecordBatch
	var order []int32
	defer func() {
		for _, w := range written {
			w.Release()
		}
	}()
	pending := rec
	pending.Retain()
	defer func() { pending.Release() }()
	place := make([]int32, rec.NumRows()) // pending's rows' places in rec
	for i := range place {
		place[i] = int32(i)
	}
	for pending.NumRows() > 0 {
		conv, err := s.t.Convert(pending)
		if err != nil {
			return nil, err
		}
		confs, err := kw.Conflicts(conv, c.Arbiters)
		conv.Release()
		if err != nil {
			return nil, err
		}
		var ins, upd, later []int32
		var ids []int64
		for i, cf := range confs {
			switch {
			case cf.Earlier >= 0:
				// An earlier row of this batch, to be inserted, has its key.
				if c.Merge {
					later = append(later, int32(i))
				} else if c.Update {
					return nil, affectTwice()
				}
			case cf.Row >= 0:
				if !c.Update {
					continue
				}
				if (cf.Own || s.touched[cf.Row]) && !c.Merge {
					return nil, affectTwice()
				}
				if s.touched[cf.Row] {
					later = append(later, int32(i))
					continue
				}
				s.touched[cf.Row] = true
				upd = append(upd, int32(i))
				ids = append(ids, cf.Row)
			default:
				ins = append(ins, int32(i))
			}
		}
		if len(ins) > 0 {
			sub, err := TakeRows(ctx, pending, ins)
			if err != nil {
				return nil, err
			}
			written = append(written, sub)
			for _, i := range ins {
				order = append(order, place[i])
			}
			if err := s.t.Write(s.w, sub); err != nil {
				return nil, err
			}
		}
		if len(upd) > 0 {
			out, kept, err := s.update(ctx, kw, pending, upd, ids)
			if err != nil {
				return nil, err
			}
			if out != nil {
				written = append(written, out)
				for _, k := range kept {
					order = append(order, place[upd[k]])
				}
			}
		}
		next, err := TakeRows(ctx, pending, later)
		if err != nil {
			return nil, err
		}
		pending.Release()
		pending = next
		nextPlace := make([]int32, len(later))
		for k, i := range later {
			nextPlace[k] = place[i]
		}
		place = nextPlace
	}
	if len(written) == 0 {
		return nil, nil
	}
	all, err := link.Concat(written)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	rows := make([]int32, len(order))
	for i := range rows {
		rows[i] = int32(i)
	}
	slices.SortStableFunc(rows, func(a, b int32) int { return int(order[a] - order[b]) })
	return TakeRows(ctx, all, rows)
}

func affectTwice() error {
	return pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
		WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
}

// update replaces the live rows ids with Set evaluated over each and its
// proposed row (rows rows of rec), where Where holds; it returns the new
// rows, or nil when none passed Where, and which of rows they are.
func (s *Upserter) update(ctx context.Context, kw link.KeyWriter, rec arrow.RecordBatch, rows []int32, ids []int64) (arrow.RecordBatch, []int, error) {
	c := s.t.Conflict
	which := make([]int, len(rows))
	for i := range which {
		which[i] = i
	}
	old, err := kw.Fetch(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	defer old.Release()
	prop, err := TakeRows(ctx, rec, rows)
	if err != nil {
		return nil, nil, err
	}
	defer prop.Release()
	cols := make([]arrow.Array, 0, 2*len(s.t.Types))
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	for i, t := range s.t.Types {
		a, err := ice.FromArrow(old.Column(i), t)
		if err != nil {
			return nil, nil, err
		}
		cols = append(cols, a)
	}
	for _, a := range prop.Columns() {
		a.Retain()
		cols = append(cols, a)
	}
	ts := slices.Concat(s.t.Types, s.t.Types)
	both := array.NewRecordBatch(Schema(ts), cols, prop.NumRows())
	defer both.Release()
	if c.Where != nil {
		m, err := c.Where.Eval(s.ec, both)
		if err != nil {
			return nil, nil, err
		}
		mask := m.(*array.Boolean)
		var keep []int32
		var kept []int64
		which = which[:0]
		for i := range mask.Len() {
			if mask.IsValid(i) && mask.Value(i) {
				keep = append(keep, int32(i))
				kept = append(kept, ids[i])
				which = append(which, i)
			}
		}
		m.Release()
		if len(keep) == 0 {
			return nil, nil, nil
		}
		if len(keep) < int(both.NumRows()) {
			sub, err := TakeRows(ctx, both, keep)
			if err != nil {
				return nil, nil, err
			}
			defer sub.Release()
			both, ids = sub, kept
		}
	}
	out := make([]arrow.Array, len(c.Set))
	for i, e := range c.Set {
		if out[i], err = e.Eval(s.ec, both); err != nil {
			for _, a := range out[:i] {
				a.Release()
			}
			return nil, nil, err
		}
	}
	nr := array.NewRecordBatch(Schema(s.t.Types), out, both.NumRows())
	for _, a := range out {
		a.Release()
	}
	if _, err := kw.Delete(ids); err != nil {
		nr.Release()
		return nil, nil, err
	}
	if err := s.t.Write(s.w, nr); err != nil {
		nr.Release()
		return nil, nil, err
	}
	return nr, which, nil
}
