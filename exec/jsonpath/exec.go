package jsonpath

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Error is an error of running a path that the silent argument and the
// @? and @@ operators suppress (PostgreSQL's jperError): a missing key or
// element, an item of the wrong type, a failed arithmetic.
type Error struct{ Err *pgerr.Error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func fail(code, format string, args ...any) error {
	return &Error{Err: pgerr.New(code, format, args...)}
}

// Suppressible tells whether silent mode hides err.
func Suppressible(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// SQLSTATEs of SQL/JSON errors.
const (
	codeMemberNotFound  = "2203A"
	codeArrayNotFound   = "22039"
	codeObjectNotFound  = "2203C"
	codeInvalidSubscr   = "22033"
	codeSingletonNeeded = "22038"
	codeNumberNotFound  = "2203B"
	codeUndefinedObject = "42704"
)

func numItem(d types.Dec) *types.JSONValue { return &types.JSONValue{Kind: 'n', Raw: d.String()} }
func strItem(s string) *types.JSONValue    { return &types.JSONValue{Kind: 's', Str: s} }
func nullItem() *types.JSONValue           { return &types.JSONValue{Kind: 'z', Raw: "null"} }
func boolItem(b bool) *types.JSONValue {
	if b {
		return &types.JSONValue{Kind: 't', Raw: "true"}
	}
	return &types.JSONValue{Kind: 'f', Raw: "false"}
}

// tri is a predicate's value: SQL/JSON's three-valued logic.
type tri uint8

const (
	tFalse tri = iota
	tTrue
	tUnknown
)

type runner struct {
	strict bool
	root   *types.JSONValue
	vars   *types.JSONValue
	last   int // the subscripted array's last index
	// fatal is an error inside a predicate that does not make it unknown
	// but fails the query (an undefined variable).
	fatal error
}

// unknownOf is a predicate's value when evaluating an operand failed.
func (r *runner) unknownOf(err error) tri {
	if !Suppressible(err) && r.fatal == nil {
		r.fatal = err
	}
	return tUnknown
}

// Query runs the path over target with the variables of vars (an object,
// or nil) and returns the items it yields; a predicate yields one boolean
// (null when unknown).
func (p *Path) Query(target, vars *types.JSONValue) ([]*types.JSONValue, error) {
	if vars != nil && vars.Kind != 'o' {
		e := pgerr.New(pgerr.InvalidParameterValue, "\"vars\" argument is not an object")
		e.Detail = "Jsonpath parameters should be encoded as key-value pairs of \"vars\" object."
		return nil, e
	}
	r := &runner{strict: p.strict, root: target, vars: vars, last: -1}
	items, err := r.eval(p.expr, target)
	if r.fatal != nil {
		return nil, r.fatal
	}
	return items, err
}

func (r *runner) eval(n *node, cur *types.JSONValue) ([]*types.JSONValue, error) {
	switch n.kind {
	case nRoot:
		return []*types.JSONValue{r.root}, nil
	case nCurrent:
		return []*types.JSONValue{cur}, nil
	case nVar:
		v := r.variable(n.name)
		if v == nil {
			return nil, pgerr.New(codeUndefinedObject, "could not find jsonpath variable \"%s\"", n.name)
		}
		return []*types.JSONValue{v}, nil
	case nLit:
		return []*types.JSONValue{n.lit}, nil
	case nLast:
		// Parse keeps last inside subscripts, which set r.last.
		return []*types.JSONValue{numItem(types.DecFromInt(int64(r.last)))}, nil
	case nPath:
		items, err := r.eval(n.l, cur)
		if err != nil {
			return nil, err
		}
		for _, acc := range n.chain {
			var out []*types.JSONValue
			for _, it := range items {
				if out, err = r.apply(acc, it, cur, !r.strict, out); err != nil {
					return nil, err
				}
			}
			items = out
		}
		return items, nil
	case nArith:
		return r.arith(n, cur)
	case nUnary:
		items, err := r.evalUnwrapped(n.l, cur)
		if err != nil {
			return nil, err
		}
		out := make([]*types.JSONValue, len(items))
		for i, it := range items {
			if it.Kind != 'n' {
				return nil, fail(codeNumberNotFound, "operand of unary jsonpath operator %s is not a numeric value", n.name)
			}
			out[i] = it
			if n.name == "-" {
				d, _ := types.ParseDec(it.Raw)
				d.U.Neg(&d.U)
				out[i] = numItem(d)
			}
		}
		return out, nil
	}
	switch r.pred(n, cur) {
	case tTrue:
		return []*types.JSONValue{boolItem(true)}, nil
	case tFalse:
		return []*types.JSONValue{boolItem(false)}, nil
	}
	return []*types.JSONValue{nullItem()}, nil
}

func (r *runner) variable(name string) *types.JSONValue {
	if r.vars == nil {
		return nil
	}
	for i := len(r.vars.Keys) - 1; i >= 0; i-- {
		if r.vars.Keys[i] == name {
			return r.vars.Vals[i]
		}
	}
	return nil
}

// evalUnwrapped evaluates n with, in lax mode, arrays among its items
// replaced by their elements.
func (r *runner) evalUnwrapped(n *node, cur *types.JSONValue) ([]*types.JSONValue, error) {
	items, err := r.eval(n, cur)
	if err != nil || r.strict {
		return items, err
	}
	var out []*types.JSONValue
	for _, it := range items {
		if it.Kind == 'a' {
			out = append(out, it.Vals...)
		} else {
			out = append(out, it)
		}
	}
	return out, nil
}

// apply runs accessor acc on one item, appending what it yields to out.
// unwrap is lax mode's looking into an array for an accessor that wants
// something else (one level deep).
func (r *runner) apply(acc *node, it, cur *types.JSONValue, unwrap bool, out []*types.JSONValue) ([]*types.JSONValue, error) {
	var err error
	if unwrap && it.Kind == 'a' && unwraps(acc) {
		for _, el := range it.Vals {
			if out, err = r.apply(acc, el, cur, false, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	switch acc.kind {
	case nKey:
		if it.Kind == 'o' {
			for i := len(it.Keys) - 1; i >= 0; i-- {
				if it.Keys[i] == acc.name {
					return append(out, it.Vals[i]), nil
				}
			}
			if r.strict {
				return nil, fail(codeMemberNotFound, "JSON object does not contain key \"%s\"", acc.name)
			}
			return out, nil
		}
		if r.strict {
			return nil, fail(codeMemberNotFound, "jsonpath member accessor can only be applied to an object")
		}
	case nAnyKey:
		if it.Kind == 'o' {
			return append(out, it.Vals...), nil
		}
		if r.strict {
			return nil, fail(codeObjectNotFound, "jsonpath wildcard member accessor can only be applied to an object")
		}
	case nAnyIndex:
		if it.Kind == 'a' {
			return append(out, it.Vals...), nil
		}
		if r.strict {
			return nil, fail(codeArrayNotFound, "jsonpath wildcard array accessor can only be applied to an array")
		}
		return append(out, it), nil
	case nIndex:
		return r.index(acc, it, cur, out)
	case nAny:
		return anyItems(it, 0, acc.lo, acc.hi, out), nil
	case nFilter:
		if r.pred(acc.l, it) == tTrue {
			out = append(out, it)
		}
	case nMethod:
		return r.method(acc.name, it, out)
	}
	return out, nil
}

// unwraps tells which accessors lax mode applies to an array's elements.
func unwraps(acc *node) bool {
	switch acc.kind {
	case nKey, nAnyKey, nFilter:
		return true
	case nMethod:
		return acc.name != "type" && acc.name != "size"
	}
	return false
}

// anyItems is .**{lo to hi}: it and its descendants, depth first, those
// at a level within the bounds (hi -1 is unbounded).
func anyItems(it *types.JSONValue, level, lo, hi int, out []*types.JSONValue) []*types.JSONValue {
	if level >= lo && (hi < 0 || level <= hi) {
		out = append(out, it)
	}
	if hi >= 0 && level >= hi {
		return out
	}
	if it.Kind == 'a' || it.Kind == 'o' {
		for _, v := range it.Vals {
			out = anyItems(v, level+1, lo, hi, out)
		}
	}
	return out
}

func (r *runner) index(acc *node, it, cur *types.JSONValue, out []*types.JSONValue) ([]*types.JSONValue, error) {
	elems := it.Vals
	if it.Kind != 'a' {
		if r.strict {
			return nil, fail(codeArrayNotFound, "jsonpath array accessor can only be applied to an array")
		}
		elems = []*types.JSONValue{it}
	}
	saved := r.last
	r.last = len(elems) - 1
	defer func() { r.last = saved }()
	for _, s := range acc.subs {
		from, err := r.subscript(s.from, cur)
		if err != nil {
			return nil, err
		}
		to := from
		if s.to != nil {
			if to, err = r.subscript(s.to, cur); err != nil {
				return nil, err
			}
		}
		if r.strict && (from < 0 || from > to || to >= int64(len(elems))) {
			return nil, fail(codeInvalidSubscr, "jsonpath array subscript is out of bounds")
		}
		from = max(from, 0)
		to = min(to, int64(len(elems))-1)
		for i := from; i <= to; i++ {
			out = append(out, elems[i])
		}
	}
	return out, nil
}

// subscript evaluates an array subscript to an integer, truncating.
func (r *runner) subscript(n *node, cur *types.JSONValue) (int64, error) {
	items, err := r.evalUnwrapped(n, cur)
	if err != nil {
		return 0, err
	}
	if len(items) != 1 || items[0].Kind != 'n' {
		return 0, fail(codeInvalidSubscr, "jsonpath array subscript is not a single numeric value")
	}
	d, _ := types.ParseDec(items[0].Raw)
	var q big.Int
	q.Quo(&d.U, pow10(d.Scale))
	if !q.IsInt64() || q.Int64() > math.MaxInt32 || q.Int64() < math.MinInt32 {
		return 0, fail(codeInvalidSubscr, "jsonpath array subscript is out of integer range")
	}
	return q.Int64(), nil
}

func pow10(n int32) *big.Int {
	if n <= 0 {
		return big.NewInt(1)
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

func typeName(v *types.JSONValue) string {
	switch v.Kind {
	case 'o':
		return "object"
	case 'a':
		return "array"
	case 's':
		return "string"
	case 'n':
		return "number"
	case 't', 'f':
		return "boolean"
	}
	return "null"
}

func (r *runner) method(name string, it *types.JSONValue, out []*types.JSONValue) ([]*types.JSONValue, error) {
	switch name {
	case "type":
		return append(out, strItem(typeName(it))), nil
	case "size":
		if it.Kind == 'a' {
			return append(out, numItem(types.DecFromInt(int64(len(it.Vals))))), nil
		}
		if r.strict {
			return nil, fail(codeArrayNotFound, "jsonpath item method .size() can only be applied to an array")
		}
		return append(out, numItem(types.DecFromInt(1))), nil
	case "abs", "floor", "ceiling":
		if it.Kind != 'n' {
			return nil, fail(codeNumberNotFound, "jsonpath item method .%s() can only be applied to a numeric value", name)
		}
		d, _ := types.ParseDec(it.Raw)
		switch name {
		case "abs":
			d.U.Abs(&d.U)
		case "floor", "ceiling":
			d = roundDec(d, name == "ceiling")
		}
		return append(out, numItem(d)), nil
	case "double":
		var f float64
		switch it.Kind {
		case 'n':
			d, _ := types.ParseDec(it.Raw)
			f = d.Float()
			if math.IsInf(f, 0) {
				return nil, fail(codeNumberNotFound, "numeric argument of jsonpath item method .double() is out of range for type double precision")
			}
		case 's':
			var err error
			f, err = strconv.ParseFloat(strings.TrimSpace(it.Str), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fail(codeNumberNotFound, "string argument of jsonpath item method .double() is not a valid representation of a double precision number")
			}
		default:
			return nil, fail(codeNumberNotFound, "jsonpath item method .double() can only be applied to a string or numeric value")
		}
		d, err := types.ParseDec(types.FormatFloat8(f))
		if err != nil {
			return nil, fail(codeNumberNotFound, "numeric argument of jsonpath item method .double() is out of range for type double precision")
		}
		return append(out, numItem(d)), nil
	case "keyvalue":
		if it.Kind != 'o' {
			return nil, fail(codeObjectNotFound, "jsonpath item method .keyvalue() can only be applied to an object")
		}
		for i, k := range it.Keys {
			// PostgreSQL numbers objects by their place in the binary
			// jsonb; Loam keeps no such offsets and says 0.
			out = append(out, &types.JSONValue{Kind: 'o', Keys: []string{"id", "key", "value"},
				Vals: []*types.JSONValue{numItem(types.DecFromInt(0)), strItem(k), it.Vals[i]}})
		}
		return out, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "jsonpath item method .%s() is not supported", name)
}

// roundDec is floor (ceil false) or ceiling of d, an integer.
func roundDec(d types.Dec, ceil bool) types.Dec {
	if d.Scale <= 0 {
		return d
	}
	var q, m big.Int
	q.QuoRem(&d.U, pow10(d.Scale), &m)
	if m.Sign() != 0 {
		if ceil && m.Sign() > 0 {
			q.Add(&q, big.NewInt(1))
		}
		if !ceil && m.Sign() < 0 {
			q.Sub(&q, big.NewInt(1))
		}
	}
	var out types.Dec
	out.U.Set(&q)
	return out
}

func (r *runner) arith(n *node, cur *types.JSONValue) ([]*types.JSONValue, error) {
	operand := func(x *node, side string) (types.Dec, error) {
		items, err := r.evalUnwrapped(x, cur)
		if err != nil {
			return types.Dec{}, err
		}
		if len(items) != 1 || items[0].Kind != 'n' {
			return types.Dec{}, fail(codeSingletonNeeded, "%s operand of jsonpath operator %s is not a single numeric value", side, n.name)
		}
		return types.ParseDec(items[0].Raw)
	}
	a, err := operand(n.l, "left")
	if err != nil {
		return nil, err
	}
	b, err := operand(n.r, "right")
	if err != nil {
		return nil, err
	}
	var d types.Dec
	switch n.name {
	case "+":
		d = a.Add(&b)
	case "-":
		d = a.Sub(&b)
	case "*":
		d = a.Mul(&b)
	case "/":
		if d, err = a.Div(&b); err != nil {
			return nil, &Error{Err: pgerr.New(pgerr.DivisionByZero, "division by zero")}
		}
	case "%":
		if b.U.Sign() == 0 {
			return nil, &Error{Err: pgerr.New(pgerr.DivisionByZero, "division by zero")}
		}
		d = modDec(a, b)
	}
	return []*types.JSONValue{numItem(d)}, nil
}

// modDec is numeric's %: the remainder of truncating division, at the
// larger scale.
func modDec(a, b types.Dec) types.Dec {
	s := max(a.Scale, b.Scale)
	x := a.Rescale(s)
	y := b.Rescale(s)
	var out types.Dec
	out.U.Rem(&x.U, &y.U)
	out.Scale = s
	return out
}

// pred evaluates a predicate with @ bound to cur. Errors inside a
// predicate make it unknown, as SQL/JSON says.
func (r *runner) pred(n *node, cur *types.JSONValue) tri {
	switch n.kind {
	case nAnd:
		a := r.pred(n.l, cur)
		if a == tFalse {
			return tFalse
		}
		b := r.pred(n.r, cur)
		if a == tUnknown {
			if b == tFalse {
				return tFalse
			}
			return tUnknown
		}
		return b
	case nOr:
		a := r.pred(n.l, cur)
		if a == tTrue {
			return tTrue
		}
		b := r.pred(n.r, cur)
		if a == tUnknown {
			if b == tTrue {
				return tTrue
			}
			return tUnknown
		}
		return b
	case nNot:
		switch r.pred(n.l, cur) {
		case tTrue:
			return tFalse
		case tFalse:
			return tTrue
		}
		return tUnknown
	case nIsUnknown:
		if r.pred(n.l, cur) == tUnknown {
			return tTrue
		}
		return tFalse
	case nExists:
		items, err := r.eval(n.l, cur)
		if err != nil {
			return r.unknownOf(err)
		}
		if len(items) > 0 {
			return tTrue
		}
		return tFalse
	case nCmp:
		ls, err := r.evalUnwrapped(n.l, cur)
		if err != nil {
			return r.unknownOf(err)
		}
		rs, err := r.evalUnwrapped(n.r, cur)
		if err != nil {
			return r.unknownOf(err)
		}
		return r.anyPair(ls, rs, func(a, b *types.JSONValue) tri { return compareItems(n.name, a, b) })
	case nLike:
		ls, err := r.evalUnwrapped(n.l, cur)
		if err != nil {
			return r.unknownOf(err)
		}
		return r.anyPair(ls, []*types.JSONValue{nil}, func(a, _ *types.JSONValue) tri {
			if a.Kind != 's' {
				return tUnknown
			}
			if n.re.MatchString(a.Str) {
				return tTrue
			}
			return tFalse
		})
	case nStarts:
		ls, err := r.evalUnwrapped(n.l, cur)
		if err != nil {
			return r.unknownOf(err)
		}
		rs, err := r.eval(n.r, cur)
		if err != nil {
			return r.unknownOf(err)
		}
		if len(rs) != 1 || rs[0].Kind != 's' {
			return tUnknown
		}
		return r.anyPair(ls, rs, func(a, b *types.JSONValue) tri {
			if a.Kind != 's' {
				return tUnknown
			}
			if strings.HasPrefix(a.Str, b.Str) {
				return tTrue
			}
			return tFalse
		})
	}
	return tUnknown
}

// anyPair is true when some pair of items satisfies f; an unknown pair
// makes lax mode unknown unless another is true, and strict mode unknown
// outright.
func (r *runner) anyPair(ls, rs []*types.JSONValue, f func(a, b *types.JSONValue) tri) tri {
	found, unknown := false, false
	for _, a := range ls {
		for _, b := range rs {
			switch f(a, b) {
			case tUnknown:
				if r.strict {
					return tUnknown
				}
				unknown = true
			case tTrue:
				if !r.strict {
					return tTrue
				}
				found = true
			}
		}
	}
	switch {
	case found:
		return tTrue
	case unknown:
		return tUnknown
	}
	return tFalse
}

// compareItems compares two scalars: of different kinds they are
// unknown (null equals only null), containers are unknown.
func compareItems(op string, a, b *types.JSONValue) tri {
	ka, kb := a.Kind, b.Kind
	if ka == 'f' {
		ka = 't'
	}
	if kb == 'f' {
		kb = 't'
	}
	if ka != kb {
		if ka == 'z' || kb == 'z' {
			return triOf(op == "!=")
		}
		return tUnknown
	}
	var c int
	switch ka {
	case 'z':
		c = 0
	case 't':
		c = int(a.Kind) - int(b.Kind) // 'f' < 't'
		c = max(-1, min(1, c))
	case 'n':
		x, err1 := types.ParseDec(a.Raw)
		y, err2 := types.ParseDec(b.Raw)
		if err1 != nil || err2 != nil {
			return tUnknown
		}
		c = x.Cmp(&y)
	case 's':
		c = strings.Compare(a.Str, b.Str)
	default:
		return tUnknown
	}
	switch op {
	case "==":
		return triOf(c == 0)
	case "!=":
		return triOf(c != 0)
	case "<":
		return triOf(c < 0)
	case "<=":
		return triOf(c <= 0)
	case ">":
		return triOf(c > 0)
	}
	return triOf(c >= 0)
}

func triOf(b bool) tri {
	if b {
		return tTrue
	}
	return tFalse
}
