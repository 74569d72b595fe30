package plan

import (
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Numeric operands carried as scaled integers (types.T.Decimal) stay so
// through + - * and comparisons: integers and numeric constants join them
// as decimals of their own digits, and the result type has PostgreSQL's
// scale. Anything else (a numeric carried as text, a parameter, / and %)
// takes the exact text path.

// keepsType reports whether an expression of type from can stand where to
// is wanted without a cast: for numeric, only if both travel alike.
func keepsType(from, to types.T) bool {
	if from.Kind != to.Kind || from.Elem != to.Elem {
		return false
	}
	if to.Kind == types.Numeric {
		if to.Width >= 0 {
			return from.Width == to.Width && from.Scale == to.Scale
		}
		return arrow.TypeEqual(from.Arrow(), to.Arrow())
	}
	return to.Width < 0 || from.Width == to.Width
}

// asDecimal turns an operand of a numeric operator into a decimal-carried
// one where that is exact; ok is false where it is not.
func (b *binder) asDecimal(e expr.Expr) (expr.Expr, bool) {
	t := e.Type()
	if _, _, ok := t.Decimal(); ok {
		return e, true
	}
	if _, _, ok := t.Wide(); ok {
		return e, true
	}
	if c, ok := e.(*expr.Const); ok {
		return constDecimal(c)
	}
	if _, ok := e.(*paramRef); ok {
		return nil, false
	}
	switch t.Kind {
	case types.Int2:
		return &expr.Cast{Arg: e, T: types.DecimalOf(5, 0)}, true
	case types.Int4:
		return &expr.Cast{Arg: e, T: types.DecimalOf(10, 0)}, true
	case types.Int8:
		return &expr.Cast{Arg: e, T: types.DecimalOf(19, 0)}, true
	}
	return nil, false
}

// constDecimal types a numeric or integer literal as a decimal of exactly
// its digits and scale.
func constDecimal(c *expr.Const) (expr.Expr, bool) {
	d := c.D
	switch {
	case d.Null:
		return &expr.Const{D: types.NullOf(types.DecimalOf(1, 0))}, true
	case d.T.IsInteger():
		dec := types.DecFromInt(d.I)
		return &expr.Const{D: types.Datum{T: decimalTypeOf(&dec), S: dec.String()}}, true
	case d.T.Kind == types.Numeric, d.T.Kind == types.Unknown:
		dec, err := types.ParseDec(d.S)
		if err != nil {
			return nil, false
		}
		t := decimalTypeOf(&dec)
		if _, _, ok := t.Decimal(); !ok {
			return nil, false
		}
		return &expr.Const{D: types.Datum{T: t, S: dec.String()}}, true
	}
	return nil, false
}

// decimalTypeOf is the decimal type of d's own digits and scale.
func decimalTypeOf(d *types.Dec) types.T {
	digits := int32(len(new(big.Int).Abs(&d.U).String()))
	return types.DecimalOf(max(digits, d.Scale, 1), d.Scale)
}

// decimalArith binds l op r over decimals; ok is false when the operands
// or the result cannot be carried so.
func (b *binder) decimalArith(op expr.ArithOp, l, r expr.Expr) (expr.Expr, bool) {
	if op != expr.Add && op != expr.Sub && op != expr.Mul {
		return nil, false
	}
	dl, ok1 := b.asDecimal(l)
	dr, ok2 := b.asDecimal(r)
	if !ok1 || !ok2 {
		return nil, false
	}
	t, ok := expr.DecimalArithType(op, dl.Type(), dr.Type())
	if !ok {
		return nil, false
	}
	return &expr.Arith{Op: op, L: dl, R: dr, T: t}, true
}

// decimalCompare binds a comparison of two numerics carried as decimals
// (or integers and constants joining them).
func (b *binder) decimalCompare(op expr.CmpOp, l, r expr.Expr) (expr.Expr, bool) {
	if l.Type().Kind != types.Numeric && r.Type().Kind != types.Numeric {
		return nil, false
	}
	dl, ok1 := b.asDecimal(l)
	dr, ok2 := b.asDecimal(r)
	if !ok1 || !ok2 {
		return nil, false
	}
	return &expr.Compare{Op: op, L: dl, R: dr}, true
}
