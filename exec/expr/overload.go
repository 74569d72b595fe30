package expr

import (
	"github.com/loamdb/loam/types"
)

// Any in an Overload's parameter list accepts an argument of any type, as
// PostgreSQL's "any"/anynonarray parameters do.
const Any = types.Unknown

// Overload is one signature of a builtin, as a pg_proc row is.
type Overload struct {
	Args     []types.Kind
	Variadic bool // the last parameter repeats (zero or more times)
	Ret      types.T
	// RetFn, when set, gives the result type from the coerced argument
	// types (e.g. a numeric result keeps no typmod, GREATEST-like results).
	RetFn  func(args []types.T) types.T
	Strict bool
	Fn     RowFunc
	Vec    VecFunc
}

// implicitCast reports whether PostgreSQL casts from to to implicitly
// when matching function arguments: the castcontext 'i' rows of pg_cast
// among the types Loam has.
func implicitCast(from, to types.Kind) bool {
	if from == to || to == Any || from == types.Unknown {
		return true
	}
	isReg := to == types.OID || to == types.Regclass || to == types.Regtype || to == types.Regnamespace || to == types.Regrole
	switch from {
	case types.Int2:
		return to == types.Int4 || to == types.Int8 || to == types.Numeric || to == types.Float4 || to == types.Float8 || isReg
	case types.Int4:
		return to == types.Int8 || to == types.Numeric || to == types.Float4 || to == types.Float8 || isReg
	case types.Int8:
		return to == types.Numeric || to == types.Float4 || to == types.Float8 || isReg
	case types.Numeric:
		return to == types.Float4 || to == types.Float8
	case types.Float4:
		return to == types.Float8
	case types.Text:
		return to == types.Varchar || to == types.Char || to == types.Name || to == types.Regclass
	case types.Varchar:
		return to == types.Text || to == types.Char || to == types.Name || to == types.Regclass
	case types.Char:
		return to == types.Text || to == types.Varchar || to == types.Name
	case types.Name, types.QChar:
		return to == types.Text
	case types.OID:
		return isReg
	case types.Regclass, types.Regtype, types.Regnamespace, types.Regrole:
		return to == types.OID
	case types.Date:
		return to == types.Timestamp || to == types.TimestampTZ
	case types.Timestamp:
		return to == types.TimestampTZ
	case types.Time:
		return to == types.Interval
	}
	return false
}

func preferred(k types.Kind) bool {
	return k == types.Float8 || k == types.Text || k == types.TimestampTZ
}

func isStringKind(k types.Kind) bool {
	return k == types.Text || k == types.Varchar || k == types.Char
}

func (o *Overload) param(i int) types.Kind {
	if i >= len(o.Args) {
		return o.Args[len(o.Args)-1]
	}
	return o.Args[i]
}

func (o *Overload) accepts(args []types.T) bool {
	if len(args) != len(o.Args) && !(o.Variadic && len(args) >= len(o.Args)) {
		return false
	}
	for i, a := range args {
		if !implicitCast(a.Kind, o.param(i)) {
			return false
		}
	}
	return true
}

// Resolve picks the overload PostgreSQL's func_select_candidate would for
// the argument types (most exact matches, then string types for unknown
// literals, then preferred types), and the types to coerce arguments to.
func Resolve(ovs []Overload, args []types.T) (*Overload, []types.T, bool) {
	var cands []*Overload
	for i := range ovs {
		if ovs[i].accepts(args) {
			cands = append(cands, &ovs[i])
		}
	}
	if len(cands) == 0 {
		return nil, nil, false
	}
	score := func(o *Overload) (exact, str, pref int) {
		for i, a := range args {
			p := o.param(i)
			switch {
			case a.Kind == p || p == Any && a.Kind != types.Unknown:
				exact++
			case a.Kind == types.Unknown && isStringKind(p):
				str++
			}
			if a.Kind != p && preferred(p) {
				pref++
			}
		}
		return
	}
	best := cands[0]
	be, bs, bp := score(best)
	for _, o := range cands[1:] {
		e, s, p := score(o)
		if e > be || e == be && (s > bs || s == bs && p > bp) {
			best, be, bs, bp = o, e, s, p
		}
	}
	want := make([]types.T, len(args))
	for i, a := range args {
		p := best.param(i)
		switch {
		case p == Any && a.Kind == types.Unknown:
			want[i] = types.TText
		case p == Any || a.Kind == p:
			want[i] = a
		default:
			want[i] = types.Of(p)
		}
	}
	return best, want, true
}

// ResultType is the overload's result for coerced argument types.
func (o *Overload) ResultType(args []types.T) types.T {
	if o.RetFn != nil {
		return o.RetFn(args)
	}
	return o.Ret
}

// register adds overloads to the builtin table under each name.
func register(ovs []Overload, names ...string) {
	for _, n := range names {
		Builtins[n] = Builtin{Overloads: ovs}
	}
}

// sig builds an overload from result and parameter kinds.
func sig(ret types.Kind, fn RowFunc, args ...types.Kind) Overload {
	return Overload{Args: args, Ret: types.Of(ret), Strict: true, Fn: fn}
}
