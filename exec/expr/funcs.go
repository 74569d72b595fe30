package expr

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// RowFunc computes one row of a scalar function from its arguments.
type RowFunc func(c *Ctx, args []types.Datum) (types.Datum, error)

// Func applies a scalar function row by row. Strict functions return NULL
// for any NULL argument without being called.
type Func struct {
	Name   string
	Args   []Expr
	T      types.T
	Strict bool
	Fn     RowFunc
	Vec    VecFunc // optional column-at-a-time path
}

// VecFunc computes a whole column of a function from its evaluated
// arguments (nil for the constant ones, which it reads from args); it
// returns a nil array (and no error) to leave the batch to the row-wise Fn.
type VecFunc func(c *Ctx, args []Expr, vals []arrow.Array, n int) (arrow.Array, error)

func (e *Func) Type() types.T { return e.T }
func (e *Func) String() string {
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = a.String()
	}
	return e.Name + "(" + strings.Join(parts, ", ") + ")"
}

func (e *Func) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	if e.Vec != nil {
		// The column path reads constants from e.Args: skip repeating them.
		vals := make([]arrow.Array, len(e.Args))
		for i, a := range e.Args {
			if _, ok := a.(*Const); ok {
				continue
			}
			v, err := a.Eval(c, b)
			if err != nil {
				release(vals)
				return nil, err
			}
			vals[i] = v
		}
		out, err := e.Vec(c, e.Args, vals, int(b.NumRows()))
		release(vals)
		if err != nil || out != nil {
			return out, err
		}
	}
	args, err := evalAll(c, b, e.Args)
	if err != nil {
		return nil, err
	}
	defer release(args)
	row := make([]types.Datum, len(args))
	return mapDatums(e.T, int(b.NumRows()), func(i int) (types.Datum, error) {
		for k, a := range args {
			row[k] = types.DatumAt(e.Args[k].Type(), a, i)
			if e.Strict && row[k].Null {
				return types.NullOf(e.T), nil
			}
		}
		return e.Fn(c, row)
	})
}

// Builtin describes a scalar function the planner can call.
type Builtin struct {
	// Result gives the result type for the argument types, or ok=false when
	// the function does not take them.
	Result func(args []types.T) (types.T, bool)
	// Coerce gives the types the arguments are cast to before the call.
	Coerce func(args []types.T) []types.T
	Strict bool
	Fn     RowFunc
	Vec    VecFunc // optional; see Func.Vec
	// ArgNames name the parameters for named-argument calls (f(x => 1));
	// ArgDefaults give the values of parameters a call leaves out.
	ArgNames    []string
	ArgDefaults []types.Datum
	// Ambiguous reports argument types PostgreSQL cannot choose among
	// overloads for (an untyped literal where timestamp, timestamptz and
	// interval all fit): the call fails with "is not unique".
	Ambiguous func(args []types.T) bool
	// Overloads, when set, replace Result/Coerce/Fn: the call resolves to
	// one of them as PostgreSQL resolves a function name (overload.go).
	Overloads []Overload
}

// Bind resolves a call with argument types args: the result type, the
// types to coerce the arguments to, and the function; ok is false when no
// signature takes them.
func (bi Builtin) Bind(args []types.T) (rt types.T, want []types.T, fn *Func, ok bool) {
	if bi.Overloads != nil {
		o, want, ok := Resolve(bi.Overloads, args)
		if !ok {
			return rt, nil, nil, false
		}
		rt = o.ResultType(want)
		return rt, want, &Func{T: rt, Strict: o.Strict, Fn: o.Fn, Vec: o.Vec}, true
	}
	if rt, ok = bi.Result(args); !ok {
		return rt, nil, nil, false
	}
	return rt, bi.Coerce(args), &Func{T: rt, Strict: bi.Strict, Fn: bi.Fn, Vec: bi.Vec}, true
}

func sameAsArgs(args []types.T) []types.T { return args }

func textArgs(args []types.T) []types.T {
	out := make([]types.T, len(args))
	for i := range out {
		out[i] = types.TText
	}
	return out
}

func oneText(r types.T) func(args []types.T) (types.T, bool) {
	return func(args []types.T) (types.T, bool) { return r, len(args) == 1 }
}

// Builtins is the scalar function table, by lower-case name.
var Builtins = map[string]Builtin{
	"abs": {Result: func(args []types.T) (types.T, bool) {
		return args[0], len(args) == 1 && args[0].IsNumeric() || len(args) == 1 && args[0].Kind == types.Unknown
	}, Coerce: func(args []types.T) []types.T {
		if args[0].Kind == types.Unknown {
			return []types.T{types.TFloat8}
		}
		return args
	}, Strict: true, Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		d := a[0]
		switch d.T.Kind {
		case types.Float4, types.Float8:
			d.F = math.Abs(d.F)
		case types.Numeric:
			d.S = strings.TrimPrefix(d.S, "-")
		default:
			if d.I < 0 {
				d.I = -d.I
				if err := types.CheckIntRange(d.T.Kind, d.I); err != nil || d.I < 0 {
					return d, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", d.T)
				}
			}
		}
		return d, nil
	}},
	"now": {Result: func(args []types.T) (types.T, bool) { return types.TTimestampTZ, len(args) == 0 },
		Coerce: sameAsArgs, Fn: func(c *Ctx, _ []types.Datum) (types.Datum, error) {
			return types.Int(types.TTimestampTZ, c.Now.UnixMicro()), nil
		}},
	// gen_random_uuid is a version 4 UUID, new per call (volatile), the
	// usual DEFAULT of uuid keys.
	"gen_random_uuid": {Result: nArgs(0, types.TUUID), Coerce: sameAsArgs,
		Fn: func(*Ctx, []types.Datum) (types.Datum, error) {
			var u [16]byte
			if _, err := rand.Read(u[:]); err != nil {
				return types.Datum{}, err
			}
			u[6] = u[6]&0x0f | 0x40
			u[8] = u[8]&0x3f | 0x80
			h := hex.EncodeToString(u[:])
			return types.Datum{T: types.TUUID, S: h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]}, nil
		}},
}

// Coalesce returns its first non-NULL argument. Each argument is
// evaluated only on the rows the earlier ones left NULL, so
// `COALESCE(0, 1 / x)` never divides, as in PostgreSQL.
type Coalesce struct {
	Args []Expr // coerced to T
	T    types.T
}

func (e *Coalesce) Type() types.T { return e.T }
func (e *Coalesce) String() string {
	return (&Func{Name: "COALESCE", Args: e.Args}).String()
}
func (e *Coalesce) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	out := make([]types.Datum, n)
	for i := range out {
		out[i] = types.NullOf(e.T)
	}
	// rows are the input positions still NULL; cur is the batch of
	// exactly those rows.
	rows := make([]int32, n)
	for i := range rows {
		rows[i] = int32(i)
	}
	cur := b
	cur.Retain()
	defer func() { cur.Release() }()
	for k, a := range e.Args {
		if len(rows) == 0 {
			break
		}
		v, err := a.Eval(c, cur)
		if err != nil {
			return nil, err
		}
		var miss []int
		for i := range rows {
			if v.IsValid(i) {
				out[rows[i]] = types.DatumAt(e.T, v, i)
			} else {
				miss = append(miss, i)
			}
		}
		v.Release()
		if k == len(e.Args)-1 || len(miss) == len(rows) {
			continue
		}
		next, err := take(cur, miss)
		if err != nil {
			return nil, err
		}
		nrows := make([]int32, len(miss))
		for j, p := range miss {
			nrows[j] = rows[p]
		}
		cur.Release()
		cur, rows = next, nrows
	}
	bld := NewBuilder(e.T, n)
	for _, d := range out {
		bld.Append(d)
	}
	return bld.Finish(), nil
}
