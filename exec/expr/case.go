package expr

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// Case is a searched CASE: the first WHEN that is TRUE picks its THEN;
// otherwise ELSE, or NULL without one. Each THEN is evaluated only on the
// rows that reach it, so `CASE WHEN x = 0 THEN 0 ELSE 1 / x END` never
// divides by zero, as in PostgreSQL.
type Case struct {
	Whens []Expr
	Thens []Expr // coerced to T
	Else  Expr   // nil: NULL
	T     types.T
}

func (e *Case) Type() types.T { return e.T }
func (e *Case) String() string {
	var sb strings.Builder
	sb.WriteString("CASE")
	for i, w := range e.Whens {
		sb.WriteString(" WHEN " + w.String() + " THEN " + e.Thens[i].String())
	}
	if e.Else != nil {
		sb.WriteString(" ELSE " + e.Else.String())
	}
	sb.WriteString(" END")
	return sb.String()
}

func (e *Case) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	out := make([]types.Datum, n)
	for i := range out {
		out[i] = types.NullOf(e.T)
	}
	// rows are the input positions still undecided; cur is the batch of
	// exactly those rows.
	rows := make([]int32, n)
	for i := range rows {
		rows[i] = int32(i)
	}
	cur := b
	cur.Retain()
	defer func() { cur.Release() }()
	assign := func(x Expr, sel []int32, batch arrow.RecordBatch, pos []int) error {
		if len(pos) == 0 {
			return nil
		}
		sub, err := take(batch, pos)
		if err != nil {
			return err
		}
		defer sub.Release()
		v, err := x.Eval(c, sub)
		if err != nil {
			return err
		}
		defer v.Release()
		for k, p := range pos {
			out[sel[p]] = types.DatumAt(e.T, v, k)
		}
		return nil
	}
	for w := range e.Whens {
		if len(rows) == 0 {
			break
		}
		cond, err := e.Whens[w].Eval(c, cur)
		if err != nil {
			return nil, err
		}
		bc := cond.(*array.Boolean)
		var hit, miss []int
		for i := range rows {
			if bc.IsValid(i) && bc.Value(i) {
				hit = append(hit, i)
			} else {
				miss = append(miss, i)
			}
		}
		cond.Release()
		if err := assign(e.Thens[w], rows, cur, hit); err != nil {
			return nil, err
		}
		if len(hit) == 0 {
			continue
		}
		next, err := take(cur, miss)
		if err != nil {
			return nil, err
		}
		nrows := make([]int32, len(miss))
		for k, p := range miss {
			nrows[k] = rows[p]
		}
		cur.Release()
		cur, rows = next, nrows
	}
	if e.Else != nil && len(rows) > 0 {
		all := make([]int, len(rows))
		for i := range all {
			all[i] = i
		}
		if err := assign(e.Else, rows, cur, all); err != nil {
			return nil, err
		}
	}
	bld := NewBuilder(e.T, n)
	for _, d := range out {
		bld.Append(d)
	}
	return bld.Finish(), nil
}

// take returns the rows of b at positions pos, in that order.
func take(b arrow.RecordBatch, pos []int) (arrow.RecordBatch, error) {
	if len(pos) == int(b.NumRows()) {
		b.Retain()
		return b, nil
	}
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	for _, p := range pos {
		ib.Append(int32(p))
	}
	idx := ib.NewArray()
	defer idx.Release()
	if b.NumCols() == 0 {
		return array.NewRecordBatch(b.Schema(), nil, int64(len(pos))), nil
	}
	return TakeRecord(context.Background(), b, idx)
}
