package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// SetRows is a set-returning function of FROM as a lateral item sees it:
// the rows (of one or more columns) of one call over argument values.
type SetRows func(args []types.Datum, ec *expr.Ctx) ([][]types.Datum, error)

// lateralSetOp joins each row of its input to the rows a set-returning
// function returns for it (FROM t, jsonb_array_elements(t.x) e, or LEFT
// JOIN LATERAL … ON true), the arguments evaluated over the input batch
// at once. An apply would plan the function again for every row.
type lateralSetOp struct {
	in      Operator
	args    []expr.Expr // over in's columns
	fnTs    []types.T   // the function's columns
	rows    SetRows
	name    string
	outer   bool // LEFT JOIN: a row the function returns nothing for stays, with NULLs
	ordinal bool // WITH ORDINALITY: a bigint numbering each call's rows
	// on is the join condition over the joined row (input columns, then
	// the function's), nil for ON true.
	on expr.Expr
	ts []types.T
	ec *expr.Ctx
}

// NewLateralSet joins in's rows to those rows returns for each on the
// condition on (nil: true), as an inner or (outer) a left join.
func NewLateralSet(in Operator, name string, args []expr.Expr, fnTs []types.T, rows SetRows, outer, ordinal bool, on expr.Expr, ec *expr.Ctx) Operator {
	ts := append(append([]types.T(nil), in.Types()...), fnTs...)
	if ordinal {
		ts = append(ts, types.TInt8)
	}
	return &lateralSetOp{in: in, name: name, args: args, fnTs: fnTs, rows: rows, outer: outer, ordinal: ordinal, on: on, ts: ts, ec: ec}
}

func (l *lateralSetOp) Types() []types.T               { return l.ts }
func (l *lateralSetOp) Open(ctx context.Context) error { return l.in.Open(ctx) }
func (l *lateralSetOp) Close() error                   { return l.in.Close() }

func (l *lateralSetOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		rec, err := l.in.Next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		out, err := l.expand(ctx, rec)
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

// candidate is one row a call returned for input row r (the k-th).
type candidate struct {
	r, k int
	row  []types.Datum
}

// expand joins one input batch; nil when no row comes of it.
func (l *lateralSetOp) expand(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	argv := make([]arrow.Array, len(l.args))
	defer releaseArrays(argv)
	for i, a := range l.args {
		v, err := a.Eval(l.ec, rec)
		if err != nil {
			return nil, err
		}
		argv[i] = v
	}
	var cands []candidate
	vals := make([]types.Datum, len(l.args))
	for r := 0; r < int(rec.NumRows()); r++ {
		if r%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for i, a := range l.args {
			vals[i] = types.DatumAt(a.Type(), argv[i], r)
		}
		rows, err := l.rows(vals, l.ec)
		if err != nil {
			return nil, err
		}
		for k, row := range rows {
			cands = append(cands, candidate{r: r, k: k, row: row})
		}
	}
	if l.on != nil && len(cands) > 0 {
		// The join condition reads the joined rows: keep those it holds for.
		all, err := l.build(ctx, rec, cands, nil, false)
		if err != nil {
			return nil, err
		}
		m, err := l.on.Eval(l.ec, all)
		all.Release()
		if err != nil {
			return nil, err
		}
		mask := m.(*array.Boolean)
		kept := cands[:0:0]
		for i, c := range cands {
			if mask.IsValid(i) && mask.Value(i) {
				kept = append(kept, c)
			}
		}
		m.Release()
		cands = kept
	}
	return l.build(ctx, rec, cands, l.outerRows(rec, cands), true)
}

// outerRows are, for a left join, the input rows no candidate is left
// for, which stay with NULLs.
func (l *lateralSetOp) outerRows(rec arrow.RecordBatch, cands []candidate) []bool {
	if !l.outer {
		return nil
	}
	lone := make([]bool, rec.NumRows())
	for i := range lone {
		lone[i] = true
	}
	for _, c := range cands {
		lone[c.r] = false
	}
	return lone
}

// build is the joined batch of the candidates, in input row order, with
// the rows lone marks NULL-extended; nil (when nilIfEmpty) for no rows.
func (l *lateralSetOp) build(ctx context.Context, rec arrow.RecordBatch, cands []candidate, lone []bool, nilIfEmpty bool) (arrow.RecordBatch, error) {
	nOut := len(l.fnTs)
	if l.ordinal {
		nOut++
	}
	bld := make([]*expr.Builder, nOut)
	for i := range bld {
		t := types.TInt8
		if i < len(l.fnTs) {
			t = l.fnTs[i]
		}
		bld[i] = expr.NewBuilder(t, len(cands))
	}
	idx := array.NewInt64Builder(memory.DefaultAllocator)
	defer idx.Release()
	emit := func(c candidate) {
		idx.Append(int64(c.r))
		for i, d := range c.row {
			bld[i].Append(d)
		}
		if l.ordinal {
			bld[len(l.fnTs)].Append(types.Int(types.TInt8, int64(c.k+1)))
		}
	}
	next := 0
	for r := 0; r < int(rec.NumRows()); r++ {
		for next < len(cands) && cands[next].r == r {
			emit(cands[next])
			next++
		}
		if lone != nil && lone[r] {
			idx.Append(int64(r))
			for _, b := range bld {
				b.AppendNull()
			}
		}
	}
	fnCols := make([]arrow.Array, len(bld))
	for i, b := range bld {
		fnCols[i] = b.Finish()
	}
	defer releaseArrays(fnCols)
	if idx.Len() == 0 && nilIfEmpty {
		return nil, nil
	}
	ix := idx.NewArray()
	defer ix.Release()
	left, err := expr.TakeRecord(ctx, rec, ix)
	if err != nil {
		return nil, err
	}
	defer left.Release()
	cols := append(append([]arrow.Array(nil), left.Columns()...), fnCols...)
	return array.NewRecordBatch(Schema(l.ts), cols, int64(ix.Len())), nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
