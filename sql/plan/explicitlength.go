package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// explicitLength makes an explicit cast to varchar(n) or char(n) cut a
// longer value to its first n characters, as PostgreSQL's length
// coercion does when the cast is explicit ('abc'::varchar(2) is ab),
// where storing the value in such a column fails with 22001. The value,
// as text, goes through left(…, n); the cast that follows then fits.
func (b *binder) explicitLength(arg expr.Expr, t types.T, loc int32) (expr.Expr, error) {
	if t.Kind != types.Varchar && t.Kind != types.Char || t.Width < 0 {
		return arg, nil
	}
	var text expr.Expr
	switch c, isConst := arg.(*expr.Const); {
	case isConst && c.D.Null:
		return arg, nil
	case isConst && c.D.T.Kind == types.Unknown:
		text = &expr.Const{D: types.TextDatum(c.D.S)}
	case arg.Type().Kind == types.Text:
		text = arg
	default:
		text = &expr.Cast{Arg: arg, T: types.TText}
	}
	n := &expr.Const{D: types.Datum{T: types.TInt4, I: int64(t.Width)}}
	return b.callBuiltin("left", []expr.Expr{text, n}, loc)
}
