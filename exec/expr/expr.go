// Package expr holds scalar expressions evaluated a column at a time over
// Arrow batches. An Expr is an immutable description: evaluating it keeps
// no state, so one plan may run on many batches and goroutines.
package expr

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// Ctx is what evaluation needs from the session.
type Ctx struct {
	// Context is the running statement's (nil for none): a cancel
	// request or statement_timeout ends it, and a function that waits or
	// runs long (pg_sleep) stops then. Read it with Context(c).
	Context context.Context
	// Session is the session running the statement, for the functions
	// that act on it (set_config, nextval…); nil outside one.
	Session Session

	Loc *time.Location // session TimeZone
	Now time.Time      // transaction start, for now() and CURRENT_TIMESTAMP
	// Stmt is the statement's start, for statement_timestamp(); zero
	// means Now.
	Stmt time.Time
	// Params are the execution's bound parameter values, $1 first (see
	// Param); nil while a statement is only being described.
	Params []types.Datum
	// Writer is where a statement's sinks write rows: the storage layer's
	// side of the statement, which the session ends (exec.NewInsert).
	// Nil for a statement that writes nothing.
	Writer link.Writer
	// Outer is the row of each enclosing query a correlated subquery or a
	// LATERAL item is being run for, innermost first (see OuterRef).
	Outer *OuterRow
	// Run is the state this execution's expressions keep (runstate.go);
	// nil until first used.
	Run *RunState
}

// Expr is a scalar expression over the columns of an input batch. Eval
// returns an array of b.NumRows() values that the caller releases.
type Expr interface {
	Type() types.T
	Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error)
	String() string
}

// Col reads input column Idx.
type Col struct {
	Idx  int
	T    types.T
	Name string
}

func (e *Col) Type() types.T { return e.T }
func (e *Col) String() string {
	if e.Name != "" {
		return e.Name
	}
	return fmt.Sprintf("#%d", e.Idx)
}
func (e *Col) Eval(_ *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a := b.Column(e.Idx)
	a.Retain()
	return a, nil
}

// Const is a literal or bound parameter.
type Const struct {
	D types.Datum
}

func (e *Const) Type() types.T { return e.D.T }
func (e *Const) String() string {
	if e.D.Null {
		return "NULL"
	}
	return fmt.Sprintf("'%s'::%s", types.FormatText(e.D, time.UTC), e.D.T)
}
func (e *Const) Eval(_ *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	return Repeat(e.D, int(b.NumRows())), nil
}

// Repeat makes an array of n copies of d.
func Repeat(d types.Datum, n int) arrow.Array {
	if p, s, ok := d.T.Decimal(); ok && !d.Null {
		return repeatDecimal(d.S, p, s, n)
	}
	bld := NewBuilder(d.T, n)
	for i := 0; i < n; i++ {
		bld.Append(d)
	}
	return bld.Finish()
}

// Builder appends Datums into an Arrow array of a SQL type.
type Builder struct {
	T types.T
	b array.Builder
}

// NewBuilder starts an array of type t with room for n values.
func NewBuilder(t types.T, n int) *Builder {
	b := array.NewBuilder(memory.DefaultAllocator, t.Arrow())
	b.Reserve(n)
	return &Builder{T: t, b: b}
}

// Append adds one value; d must be of the builder's type (or NULL).
func (bl *Builder) Append(d types.Datum) { AppendDatum(bl.b, d) }

// AppendDatum appends d to an Arrow builder of d's type's Arrow type.
func AppendDatum(b array.Builder, d types.Datum) {
	if err := types.AppendDatum(b, d); err != nil {
		panic("expr: " + err.Error())
	}
}

// AppendNull adds a NULL.
func (bl *Builder) AppendNull() { bl.b.AppendNull() }

// Finish returns the built array.
func (bl *Builder) Finish() arrow.Array { return bl.b.NewArray() }

// Datums reads a whole array as Datums: the slow path for rare types.
func Datums(t types.T, a arrow.Array) []types.Datum {
	out := make([]types.Datum, a.Len())
	for i := range out {
		out[i] = types.DatumAt(t, a, i)
	}
	return out
}

// mapDatums evaluates f row by row over Datums; used where a typed loop
// would not pay (numeric, casts through text).
func mapDatums(t types.T, n int, f func(i int) (types.Datum, error)) (arrow.Array, error) {
	bld := NewBuilder(t, n)
	for i := 0; i < n; i++ {
		d, err := f(i)
		if err != nil {
			bld.Finish().Release()
			return nil, err
		}
		bld.Append(d)
	}
	return bld.Finish(), nil
}

// evalAll evaluates args, releasing what was made if one fails.
func evalAll(c *Ctx, b arrow.RecordBatch, args []Expr) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(args))
	for i, a := range args {
		v, err := a.Eval(c, b)
		if err != nil {
			release(out[:i])
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func release(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// IsConst reports whether e is a literal, and its value.
func IsConst(e Expr) (types.Datum, bool) {
	if c, ok := e.(*Const); ok {
		return c.D, true
	}
	return types.Datum{}, false
}
