package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/types"
)

// Case is a searched CASE: the first WHEN that is TRUE picks its THEN;
// otherwise ELSE, or NULL without one.
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
	all := append(append([]Expr{}, e.Whens...), e.Thens...)
	if e.Else != nil {
		all = append(all, e.Else)
	}
	args, err := evalAll(c, b, all)
	if err != nil {
		return nil, err
	}
	defer release(args)
	k := len(e.Whens)
	return mapDatums(e.T, int(b.NumRows()), func(i int) (types.Datum, error) {
		for w := 0; w < k; w++ {
			cond := args[w].(*array.Boolean)
			if cond.IsValid(i) && cond.Value(i) {
				return types.DatumAt(e.T, args[k+w], i), nil
			}
		}
		if e.Else != nil {
			return types.DatumAt(e.T, args[2*k], i), nil
		}
		return types.NullOf(e.T), nil
	})
}
