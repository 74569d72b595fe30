package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/loamdb/loam/types"
)

// A selection lists the rows of a batch that are in a result, ascending;
// nil stands for every row. Filters narrow a selection rather than copy
// the rows they keep, and the operators above them read the rows it lists.

// Selector narrows a selection to the rows where a predicate is TRUE
// (not FALSE, not NULL), as a WHERE clause does. Comparisons of a column
// with a constant, AND, OR, NOT of them and IS [NOT] NULL run as typed
// loops over the column's values; any other predicate is evaluated with
// Eval over the selected rows only.
//
// A Selector keeps scratch buffers: one goroutine uses it at a time.
type Selector struct {
	root selNode
}

// NewSelector compiles a WHERE predicate. pred's run constants should
// already be bound (BindRun), so that comparisons meet constants.
func NewSelector(pred Expr) *Selector {
	return &Selector{root: compileSel(pred)}
}

// Select appends to out[:0] the rows of sel (nil: all of b's rows) where
// the predicate is TRUE and returns it. out may be sel[:0] itself:
// selections narrow in place.
func (s *Selector) Select(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	n := int(b.NumRows())
	if cap(out) < n {
		out = make([]int32, 0, n)
	}
	return s.root.sel(c, b, sel, out[:0])
}

// selNode is one compiled part of a predicate. sel appends to out (empty,
// with capacity for every row of b) the rows of sel it holds for; out may
// share sel's array, as long as a row is read before out's slot for it is
// written.
type selNode interface {
	sel(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error)
}

func compileSel(e Expr) selNode {
	switch x := e.(type) {
	case *BoolOp:
		args := make([]selNode, len(x.Args))
		for i, a := range x.Args {
			args[i] = compileSel(a)
		}
		if x.Or {
			return &selOr{args: args}
		}
		return selAnd(args)
	case *Const:
		return selConst(x.D.T.Kind == types.Bool && !x.D.Null && x.D.I != 0)
	case *Col:
		if x.T.Kind == types.Bool {
			return selBoolCol(x.Idx)
		}
	case *IsNull:
		if c, ok := x.Arg.(*Col); ok {
			return &selIsNull{col: c.Idx, negate: x.Negate}
		}
	case *Not:
		switch a := x.Arg.(type) {
		case *Compare:
			if k := compileCmp(&Compare{Op: negate(a.Op), L: a.L, R: a.R}); k != nil {
				return k
			}
		case *IsNull:
			if c, ok := a.Arg.(*Col); ok {
				return &selIsNull{col: c.Idx, negate: !a.Negate}
			}
		}
	case *Compare:
		if k := compileCmp(x); k != nil {
			return k
		}
	}
	return &selEval{e: e}
}

// negate is the operator that holds where op is false, on non-NULL
// operands. Floats order NaN above everything, so this holds for them too.
func negate(op CmpOp) CmpOp {
	return [...]CmpOp{EQ: NE, NE: EQ, LT: GE, LE: GT, GT: LE, GE: LT}[op]
}

// selAnd narrows through each conjunct in turn, so later ones look only
// at the rows the earlier ones kept.
type selAnd []selNode

func (a selAnd) sel(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	whole := sel == nil
	for i, arg := range a {
		var err error
		if i > 0 {
			sel = out
		}
		if e, ok := arg.(*selEval); ok && i > 0 && whole && 2*len(sel) >= int(b.NumRows()) {
			// Most rows are still in, and no filter below dropped any:
			// evaluate over the batch as it is (as one AND always did),
			// rather than copy the rows out (values kept per buffer, such
			// as jsonb's binary form, stay found).
			out, err = e.selWhole(c, b, sel, out[:0])
		} else {
			out, err = arg.sel(c, b, sel, out[:0])
		}
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			break
		}
	}
	return out, nil
}

// selOr runs each disjunct on the rows no earlier one kept, and keeps
// the rows any of them kept.
type selOr struct {
	args       []selNode
	rest, took []int32
	kept       []bool
}

func (o *selOr) sel(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	n := int(b.NumRows())
	if cap(o.kept) < n {
		o.kept = make([]bool, n)
		o.rest = make([]int32, 0, n)
		o.took = make([]int32, 0, n)
	}
	kept := o.kept[:n]
	clear(kept)
	rest := o.rest[:0]
	if sel == nil {
		for i := 0; i < n; i++ {
			rest = append(rest, int32(i))
		}
	} else {
		rest = append(rest, sel...)
	}
	for _, arg := range o.args {
		took, err := arg.sel(c, b, rest, o.took[:0])
		if err != nil {
			return nil, err
		}
		for _, r := range took {
			kept[r] = true
		}
		left := rest[:0]
		for _, r := range rest {
			if !kept[r] {
				left = append(left, r)
			}
		}
		if rest = left; len(rest) == 0 {
			break
		}
	}
	if sel == nil {
		for i := 0; i < n; i++ {
			if kept[i] {
				out = append(out, int32(i))
			}
		}
		return out, nil
	}
	for _, r := range sel {
		if kept[r] {
			out = append(out, r)
		}
	}
	return out, nil
}

// selConst is a constant predicate: TRUE keeps every row, FALSE and NULL
// none.
type selConst bool

func (k selConst) sel(_ *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	if !k {
		return out, nil
	}
	return appendAll(out, sel, int(b.NumRows())), nil
}

func appendAll(out, sel []int32, n int) []int32 {
	if sel != nil {
		return append(out, sel...)
	}
	for i := 0; i < n; i++ {
		out = append(out, int32(i))
	}
	return out
}

// selBoolCol keeps the rows where a boolean column is TRUE.
type selBoolCol int

func (k selBoolCol) sel(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	a, ok := b.Column(int(k)).(*array.Boolean)
	if !ok {
		return (&selEval{e: &Col{Idx: int(k), T: types.TBool}}).sel(c, b, sel, out)
	}
	nulls := a.NullN() > 0
	keep := func(r int32) bool { return a.Value(int(r)) && (!nulls || a.IsValid(int(r))) }
	if sel == nil {
		for i := 0; i < a.Len(); i++ {
			if keep(int32(i)) {
				out = append(out, int32(i))
			}
		}
		return out, nil
	}
	for _, r := range sel {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// selIsNull is `col IS [NOT] NULL`, read from the validity bitmap.
type selIsNull struct {
	col    int
	negate bool
}

func (k *selIsNull) sel(_ *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	a := b.Column(k.col)
	n := a.Len()
	if a.NullN() == 0 {
		if !k.negate {
			return out, nil
		}
		return appendAll(out, sel, n), nil
	}
	// The validity bitmap read as it lies: no call a row.
	bits, off := a.NullBitmapBytes(), a.Data().Offset()
	want := k.negate // a row is kept when its validity bit is this
	if sel == nil {
		for i := 0; i < n; i++ {
			if bitutil.BitIsSet(bits, off+i) == want {
				out = append(out, int32(i))
			}
		}
		return out, nil
	}
	for _, r := range sel {
		if bitutil.BitIsSet(bits, off+int(r)) == want {
			out = append(out, r)
		}
	}
	return out, nil
}

// selEval is any other predicate: evaluated with Eval over the selected
// rows alone (gathered first), so that it never sees, nor fails on, a row
// an earlier filter or conjunct dropped.
type selEval struct {
	e    Expr
	used []bool
}

func (k *selEval) sel(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	in := b
	if sel != nil {
		if k.used == nil {
			k.used = UsedCols([]Expr{k.e}, int(b.NumCols()))
		}
		var err error
		if in, err = Gather(b, sel, k.used); err != nil {
			return nil, err
		}
		defer in.Release()
	}
	v, err := k.e.Eval(c, in)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	m := v.(*array.Boolean)
	nulls := m.NullN() > 0
	for j := 0; j < m.Len(); j++ {
		if m.Value(j) && (!nulls || m.IsValid(j)) {
			r := int32(j)
			if sel != nil {
				r = sel[j]
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// selWhole is sel with the predicate evaluated over every row of b.
func (k *selEval) selWhole(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	v, err := k.e.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	m := v.(*array.Boolean)
	nulls := m.NullN() > 0
	for _, r := range sel {
		if m.Value(int(r)) && (!nulls || m.IsValid(int(r))) {
			out = append(out, r)
		}
	}
	return out, nil
}
