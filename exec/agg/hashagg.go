package agg

import (
	"context"
	"encoding/binary"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

var errBigintRange = pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")

type hashAggOp struct {
	in      exec.SelOperator
	groupBy []expr.Expr
	aggs    []Agg
	ec      *expr.Ctx
	ts      []types.T

	groups map[string]int32
	// A single text key is looked up by its value: strGroups, nullGroup.
	strGroups map[string]int32
	nullGroup int32
	keys      [][]types.Datum // the key values of each group, in group order
	states    []state
	// masked aggregates (FILTER or DISTINCT) keep a trash group 0 in their
	// state for the rows they skip; real group g lives at g+1.
	masked  []bool
	seen    []map[string]struct{}    // DISTINCT: (group, value) keys seen
	seenFix []map[[2]uint64]struct{} // the same for one fixed-width argument
	maskBuf []int32
	done    bool
	scalar  bool // no GROUP BY: one group even over no rows
	keyBuf  []byte
	gidsBuf []int32
	dict    *dictKeys // group keys that may be dictionaries (dictgroups.go)
	used    []bool    // the input columns keys and aggregates read; nil until known
	// spill holds the groups that did not fit the query's memory budget
	// (hashagg_spill.go).
	spill aggSpill
}

var _ exec.Operator = (*hashAggOp)(nil)

// NewHashAgg groups its input by the groupBy expressions and computes aggs
// per group. Output columns: the group keys, then the aggregates. Without
// GROUP BY it produces exactly one row, even over empty input.
func NewHashAgg(in exec.Operator, groupBy []expr.Expr, aggs []Agg, ec *expr.Ctx) exec.Operator {
	ts := make([]types.T, 0, len(groupBy)+len(aggs))
	for _, g := range groupBy {
		ts = append(ts, g.Type())
	}
	for _, a := range aggs {
		ts = append(ts, a.T)
	}
	return &hashAggOp{in: exec.Selecting(in), groupBy: groupBy, aggs: aggs, ec: ec, ts: ts, scalar: len(groupBy) == 0}
}

func (h *hashAggOp) Types() []types.T { return h.ts }
func (h *hashAggOp) Open(ctx context.Context) error {
	h.groups = map[string]int32{}
	h.strGroups = nil
	h.states = make([]state, len(h.aggs))
	h.masked = make([]bool, len(h.aggs))
	h.seen = make([]map[string]struct{}, len(h.aggs))
	h.seenFix = make([]map[[2]uint64]struct{}, len(h.aggs))
	for i, a := range h.aggs {
		h.states[i] = newState(a, h.ec)
		h.masked[i] = a.Filter != nil || a.Distinct
		if t, ok := h.states[i].(trasher); ok && h.masked[i] {
			t.setTrash()
		}
		if a.Distinct {
			if a.Arg2 == nil && fixedBits(a.Arg.Type(), nil) != nil {
				h.seenFix[i] = map[[2]uint64]struct{}{}
			} else {
				h.seen[i] = map[string]struct{}{}
			}
		}
	}
	h.spill.open(ctx, int64(96+48*len(h.groupBy)+24*len(h.aggs)))
	return h.in.Open(ctx)
}
func (h *hashAggOp) Close() error {
	h.spill.close()
	return h.in.Close()
}

func (h *hashAggOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if h.done {
		return h.spill.next(ctx, h)
	}
	h.done = true
	if h.scalar {
		h.keys = append(h.keys, nil)
		h.grow()
	}
	for {
		rec, sel, err := h.in.NextSel(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		if sel != nil {
			// The selected rows of the columns read (none for count(*)).
			g, err := expr.Gather(rec, sel, h.usedCols(int(rec.NumCols())))
			rec.Release()
			if err != nil {
				return nil, err
			}
			rec = g
		}
		err = h.consume(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	return h.spill.first(ctx, h)
}

func (h *hashAggOp) usedCols(ncols int) []bool {
	if h.used == nil {
		es := append([]expr.Expr{}, h.groupBy...)
		for _, a := range h.aggs {
			for _, e := range []expr.Expr{a.Arg, a.Arg2, a.Filter} {
				if e != nil {
					es = append(es, e)
				}
			}
			for _, o := range a.Order {
				es = append(es, o.Expr)
			}
		}
		h.used = expr.UsedCols(es, ncols)
	}
	return h.used
}

func (h *hashAggOp) grow() {
	for i, s := range h.states {
		if h.masked[i] {
			s.grow(len(h.keys) + 1)
		} else {
			s.grow(len(h.keys))
		}
	}
}

// stringGroups finds the groups of a single text key: the values are
// looked up as they lie in the Arrow buffer, and a run of equal values
// takes one lookup.
func (h *hashAggOp) stringGroups(a *array.String, gids []int32, newGroup func(r int) int32) {
	if h.strGroups == nil {
		h.strGroups = map[string]int32{}
		h.nullGroup = -1
	}
	prev, prevG := "", int32(-1)
	for r := range gids {
		if a.IsNull(r) {
			if h.nullGroup < 0 {
				h.nullGroup = newGroup(r)
			}
			gids[r] = h.nullGroup
			prevG = -1
			continue
		}
		v := a.Value(r)
		if prevG >= 0 && v == prev {
			gids[r] = prevG
			continue
		}
		g, ok := h.strGroups[v]
		if !ok {
			if g = newGroup(r); g < 0 {
				gids[r], prevG = g, -1
				continue
			}
			// v points into the batch, which is released: keep a copy.
			h.strGroups[strings.Clone(v)] = g
		}
		gids[r] = g
		prev, prevG = v, g
	}
}

func (h *hashAggOp) consume(ctx context.Context, rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if cap(h.gidsBuf) < n {
		h.gidsBuf = make([]int32, n)
	}
	gids := h.gidsBuf[:n]
	if !h.scalar {
		keyCols := make([]arrow.Array, len(h.groupBy))
		for i, g := range h.groupBy {
			a, err := g.Eval(h.ec, rec)
			if err != nil {
				for _, k := range keyCols[:i] {
					k.Release()
				}
				return err
			}
			keyCols[i] = a
		}
		before := len(h.keys)
		newGroup := func(r int) int32 {
			if !h.spill.admit() {
				return -1 // the row goes to a spill file
			}
			g := int32(len(h.keys))
			row := make([]types.Datum, len(keyCols))
			for i, a := range keyCols {
				row[i] = types.DatumAt(h.groupBy[i].Type(), a, r)
			}
			h.keys = append(h.keys, row)
			return g
		}
		// One text key groups by its bytes; numeric (1.0 and 1.00) and
		// jsonb hold equal values of other bytes, which KeyWriter keys.
		if h.dict != nil {
			h.dictGroups(keyCols, gids)
		} else if sa, ok := keyCols[0].(*array.String); ok && len(keyCols) == 1 && exec.ExactKey(h.groupBy[0].Type()) {
			h.stringGroups(sa, gids, newGroup)
		} else {
			writers := make([]func([]byte, int) []byte, len(keyCols))
			for i, a := range keyCols {
				writers[i] = exec.KeyWriter(h.groupBy[i].Type(), a)
			}
			// Input often comes sorted by the table's sort order, so a
			// row's key is often the one before's: no hash lookup then.
			var prev []byte
			prevG := int32(-1)
			for r := 0; r < n; r++ {
				buf := h.keyBuf[:0]
				for _, w := range writers {
					buf = w(buf, r)
				}
				h.keyBuf = buf
				if prevG >= 0 && string(buf) == string(prev) {
					gids[r] = prevG
					continue
				}
				g, ok := h.groups[string(buf)]
				if !ok {
					if g = newGroup(r); g < 0 {
						gids[r], prevG = g, -1
						continue
					}
					h.groups[string(buf)] = g
				}
				gids[r] = g
				prev, prevG = append(prev[:0], buf...), g
			}
		}
		if len(h.keys) > before {
			h.grow()
		}
		var err error
		rec, gids, err = h.spill.divert(ctx, h, rec, gids, keyCols)
		for _, k := range keyCols {
			k.Release()
		}
		if err != nil {
			return err
		}
		defer rec.Release()
	} else {
		for r := range gids {
			gids[r] = 0
		}
	}
	for i := range h.aggs {
		if err := h.update(i, gids, rec); err != nil {
			return err
		}
	}
	return nil
}

// update feeds one batch to aggregate i: evaluates its arguments, applies
// FILTER and DISTINCT by sending skipped rows to the trash group.
func (h *hashAggOp) update(i int, gids []int32, rec arrow.RecordBatch) error {
	a := h.aggs[i]
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	eval := func(e expr.Expr) (arrow.Array, error) {
		v, err := e.Eval(h.ec, rec)
		if err == nil {
			cols = append(cols, v)
		}
		return v, err
	}
	var arg arrow.Array
	if a.Arg != nil {
		var err error
		if arg, err = eval(a.Arg); err != nil {
			return err
		}
	}
	var extra []arrow.Array
	if a.Arg2 != nil {
		v, err := eval(a.Arg2)
		if err != nil {
			return err
		}
		extra = append(extra, v)
	}
	for _, o := range a.Order {
		v, err := eval(o.Expr)
		if err != nil {
			return err
		}
		extra = append(extra, v)
	}
	if !h.masked[i] {
		h.states[i].update(gids, arg, extra)
		return nil
	}
	n := len(gids)
	if cap(h.maskBuf) < n {
		h.maskBuf = make([]int32, n)
	}
	m := h.maskBuf[:n]
	for r, g := range gids {
		m[r] = g + 1
	}
	if a.Filter != nil {
		f, err := eval(a.Filter)
		if err != nil {
			return err
		}
		fb := f.(*array.Boolean)
		for r := range m {
			if fb.IsNull(r) || !fb.Value(r) {
				m[r] = 0
			}
		}
	}
	var added int64 // bytes of new DISTINCT values
	if seen := h.seenFix[i]; seen != nil {
		// One fixed-width argument: key by (group, NULL flag) and the
		// value's bits, with no byte strings to build or hash.
		bitsOf := fixedBits(a.Arg.Type(), arg)
		nulls := arg.NullN() > 0
		for r, g := range m {
			if g == 0 {
				continue
			}
			var k [2]uint64
			if nulls && arg.IsNull(r) {
				k[0] = uint64(g)<<1 | 1
			} else {
				k[0], k[1] = uint64(g)<<1, bitsOf(r)
			}
			if _, dup := seen[k]; dup {
				m[r] = 0
				continue
			}
			seen[k] = struct{}{}
			added += 64
		}
	} else if a.Distinct {
		// Key by group and every argument (string_agg dedupes value and
		// delimiter together); ORDER BY keys are arguments under DISTINCT.
		keyCols := []arrow.Array{arg}
		keyTs := []types.T{a.Arg.Type()}
		if a.Arg2 != nil {
			keyCols = append(keyCols, extra[0])
			keyTs = append(keyTs, a.Arg2.Type())
		}
		writers := make([]func([]byte, int) []byte, len(keyCols))
		for k, c := range keyCols {
			writers[k] = exec.KeyWriter(keyTs[k], c)
		}
		seen := h.seen[i]
		// Sorted input repeats a (group, value) pair row after row: a
		// repeat of the row before is a duplicate without a lookup.
		var prev []byte
		for r, g := range m {
			if g == 0 {
				continue
			}
			buf := binary.LittleEndian.AppendUint32(h.keyBuf[:0], uint32(g))
			for _, w := range writers {
				buf = w(buf, r)
			}
			h.keyBuf = buf
			if prev != nil && string(buf) == string(prev) {
				m[r] = 0
				continue
			}
			prev = append(prev[:0], buf...)
			if _, dup := seen[string(buf)]; dup {
				m[r] = 0
				continue
			}
			seen[string(buf)] = struct{}{}
			added += 48 + int64(len(buf))
		}
	}
	// DISTINCT keeps the values it has seen with their groups (see hold).
	if err := h.spill.hold(added); err != nil {
		return err
	}
	h.states[i].update(m, arg, extra)
	return nil
}

func (h *hashAggOp) emit() (arrow.RecordBatch, error) {
	// Input that made no group never grew the states: a masked one still
	// needs its trash group for the slice below.
	h.grow()
	ng := len(h.keys)
	cols := make([]arrow.Array, 0, len(h.ts))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	for k, g := range h.groupBy {
		b := expr.NewBuilder(g.Type(), ng)
		for _, row := range h.keys {
			b.Append(row[k])
		}
		cols = append(cols, b.Finish())
	}
	for i, s := range h.states {
		a, err := s.finish()
		if err != nil {
			release()
			return nil, err
		}
		if h.masked[i] {
			// Drop the trash group.
			sl := array.NewSlice(a, 1, int64(ng)+1)
			a.Release()
			a = sl
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(exec.Schema(h.ts), cols, int64(ng))
	release()
	return out, nil
}

// fixedBits returns a row's value as 64 bits, equal exactly for equal
// values (0 and -0, and all NaNs, agree as PostgreSQL has it), for the
// fixed-width types; nil for the others. With a nil array it only answers
// whether t is one of them.
func fixedBits(t types.T, a arrow.Array) func(int) uint64 {
	switch t.Kind {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.OID, types.Date, types.Time, types.Timestamp, types.TimestampTZ,
		types.Float4, types.Float8:
	default:
		return nil
	}
	if a == nil {
		return func(int) uint64 { return 0 }
	}
	switch t.Kind {
	case types.Bool:
		b := a.(*array.Boolean)
		return func(i int) uint64 {
			if b.Value(i) {
				return 1
			}
			return 0
		}
	case types.Int2:
		v := arrow.GetValues[int16](a.Data(), 1)
		return func(i int) uint64 { return uint64(v[i]) }
	case types.Int4, types.Date:
		v := arrow.GetValues[int32](a.Data(), 1)
		return func(i int) uint64 { return uint64(v[i]) }
	case types.Float4:
		v := arrow.GetValues[float32](a.Data(), 1)
		return func(i int) uint64 { return floatBits(float64(v[i])) }
	case types.Float8:
		v := arrow.GetValues[float64](a.Data(), 1)
		return func(i int) uint64 { return floatBits(v[i]) }
	}
	v := arrow.GetValues[int64](a.Data(), 1)
	return func(i int) uint64 { return uint64(v[i]) }
}

func floatBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}
