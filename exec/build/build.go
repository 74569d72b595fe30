// Package build turns a physical plan (exec/physical) into running
// operators. It is the one place that calls the operators' constructors,
// so what runs is always what the plan says, and EXPLAIN ANALYZE counts
// each operator by wrapping it here.
package build

import (
	"context"
	"fmt"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/metatable"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/exec/window"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Env is what operators need beyond the plan: the statement's
// evaluation context (with its parameter values), and where scans of a
// table's current state find that state.
type Env struct {
	Ec *expr.Ctx
	// Tables, when set, resolves the state of the tables the plan scans
	// as of the build (tables.go); nil reads the state the planner saw.
	Tables Tables
}

// Build makes the operators of the plan under n.
func Build(ctx context.Context, n physical.Node, env Env) (exec.Operator, error) {
	return newBuilder(env, nil).build(ctx, n)
}

// builder builds one tree. A spooled input is built once for all its
// readers. With an Analysis, every operator of the tree is wrapped in a
// counter.
type builder struct {
	env    Env
	spools map[*physical.Spool]*exec.Spool
	an     *Analysis
	// works are the working tables of the recursive unions being built
	// around this tree, which its work-table scans read.
	works map[*physical.WorkTable]*exec.WorkTable
	// again: the tree is built once more (a recursive term's next
	// iteration), so its counters carry on from the last build's.
	again bool
	// dicts are the chains that carry dictionary-encoded text (dict.go).
	dicts map[physical.Node]*dictPlan
}

func newBuilder(env Env, an *Analysis) *builder {
	env.keep()
	return &builder{env: env, spools: map[*physical.Spool]*exec.Spool{}, an: an}
}

// child is a builder for a tree built apart from b's, at run time (an
// apply's inner side, a recursive term's iteration): its own spools, the
// working tables of b's recursive unions, and wt besides (nil: none).
func (b *builder) child(pw *physical.WorkTable, wt *exec.WorkTable) *builder {
	c := newBuilder(b.env, nil)
	c.works = map[*physical.WorkTable]*exec.WorkTable{}
	for k, v := range b.works {
		c.works[k] = v
	}
	if pw != nil {
		c.works[pw] = wt
	}
	return c
}

func (b *builder) build(ctx context.Context, n physical.Node) (exec.Operator, error) {
	op, err := b.operator(ctx, n)
	if err != nil {
		return nil, err
	}
	if got, want := op.Types(), n.Types(); !physical.SameTypes(got, want) {
		op.Close()
		return nil, pgerr.New(pgerr.InternalError, "build: %T yields %v, its plan node says %v", n, got, want)
	}
	if b.an != nil {
		if s, ok := n.(*physical.Scan); ok {
			b.an.scans[s] = op
		}
		if a := b.an.ops[n]; a != nil && b.again {
			// The last iteration's operator is closed: count on.
			a.Operator, a.sel = op, nil
			a.loops++
			return a, nil
		}
		a := &Analyzed{Operator: op, loops: 1}
		b.an.ops[n] = a
		op = a
	}
	return op, nil
}

func (b *builder) inputs(ctx context.Context, ns ...physical.Node) ([]exec.Operator, error) {
	ops := make([]exec.Operator, len(ns))
	for i, n := range ns {
		op, err := b.build(ctx, n)
		if err != nil {
			for _, o := range ops[:i] {
				o.Close()
			}
			return nil, err
		}
		ops[i] = op
	}
	return ops, nil
}

// operator calls the constructor of n's operator over its built inputs.
func (b *builder) operator(ctx context.Context, n physical.Node) (exec.Operator, error) {
	ec := b.env.Ec
	b.planDicts(n)
	switch x := n.(type) {
	case *physical.Scan:
		src, err := b.source(ctx, x.Source)
		if err != nil {
			return nil, err
		}
		spec := x.SpecOf(src, ec)
		spec.Dict = b.scanDict(x)
		return exec.NewScan(spec), nil
	case *physical.Values:
		return exec.NewValues(x.Rows, x.ColumnTypes, ec), nil
	case *physical.RowSource:
		return exec.NewRowSource(x.ColumnTypes, x.Gen), nil
	case *physical.MetaTableScan:
		src, err := b.source(ctx, x.Source)
		if err != nil {
			return nil, err
		}
		return exec.NewRowSource(x.ColumnTypes, func(ctx context.Context) ([][]types.Datum, error) {
			rows, err := metatable.Rows(ctx, x.Kind, src.Table)
			if err != nil {
				return nil, pgerr.Wrap(pgerr.InternalError, err, "metadata table %q", x.Name)
			}
			return rows, nil
		}), nil
	case *physical.FunctionScan:
		return exec.NewFunctionScan(x.ColumnTypes, x.Fn, x.Args, ec), nil
	case *physical.Series:
		return exec.NewSeries(x.T, x.Args, ec), nil
	case *physical.Batches:
		return exec.NewBatches(x.ColumnTypes, x.Recs), nil
	case *physical.WorkTableScan:
		wt, ok := b.works[x.Work]
		if !ok {
			return nil, pgerr.New(pgerr.InternalError, "build: work table %q read outside its recursive union", x.Work.Name)
		}
		return exec.NewWorkTableScan(x.Work.ColumnTypes, wt), nil
	case *physical.SpoolRead:
		s, ok := b.spools[x.Spool]
		if !ok {
			in, err := b.build(ctx, x.Spool.In)
			if err != nil {
				return nil, err
			}
			s = exec.NewSpool(in)
			b.spools[x.Spool] = s
		}
		return s.Reader(), nil
	case *physical.RecursiveUnion:
		init, err := b.build(ctx, x.Init)
		if err != nil {
			return nil, err
		}
		// The recursive term, planned once, is built anew for each
		// iteration (operators are cheap and need not support reopening);
		// its work-table scans read wt, which the union fills. Under
		// ANALYZE each iteration's counts add to the last's, as loops.
		wt := &exec.WorkTable{}
		it := b.child(x.Work, wt)
		it.an, it.again = b.an, b.again // a union in a recursive term counts on too
		step := func() (exec.Operator, error) {
			it.spools = map[*physical.Spool]*exec.Spool{} // spooled rows may read wt
			op, err := it.build(ctx, x.Recursive)
			it.again = true
			return op, err
		}
		return exec.NewRecursiveUnion(x.ColumnTypes, init, wt, step, x.Distinct), nil
	case *physical.Apply:
		left, err := b.build(ctx, x.Left)
		if err != nil {
			return nil, err
		}
		inner := func(ctx context.Context, row []types.Datum) (exec.Operator, error) {
			n, err := x.Inner(ctx, row)
			if err != nil {
				return nil, err
			}
			return b.child(nil, nil).build(ctx, n)
		}
		return exec.NewApply(x.Kind, left, x.InnerTypes, inner, x.KeyCols, x.On, ec, x.Frame), nil
	case *physical.UnionAll:
		ins, err := b.inputs(ctx, x.Inputs...)
		if err != nil {
			return nil, err
		}
		return agg.NewUnionAll(x.ColumnTypes, ins...), nil
	}
	ins, err := b.inputs(ctx, n.Children()...)
	if err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *physical.Widen:
		return exec.NewWiden(ins[0], x.Positions, x.All), nil
	case *physical.Filter:
		// The run's parameters and moment as constants: the comparison
		// and pattern fast paths want them.
		if op, ok := b.dictFilter(x, ins[0]); ok {
			return op, nil
		}
		return exec.NewFilter(ins[0], expr.BindRun(x.Pred, ec), ec), nil
	case *physical.Project:
		return exec.NewProject(ins[0], x.Exprs, ec), nil
	case *physical.Insert:
		return exec.NewInsert(ins[0], x.Target, x.Returning, ec), nil
	case *physical.Merge:
		return exec.NewMerge(ins[0], x.Target, x.RowID, x.Actions, ec), nil
	case *physical.Modify:
		return exec.NewModify(ins[0], x.Update, x.Dedupe, x.Target, x.Returning, ec), nil
	case *physical.ProjectSet:
		return exec.NewProjectSet(ins[0], x.Fns, ec), nil
	case *physical.HashAgg:
		if op, ok := b.dictAgg(x, ins[0]); ok {
			return op, nil
		}
		return agg.NewHashAgg(ins[0], x.GroupBy, x.Aggs, ec), nil
	case *physical.HashJoin:
		if x.Kind == exec.SemiJoin || x.Kind == exec.AntiJoin {
			return exec.NewSemiJoin(x.Kind == exec.AntiJoin, x.NullAware, ins[0], ins[1], x.LeftKeys, x.RightKeys, x.Extra, ec), nil
		}
		return exec.NewHashJoin(x.Kind, ins[0], ins[1], x.LeftKeys, x.RightKeys, x.Extra, ec), nil
	case *physical.NestedLoop:
		return exec.NewNestedLoopJoin(x.Kind, ins[0], ins[1], x.On, ec), nil
	case *physical.Sort:
		if x.TopN > 0 {
			return exec.NewTopN(ins[0], x.Keys, x.TopN, ec), nil
		}
		return exec.NewSort(ins[0], x.Keys, ec), nil
	case *physical.Limit:
		if x.Count != nil || x.Skip != nil {
			limit, offset, err := runLimits(x, ec)
			if err != nil {
				ins[0].Close()
				return nil, err
			}
			return exec.NewLimit(ins[0], limit, offset), nil
		}
		if x.Ties != nil {
			return exec.NewLimitWithTies(ins[0], max(x.Limit, 0), x.Offset, x.Ties), nil
		}
		return exec.NewLimit(ins[0], x.Limit, x.Offset), nil
	case *physical.Window:
		return window.New(ins[0], x.Specs, x.Funcs, ec), nil
	case *physical.SetOp:
		return agg.NewSetOp(x.Kind, x.All, ins[0], ins[1], x.ColumnTypes), nil
	case *physical.FirstOfRuns:
		return exec.NewFirstOfRuns(ins[0], x.Keys), nil
	case *physical.Ordinality:
		return exec.NewOrdinality(ins[0]), nil
	case *physical.LateralSet:
		return exec.NewLateralSet(ins[0], x.Name, x.Args, x.FnTypes, x.Rows, x.Outer, x.Ordinal, x.On, ec), nil
	}
	for _, op := range ins {
		op.Close()
	}
	return nil, fmt.Errorf("build: no operator for %T", n)
}

// BuildAll builds several plans that may share spools (a Spool read
// under more than one of them) with one builder, so a spooled input is
// built once for all.
func BuildAll(ctx context.Context, env Env, ns ...physical.Node) ([]exec.Operator, error) {
	return newBuilder(env, nil).inputs(ctx, ns...)
}
