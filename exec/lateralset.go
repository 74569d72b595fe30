package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
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
	ts      []types.T
	ec      *expr.Ctx
}

// NewLateralSet joins in's rows to those rows returns for each, as an
// inner join or (outer) a left join on true.
func NewLateralSet(in Operator, name string, args []expr.Expr, fnTs []types.T, rows SetRows, outer, ordinal bool, ec *expr.Ctx) Operator {
	ts := append(append([]types.T(nil), in.Types()...), fnTs...)
	if ordinal {
		ts = append(ts, types.TInt8)
	}
	return &lateralSetOp{in: in, name: name, args: args, fnTs: fnTs, rows: rows, outer: outer, ordinal: ordinal, ts: ts, ec: ec}
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

// expand joins one input batch; nil when no row comes of it.
func (l *lateralSetOp) expand(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	argv := make([]arrow.Array, len(l.args))
	defer func() {
		for _, a := range argv {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range l.args {
		v, err := a.Eval(l.ec, rec)
		if err != nil {
			return nil, err
		}
		argv[i] = v
	}
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
		bld[i] = expr.NewBuilder(t, int(rec.NumRows()))
	}
	finish := func() []arrow.Array {
		cols := make([]arrow.Array, len(bld))
		for i, b := range bld {
			cols[i] = b.Finish()
		}
		return cols
	}
	idx := array.NewInt64Builder(memory.DefaultAllocator)
	defer idx.Release()
	vals := make([]types.Datum, len(l.args))
	for r := 0; r < int(rec.NumRows()); r++ {
		if r%1024 == 0 {
			if err := ctx.Err(); err != nil {
				releaseArrays(finish())
				return nil, err
			}
		}
		for i, a := range l.args {
			vals[i] = types.DatumAt(a.Type(), argv[i], r)
		}
		rows, err := l.rows(vals, l.ec)
		if err != nil {
			releaseArrays(finish())
			return nil, err
		}
		for k, row := range rows {
			idx.Append(int64(r))
			for c, d := range row {
				bld[c].Append(d)
			}
			if l.ordinal {
				bld[len(l.fnTs)].Append(types.Int(types.TInt8, int64(k+1)))
			}
		}
		if len(rows) == 0 && l.outer {
			idx.Append(int64(r))
			for _, b := range bld {
				b.AppendNull()
			}
		}
	}
	fnCols := finish()
	defer releaseArrays(fnCols)
	if idx.Len() == 0 {
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
		a.Release()
	}
}

func (l *lateralSetOp) Explain() Explained {
	kind := "Inner"
	if l.outer {
		kind = "Left"
	}
	return Explained{Name: "Nested Loop " + kind + " Join", Details: []string{"Function Scan on " + l.name + ": " + ExprList(l.args) + ", for each outer row"}}
}
func (l *lateralSetOp) Inputs() []*Operator { return []*Operator{&l.in} }
