package exec

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// SortKey is one ORDER BY item.
type SortKey struct {
	Expr       expr.Expr
	Desc       bool
	NullsFirst bool
}

type sortOp struct {
	in   Operator
	keys []SortKey
	ec   *expr.Ctx
	out  arrow.RecordBatch
	pos  int64
	done bool
	topN int64 // > 0: only the first topN rows are wanted
	// ext sorts a whole input within the query's memory budget
	// (extsort.go), spilling sorted runs when it must.
	ext *Sorter
}

var _ Operator = (*sortOp)(nil)

// NewSort orders all of its input by keys (stable). Text orders by bytes,
// as the C collation does.
func NewSort(in Operator, keys []SortKey, ec *expr.Ctx) Operator {
	return &sortOp{in: in, keys: keys, ec: ec}
}

// NewTopN is NewSort when only the first n rows are wanted (ORDER BY …
// LIMIT n): it keeps the best n rows seen so far, not the whole input.
func NewTopN(in Operator, keys []SortKey, n int64, ec *expr.Ctx) Operator {
	return &sortOp{in: in, keys: keys, ec: ec, topN: max(n, 1)}
}

func (s *sortOp) Types() []types.T               { return s.in.Types() }
func (s *sortOp) Open(ctx context.Context) error { return s.in.Open(ctx) }
func (s *sortOp) Close() error {
	if s.ext != nil {
		s.ext.Close()
		s.ext = nil
	}
	if s.out != nil {
		s.out.Release()
		s.out = nil
	}
	return s.in.Close()
}

func (s *sortOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.topN == 0 || s.topN > maxTopN {
		return s.nextExternal(ctx)
	}
	if !s.done {
		s.done = true
		// Only a small TopN gets here: a full sort went to nextExternal.
		all, err := s.best(ctx)
		if err != nil {
			return nil, err
		}
		if all == nil {
			return nil, nil
		}
		defer all.Release()
		if s.out, err = s.sort(ctx, all); err != nil {
			return nil, err
		}
	}
	return nextSlice(s.out, &s.pos), nil
}

// nextSlice is the next batch of up to BatchSize rows of a sorted rec
// from *pos on, or nil at its end (or when rec is nil).
func nextSlice(rec arrow.RecordBatch, pos *int64) arrow.RecordBatch {
	if rec == nil || *pos >= rec.NumRows() {
		return nil
	}
	end := min(*pos+BatchSize, rec.NumRows())
	out := rec.NewSlice(*pos, end)
	*pos = end
	return out
}

// maxTopN is the largest LIMIT kept by best rows; a larger one sorts the
// whole input within the memory budget (the Limit above stops it).
const maxTopN = 1 << 20

// nextExternal sorts the whole input through a Sorter.
func (s *sortOp) nextExternal(ctx context.Context) (arrow.RecordBatch, error) {
	if !s.done {
		s.done = true
		s.ext = NewSorter(ctx, s.ec, s.in.Types(), s.keys)
		for {
			rec, err := s.in.Next(ctx)
			if err != nil {
				return nil, err
			}
			if rec == nil {
				break
			}
			if err := s.ext.Add(ctx, rec); err != nil {
				return nil, err
			}
		}
		if err := s.ext.Sort(ctx); err != nil {
			return nil, err
		}
	}
	return s.ext.Next(ctx)
}

func (s *sortOp) sort(ctx context.Context, all arrow.RecordBatch) (arrow.RecordBatch, error) {
	idx, err := SortIndices(ctx, s.ec, all, s.keys)
	if err != nil {
		return nil, err
	}
	defer idx.Release()
	return expr.TakeRecord(ctx, all, idx)
}

// SortIndices is the stable order of all's rows by keys, as row indices
// (uint64); window operators sort through it and keep the permutation.
func SortIndices(ctx context.Context, ec *expr.Ctx, all arrow.RecordBatch, keys []SortKey) (arrow.Array, error) {
	cols := make([]arrow.Array, len(keys))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, k := range keys {
		v, err := k.Expr.Eval(ec, all)
		if err != nil {
			return nil, err
		}
		if k.Expr.Type().Kind == types.Numeric && !numericSortsAsIs(k.Expr.Type()) {
			// Order numeric by value, not by its text: exactly, by rank
			// (scaled integers of one scale order as they are).
			r, err := numericRanks(v)
			v.Release()
			if err != nil {
				return nil, err
			}
			v = r
		}
		if t := k.Expr.Type(); t.Kind == types.Array {
			// Order arrays element by element, not by their text.
			r, err := arrayRanks(v, t)
			v.Release()
			if err != nil {
				return nil, err
			}
			v = r
		}
		if k.Expr.Type().Kind == types.JSONB {
			// Order jsonb as PostgreSQL's btree does, by rank.
			r, err := jsonbRanks(v)
			v.Release()
			if err != nil {
				return nil, err
			}
			v = r
		}
		if k.Expr.Type().Kind == types.Interval {
			// Order intervals by span; Arrow cannot sort month-day-nano.
			f := expr.IntervalSortKeys(v)
			v.Release()
			v = f
		}
		cols[i] = v
	}
	n := int(all.NumRows())
	if out, ok, err := fastSortIndices(ctx, cols, keys, n); ok || err != nil {
		return out, err
	}
	return arrowSortIndices(ctx, cols, keys, n)
}

// arrowSortIndices sorts by the key columns with Arrow's kernel, NaN
// placed as PostgreSQL places it.
func arrowSortIndices(ctx context.Context, cols []arrow.Array, keys []SortKey, n int) (arrow.Array, error) {
	var ckeys []compute.SortKey
	var extra []arrow.Array // NaN flags, after the keys' columns
	defer func() {
		for _, c := range extra {
			c.Release()
		}
	}()
	for i, k := range keys {
		v := cols[i]
		ck := compute.SortKey{ColumnIndex: i, Order: compute.SortOrderAscending, NullPlacement: compute.SortNullsAtEnd}
		if k.Desc {
			ck.Order = compute.SortOrderDescending
		}
		if k.NullsFirst {
			ck.NullPlacement = compute.SortNullsAtStart
		}
		if flags := nanFlags(v); flags != nil && (k.Desc || k.NullsFirst) {
			// Arrow puts NaN where it puts NULLs; PostgreSQL's NaN is the
			// greatest value (first in DESC, last in ASC before NULLS
			// LAST): a flag sorts it there.
			flagKey := ck
			flagKey.ColumnIndex = len(keys) + len(extra)
			extra = append(extra, flags)
			ckeys = append(ckeys, flagKey)
		}
		ckeys = append(ckeys, ck)
	}
	all := append(append([]arrow.Array{}, cols...), extra...)
	fields := make([]arrow.Field, len(all))
	for i, c := range all {
		fields[i] = arrow.Field{Name: colName(i), Type: c.DataType(), Nullable: true}
	}
	keyRec := array.NewRecordBatch(arrow.NewSchema(fields, nil), all, int64(n))
	defer keyRec.Release()
	return compute.SortIndicesRecordBatch(ctx, keyRec, ckeys)
}

// best reads the input keeping only the topN first rows in order: rows
// gather until there are enough to be worth sorting, and each sort keeps
// the first topN. The stable sort keeps earlier rows first among equals.
func (s *sortOp) best(ctx context.Context) (arrow.RecordBatch, error) {
	var recs []arrow.RecordBatch
	var n int64
	defer func() { releaseAll(recs) }()
	sc := Schema(s.in.Types())
	cut := func() error {
		all, err := Concat(sc, recs)
		releaseAll(recs)
		recs = nil
		if err != nil {
			return err
		}
		sorted, err := s.sort(ctx, all)
		all.Release()
		if err != nil {
			return err
		}
		keep := sorted.NewSlice(0, min(s.topN, sorted.NumRows()))
		sorted.Release()
		recs, n = []arrow.RecordBatch{keep}, keep.NumRows()
		return nil
	}
	limit := max(2*s.topN, 4*BatchSize)
	for {
		rec, err := s.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		recs = append(recs, rec)
		if n += rec.NumRows(); n >= limit {
			if err := cut(); err != nil {
				return nil, err
			}
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	if err := cut(); err != nil {
		return nil, err
	}
	out := recs[0]
	recs = nil
	return out, nil
}

// Drain reads every batch of an operator into one, nil when there are none.
func Drain(ctx context.Context, in Operator) (arrow.RecordBatch, error) {
	return drainCounted(ctx, in, nil, "")
}

// Concat joins batches of one schema into one batch.
func Concat(sc *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	n := int64(0)
	for _, r := range recs {
		n += r.NumRows()
	}
	cols := make([]arrow.Array, sc.NumFields())
	parts := make([]arrow.Array, len(recs))
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(sc, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// numericRanks maps numeric values (carried as text) to int64 ranks that
// order as the values do; equal values (1.0 and 1.00) share a rank.
func numericRanks(v arrow.Array) (arrow.Array, error) {
	return textRanks(v, "numeric", types.ParseDec, func(a, b types.Dec) int { return a.Cmp(&b) })
}

// jsonbRanks maps jsonb values (carried as text) to int64 ranks that order
// as PostgreSQL orders jsonb (null < strings < numbers < booleans < arrays
// < objects); equal values share a rank.
func jsonbRanks(v arrow.Array) (arrow.Array, error) {
	return textRanks(v, "jsonb", types.ParseJSON, expr.CompareJSONBValues)
}

// textRanks maps the values of a column carried as text to int64 ranks
// that order as cmp orders their parsed forms, so that the sort compares
// integers; equal values share a rank and NULLs stay NULL. Each distinct
// text is parsed once.
func textRanks[T any](v arrow.Array, what string, parse func(string) (T, error), cmp func(a, b T) int) (arrow.Array, error) {
	sa, ok := v.(*array.String)
	if !ok {
		return nil, fmt.Errorf("sort: %s column is %s, not text", what, v.DataType())
	}
	distinct := map[string]int{}
	var vals []T
	for i := 0; i < sa.Len(); i++ {
		if sa.IsNull(i) {
			continue
		}
		t := sa.Value(i)
		if _, ok := distinct[t]; ok {
			continue
		}
		x, err := parse(t)
		if err != nil {
			return nil, err
		}
		distinct[t] = len(vals)
		vals = append(vals, x)
	}
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return cmp(vals[order[a]], vals[order[b]]) < 0 })
	rank := make([]int64, len(vals))
	for i, o := range order {
		if i > 0 && cmp(vals[o], vals[order[i-1]]) == 0 {
			rank[o] = rank[order[i-1]]
		} else {
			rank[o] = int64(i)
		}
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(sa.Len())
	for i := 0; i < sa.Len(); i++ {
		if sa.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(rank[distinct[sa.Value(i)]])
	}
	return b.NewArray(), nil
}

// nanFlags is 1 where a float column holds NaN, 0 elsewhere, NULL where it
// is NULL; nil when v is not float or holds no NaN.
func nanFlags(v arrow.Array) arrow.Array {
	var isNaN func(i int) bool
	switch f := v.(type) {
	case *array.Float64:
		isNaN = func(i int) bool { x := f.Value(i); return x != x }
	case *array.Float32:
		isNaN = func(i int) bool { x := f.Value(i); return x != x }
	default:
		return nil
	}
	any := false
	for i := 0; i < v.Len() && !any; i++ {
		any = v.IsValid(i) && isNaN(i)
	}
	if !any {
		return nil
	}
	b := array.NewInt8Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < v.Len(); i++ {
		switch {
		case v.IsNull(i):
			b.AppendNull()
		case isNaN(i):
			b.Append(1)
		default:
			b.Append(0)
		}
	}
	return b.NewArray()
}

// numericSortsAsIs reports a numeric carried as scaled integers of one
// scale, which sort by value as they are.
func numericSortsAsIs(t types.T) bool {
	_, _, dec := t.Decimal()
	_, _, wide := t.Wide()
	return dec || wide
}
