package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// BoolOp is AND or OR over any number of boolean operands, with SQL's
// three-valued logic: FALSE AND NULL is FALSE, TRUE OR NULL is TRUE.
type BoolOp struct {
	Or   bool
	Args []Expr
}

func (e *BoolOp) Type() types.T { return types.TBool }
func (e *BoolOp) String() string {
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = a.String()
	}
	op := " AND "
	if e.Or {
		op = " OR "
	}
	return "(" + strings.Join(parts, op) + ")"
}

func (e *BoolOp) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	// decided[i]: the result is known (FALSE for AND, TRUE for OR).
	decided := make([]bool, n)
	sawNull := make([]bool, n)
	for _, a := range e.Args {
		v, err := a.Eval(c, b)
		if err != nil {
			return nil, err
		}
		arr := v.(*array.Boolean)
		for i := 0; i < n; i++ {
			if decided[i] {
				continue
			}
			if arr.IsNull(i) {
				sawNull[i] = true
			} else if arr.Value(i) == e.Or {
				decided[i] = true
			}
		}
		v.Release()
	}
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		switch {
		case decided[i]:
			bld.UnsafeAppend(e.Or)
		case sawNull[i]:
			bld.UnsafeAppendBoolToBitmap(false)
		default:
			bld.UnsafeAppend(!e.Or)
		}
	}
	return bld.NewArray(), nil
}

// Not negates a boolean; NOT NULL is NULL.
type Not struct{ Arg Expr }

func (e *Not) Type() types.T  { return types.TBool }
func (e *Not) String() string { return "(NOT " + e.Arg.String() + ")" }
func (e *Not) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	v, err := e.Arg.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	arr := v.(*array.Boolean)
	out := make([]bool, arr.Len())
	for i := range out {
		out[i] = !arr.Value(i)
	}
	return boolArray(out, arr), nil
}

// IsNull is `x IS NULL` (or IS NOT NULL with Negate); never NULL itself.
type IsNull struct {
	Arg    Expr
	Negate bool
}

func (e *IsNull) Type() types.T { return types.TBool }
func (e *IsNull) String() string {
	if e.Negate {
		return "(" + e.Arg.String() + " IS NOT NULL)"
	}
	return "(" + e.Arg.String() + " IS NULL)"
}
func (e *IsNull) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	v, err := e.Arg.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	out := make([]bool, v.Len())
	for i := range out {
		out[i] = v.IsNull(i) != e.Negate
	}
	return boolArray(out), nil
}

// IsBool is `x IS [NOT] TRUE|FALSE`; never NULL.
type IsBool struct {
	Arg    Expr
	Value  bool
	Negate bool
}

func (e *IsBool) Type() types.T { return types.TBool }
func (e *IsBool) String() string {
	s := "(" + e.Arg.String() + " IS "
	if e.Negate {
		s += "NOT "
	}
	if e.Value {
		return s + "TRUE)"
	}
	return s + "FALSE)"
}
func (e *IsBool) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	v, err := e.Arg.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	arr := v.(*array.Boolean)
	out := make([]bool, arr.Len())
	for i := range out {
		out[i] = (arr.IsValid(i) && arr.Value(i) == e.Value) != e.Negate
	}
	return boolArray(out), nil
}

// In is `x [NOT] IN (list)`: TRUE on a match; otherwise NULL if x or any
// list item is NULL, else FALSE (negated for NOT IN).
type In struct {
	Arg    Expr
	List   []Expr // same type as Arg
	Negate bool
}

func (e *In) Type() types.T { return types.TBool }
func (e *In) String() string {
	parts := make([]string, len(e.List))
	for i, a := range e.List {
		parts[i] = a.String()
	}
	not := ""
	if e.Negate {
		not = "NOT "
	}
	return "(" + e.Arg.String() + " " + not + "IN (" + strings.Join(parts, ", ") + "))"
}

func (e *In) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	x, err := e.Arg.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	n := x.Len()
	match := make([]bool, n)
	sawNull := make([]bool, n)
	for _, item := range e.List {
		v, err := item.Eval(c, b)
		if err != nil {
			return nil, err
		}
		eq := compareArrays(EQ, e.Arg.Type(), x, v).(*array.Boolean)
		for i := 0; i < n; i++ {
			if eq.IsNull(i) {
				sawNull[i] = true
			} else if eq.Value(i) {
				match[i] = true
			}
		}
		eq.Release()
		v.Release()
	}
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		switch {
		case match[i]:
			bld.UnsafeAppend(!e.Negate)
		case sawNull[i] || x.IsNull(i):
			bld.UnsafeAppendBoolToBitmap(false)
		default:
			bld.UnsafeAppend(e.Negate)
		}
	}
	return bld.NewArray(), nil
}

// Conjuncts splits e at its top-level ANDs.
func Conjuncts(e Expr) []Expr {
	if b, ok := e.(*BoolOp); ok && !b.Or {
		var out []Expr
		for _, a := range b.Args {
			out = append(out, Conjuncts(a)...)
		}
		return out
	}
	return []Expr{e}
}
