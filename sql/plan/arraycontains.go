package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// arrayContains binds the array operators @> (contains), <@ (is contained
// by) and && (overlaps) over arrays of one element type; an untyped
// literal takes the other side's type. Elements compare by equality, so a
// NULL element matches nothing, as in PostgreSQL. nil when the operands
// are not two arrays.
func (b *binder) arrayContains(op string, l, r expr.Expr, loc int32) (expr.Expr, error) {
	lt, rt := l.Type(), r.Type()
	if lt.Kind == types.Unknown {
		lt = rt
	}
	if rt.Kind == types.Unknown {
		rt = lt
	}
	if lt.Kind != types.Array || rt.Kind != types.Array {
		return nil, nil
	}
	et, ok := types.Common(types.Of(lt.Elem), types.Of(rt.Elem))
	if !ok || et.Kind == types.Array {
		return nil, nil
	}
	if et.Kind == types.Unknown {
		et = types.TText
	}
	at := types.ArrayOf(et.Kind)
	var err error
	if l, err = b.coerce(l, at, loc); err != nil {
		return nil, err
	}
	if r, err = b.coerce(r, at, loc); err != nil {
		return nil, err
	}
	return &expr.Func{Name: op, Args: []expr.Expr{l, r}, T: types.TBool, Strict: true,
		Fn: func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			x, xnull, err := types.SplitArrayText(a[0].S)
			if err != nil {
				return types.Datum{}, err
			}
			y, ynull, err := types.SplitArrayText(a[1].S)
			if err != nil {
				return types.Datum{}, err
			}
			if op == "<@" {
				x, xnull, y, ynull = y, ynull, x, xnull
			}
			// Both sides are in array_out's canonical text of one type, so
			// equal elements have equal text.
			has := map[string]bool{}
			for i, e := range x {
				if !xnull[i] {
					has[e] = true
				}
			}
			if op == "&&" {
				for i, e := range y {
					if !ynull[i] && has[e] {
						return types.BoolDatum(true), nil
					}
				}
				return types.BoolDatum(false), nil
			}
			for i, e := range y {
				if ynull[i] || !has[e] {
					return types.BoolDatum(false), nil
				}
			}
			return types.BoolDatum(true), nil
		}}, nil
}
