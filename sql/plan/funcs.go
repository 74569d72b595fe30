package plan

import (
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

func isJSON(t types.T) bool { return t.Kind == types.JSON || t.Kind == types.JSONB }

// moreBinaryOp binds the operators beyond comparison and arithmetic:
// text concatenation, regular expressions, ^ and the json operators. ok
// is false when op is none of them (or the operand types do not fit).
func (b *binder) moreBinaryOp(op string, l, r expr.Expr, loc int32) (e expr.Expr, ok bool, err error) {
	lt, rt := l.Type(), r.Type()
	toText := func() error {
		if l, err = b.coerce(l, types.TText, loc); err != nil {
			return err
		}
		r, err = b.coerce(r, types.TText, loc)
		return err
	}
	if (op == "@>" || op == "<@" || op == "&&") && (lt.Kind == types.Array || rt.Kind == types.Array) {
		e, err := b.arrayContains(op, l, r, loc)
		return e, e != nil || err != nil, err
	}
	switch op {
	case "&", "|", "#", "<<", ">>":
		e, err := b.bitOp(op, l, r, loc)
		return e, e != nil || err != nil, err
	case "||":
		switch {
		case lt.Kind == types.Array || rt.Kind == types.Array:
			e, err := b.arrayCat(l, r, loc)
			return e, e != nil || err != nil, err
		case lt.Kind == types.JSONB && (rt.Kind == types.JSONB || rt.Kind == types.Unknown):
			if r, err = b.coerce(r, types.TJSONB, loc); err != nil {
				return nil, true, err
			}
			return expr.JSONConcat(l, r), true, nil
		case rt.Kind == types.JSONB && lt.Kind == types.Unknown:
			if l, err = b.coerce(l, types.TJSONB, loc); err != nil {
				return nil, true, err
			}
			return expr.JSONConcat(l, r), true, nil
		case lt.IsString() && rt.IsString():
			if err := toText(); err != nil {
				return nil, true, err
			}
			return expr.TextCat(l, r), true, nil
		case lt.IsString() || rt.IsString():
			// text || anynonarray: the string side is text, the other is
			// printed with its output function.
			if lt.IsString() {
				l, err = b.coerce(l, types.TText, loc)
			} else {
				r, err = b.coerce(r, types.TText, loc)
			}
			if err != nil {
				return nil, true, err
			}
			return expr.TextCat(l, r), true, nil
		}
		return nil, false, nil
	case "~", "~*", "!~", "!~*":
		if !lt.IsString() || !rt.IsString() {
			return nil, false, nil
		}
		if err := toText(); err != nil {
			return nil, true, err
		}
		m, err := expr.NewRegexMatch(l, r, strings.HasSuffix(op, "*"), strings.HasPrefix(op, "!"))
		if err != nil {
			// PostgreSQL reports a bad pattern when it runs: no position.
			return nil, true, pgerr.From(err)
		}
		return m, true, nil
	case "^":
		if !(lt.IsNumeric() || lt.Kind == types.Unknown) || !(rt.IsNumeric() || rt.Kind == types.Unknown) {
			return nil, false, nil
		}
		e, err := b.callBuiltin("power", []expr.Expr{l, r}, loc)
		if f, isF := e.(*expr.Func); isF {
			f.Name = "^"
		}
		return e, true, err
	case "->", "->>":
		if !isJSON(lt) {
			return nil, false, nil
		}
		switch {
		case rt.IsInteger():
			r, err = b.coerce(r, types.TInt4, loc)
		case rt.IsString():
			r, err = b.coerce(r, types.TText, loc)
		default:
			return nil, false, nil
		}
		if err != nil {
			return nil, true, err
		}
		return expr.JSONArrow(l, r, op == "->>"), true, nil
	case "#>", "#>>":
		textArr := rt.Kind == types.Array && rt.Elem == types.Text
		if !isJSON(lt) || !rt.IsString() && !textArr {
			return nil, false, nil
		}
		// A text[] travels as its text form, which the operator reads.
		if !textArr {
			if r, err = b.coerce(r, types.TText, loc); err != nil {
				return nil, true, err
			}
		}
		if c, isConst := expr.IsConst(r); isConst && !c.Null {
			if _, err := expr.ParseTextArray(c.S); err != nil {
				return nil, true, b.errAt(pgerr.From(err), loc)
			}
		}
		return expr.JSONPathOp(l, r, op == "#>>"), true, nil
	case "?":
		if lt.Kind != types.JSONB || !rt.IsString() {
			return nil, false, nil
		}
		if r, err = b.coerce(r, types.TText, loc); err != nil {
			return nil, true, err
		}
		return expr.JSONExists(l, r), true, nil
	case "@?", "@@":
		if lt.Kind != types.JSONB || !rt.IsString() && rt.Kind != types.Unknown {
			return nil, false, nil
		}
		if r, err = b.coerce(r, types.TText, loc); err != nil {
			return nil, true, err
		}
		if c, isConst := expr.IsConst(r); isConst && !c.Null {
			if _, err := expr.ParsePath(c.S); err != nil {
				return nil, true, b.errAt(pgerr.From(err), loc)
			}
		}
		return expr.JSONPathOperator(l, r, op == "@@"), true, nil
	case "?|", "?&":
		textArr := rt.Kind == types.Array && rt.Elem == types.Text
		if lt.Kind != types.JSONB || !textArr && rt.Kind != types.Unknown {
			return nil, false, nil
		}
		if r, err = b.coerce(r, types.ArrayOf(types.Text), loc); err != nil {
			return nil, true, err
		}
		return expr.JSONExistsAnyAll(l, r, op == "?&"), true, nil
	case "@>", "<@":
		if !(lt.Kind == types.JSONB && (rt.Kind == types.JSONB || rt.Kind == types.Unknown) ||
			rt.Kind == types.JSONB && lt.Kind == types.Unknown) {
			return nil, false, nil
		}
		if l, err = b.coerce(l, types.TJSONB, loc); err != nil {
			return nil, true, err
		}
		if r, err = b.coerce(r, types.TJSONB, loc); err != nil {
			return nil, true, err
		}
		return expr.JSONContains(l, r, op == "<@"), true, nil
	}
	return nil, false, nil
}

// bindMinMax binds GREATEST/LEAST over the common type of the arguments.
func (b *binder) bindMinMax(mm *pg.MinMaxExpr) (expr.Expr, error) {
	least := mm.Op == pg.MinMaxOp_IS_LEAST
	name := "GREATEST"
	if least {
		name = "LEAST"
	}
	args, t, err := b.bindCommon(mm.Args, mm.Location, name)
	if err != nil {
		return nil, err
	}
	return &expr.MinMax{Args: args, T: t, Least: least}, nil
}

// bindDistinct binds l IS [NOT] DISTINCT FROM r, typed as l = r would be.
func (b *binder) bindDistinct(a *pg.A_Expr, not bool) (expr.Expr, error) {
	l, err := b.bind(a.Lexpr)
	if err != nil {
		return nil, err
	}
	r, err := b.bind(a.Rexpr)
	if err != nil {
		return nil, err
	}
	eq, err := b.binaryOp("=", l, r, a.Location)
	if err != nil {
		return nil, err
	}
	c, ok := eq.(*expr.Compare)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "IS DISTINCT FROM is not supported for these types").WithPosition(pos(b.p.query, a.Location))
	}
	return &expr.Distinct{L: c.L, R: c.R, Not: not}, nil
}

// bindSimilar binds x [NOT] SIMILAR TO pattern [ESCAPE e]: pg_query
// gives it as x ~ similar_to_escape(pattern[, e]).
func (b *binder) bindSimilar(a *pg.A_Expr) (expr.Expr, error) {
	l, err := b.bind(a.Lexpr)
	if err != nil {
		return nil, err
	}
	r, err := b.bind(a.Rexpr)
	if err != nil {
		return nil, err
	}
	// A constant pattern converts now, so the regex compiles once.
	if f, ok := r.(*expr.Func); ok {
		consts := true
		ds := make([]types.Datum, len(f.Args))
		for i, arg := range f.Args {
			ds[i], consts = expr.IsConst(arg)
			if !consts {
				break
			}
		}
		if consts {
			d, err := f.Fn(nil, ds)
			if err != nil {
				return nil, b.errAt(pgerr.From(err), a.Location)
			}
			r = &expr.Const{D: d}
		}
	}
	op := opName(a.Name) // "~" or "!~"
	e, ok, err := b.moreBinaryOp(op, l, r, a.Location)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).WithPosition(pos(b.p.query, a.Location))
	}
	return e, nil
}

// bitOp is the integer types' bitwise and, or, xor (&, |, #) over their
// common type, and shifts (<<, >>) of the left operand by an int4.
func (b *binder) bitOp(op string, l, r expr.Expr, loc int32) (expr.Expr, error) {
	lt, rt := l.Type(), r.Type()
	intOrUnknown := func(t types.T) bool { return t.IsInteger() || t.Kind == types.Unknown }
	if !intOrUnknown(lt) || !intOrUnknown(rt) || (lt.Kind == types.Unknown && rt.Kind == types.Unknown) {
		return nil, nil
	}
	t, want := lt, rt
	if op == "<<" || op == ">>" {
		if lt.Kind == types.Unknown {
			return nil, nil
		}
		want = types.TInt4
	} else {
		c, ok := types.Common(lt, rt)
		if !ok {
			return nil, nil
		}
		t, want = types.Of(c.Kind), types.Of(c.Kind)
	}
	var err error
	if l, err = b.coerce(l, t, loc); err != nil {
		return nil, err
	}
	if r, err = b.coerce(r, want, loc); err != nil {
		return nil, err
	}
	bits := map[types.Kind]uint{types.Int2: 16, types.Int4: 32, types.Int8: 64}[t.Kind]
	return &expr.Func{Name: op, Args: []expr.Expr{l, r}, T: t, Strict: true, Fn: func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
		x, y := a[0].I, a[1].I
		var v int64
		switch op {
		case "&":
			v = x & y
		case "|":
			v = x | y
		case "#":
			v = x ^ y
		case "<<", ">>":
			// As PostgreSQL's C on x86: int2 and int4 shift as 32-bit
			// values (the count taken mod 32), int8 as 64-bit ones.
			mask := uint64(31)
			if bits == 64 {
				mask = 63
			} else {
				x = int64(int32(x))
			}
			if op == "<<" {
				v = x << (uint64(y) & mask)
				if bits != 64 {
					v = int64(int32(v))
				}
			} else {
				v = x >> (uint64(y) & mask)
			}
		}
		// The result wraps to the type's width, as C's casts do.
		v = v << (64 - bits) >> (64 - bits)
		return types.Int(t, v), nil
	}}, nil
}
