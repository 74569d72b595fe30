package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// bindArrayExpr binds ARRAY[a, b, …] (psycopg2 writes a list parameter
// so): the elements take their common type, untyped ones text, and the
// value is built in the array's text form, which is how Loam carries
// arrays. Loam's arrays are one-dimensional, so ARRAY[ARRAY[…]] is not.
func (b *binder) bindArrayExpr(a *pg.A_ArrayExpr) (expr.Expr, error) {
	elems := make([]expr.Expr, len(a.Elements))
	t := types.TUnknown
	for i, n := range a.Elements {
		e, err := b.bind(n)
		if err != nil {
			return nil, err
		}
		elems[i] = e
		switch e.Type().Kind {
		case types.Array:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported").WithPosition(pos(b.p.query, a.Location))
		case types.Unknown:
			continue // NULL and untyped literals take the others' type
		}
		c, ok := types.Common(t, e.Type())
		if !ok {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "ARRAY types %s and %s cannot be matched", t, e.Type()).WithPosition(pos(b.p.query, nodeLocation(n)))
		}
		t = c
	}
	if t.Kind == types.Unknown {
		t = types.TText
	}
	et := types.Of(t.Kind)
	for i, e := range elems {
		c, err := b.coerce(e, et, nodeLocation(a.Elements[i]))
		if err != nil {
			return nil, err
		}
		elems[i] = c
	}
	at := types.ArrayOf(t.Kind)
	return &expr.Func{Name: "array", Args: elems, T: at, Fn: func(c *expr.Ctx, d []types.Datum) (types.Datum, error) {
		buf := []byte{'{'}
		for i, x := range d {
			if i > 0 {
				buf = append(buf, ',')
			}
			if x.Null {
				buf = append(buf, "NULL"...)
				continue
			}
			buf = types.AppendArrayElem(buf, types.FormatText(x, c.Loc))
		}
		return types.Datum{T: at, S: string(append(buf, '}'))}, nil
	}}, nil
}
