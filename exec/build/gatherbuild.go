package build

import (
	"context"
	"io"
	"strconv"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/physical"
)

// workerCopy is what a worker's copy of a Gather's pipeline shares with
// the others: the scan they all read, as morsels, and the hash tables of
// the joins they probe, built once by the Gather's builder (parent).
type workerCopy struct {
	source  physical.Node
	morsels *exec.Morsels
	parent  *builder
	tables  map[*physical.HashJoin]*exec.JoinTable
	closers []io.Closer // the tables, closed after the workers
}

// sharedJoin is a worker's copy of a join on the pipeline: its probe side
// built for the worker, its build side once for all (the first worker's
// copy builds it).
func (b *builder) sharedJoin(ctx context.Context, x *physical.HashJoin) (exec.Operator, error) {
	t, ok := b.par.tables[x]
	if !ok {
		right, err := b.par.parent.build(ctx, x.Right)
		if err != nil {
			return nil, err
		}
		t = exec.NewJoinTable(right, x.RightKeys, b.env.Ec)
		b.par.tables[x] = t
		b.par.closers = append(b.par.closers, t)
	}
	left, err := b.build(ctx, x.Left)
	if err != nil {
		return nil, err
	}
	return exec.NewSharedHashJoin(x.Kind, left, t, x.LeftKeys, x.Extra, b.env.Ec), nil
}

// gather builds a Gather: its scan once, and a copy of the pipeline above
// it for each worker the session allows now (the plan may have been made
// under another setting); with fewer than two, the pipeline alone.
func (b *builder) gather(ctx context.Context, g *physical.Gather) (exec.Operator, error) {
	n := b.workersAllowed(g.Workers)
	if n < 2 {
		return b.build(ctx, g.In)
	}
	// Not counted as a whole: each worker's reader counts its morsels,
	// and the scan's files show as ever (Render).
	scan, err := b.operator(ctx, g.Source)
	if err != nil {
		return nil, err
	}
	if s, ok := g.Source.(*physical.Scan); ok && b.an != nil {
		b.an.scans[s] = scan
	}
	m := exec.NewMorsels(scan)
	share := &workerCopy{source: g.Source, morsels: m, parent: b, tables: map[*physical.HashJoin]*exec.JoinTable{}}
	ops := make([]exec.Operator, 0, n)
	for range n {
		wb := &builder{env: b.env, spools: map[*physical.Spool]*exec.Spool{}, an: b.an, works: b.works, par: share}
		op, err := wb.build(ctx, g.In)
		if err != nil {
			for _, o := range ops {
				o.Close()
			}
			m.Close()
			for _, c := range share.closers {
				c.Close()
			}
			return nil, err
		}
		ops = append(ops, op)
	}
	if b.env.Ec != nil {
		b.env.Ec.RunState() // made now: the workers share it
	}
	return exec.NewGather(ops, g.Types(), append([]io.Closer{m}, share.closers...)...), nil
}

// ParallelMinRowsSetting is Loam's setting of the smallest table a plan
// scans in parallel (Parallel.MinRows).
const ParallelMinRowsSetting = "loam.parallel_min_rows"

// ParallelOf is how far a session's settings let its plans be
// parallelised; setting reads them (nil: the defaults, serial).
func ParallelOf(setting func(string) (string, bool)) Parallel {
	p := Parallel{MinRows: DefaultParallelMinRows}
	if setting == nil {
		return p
	}
	if v, ok := setting(MaxParallelWorkersSetting); ok {
		p.Workers, _ = strconv.Atoi(v)
	}
	if v, ok := setting(ParallelMinRowsSetting); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			p.MinRows = n
		}
	}
	return p
}

// MaxParallelWorkersSetting is the session setting that bounds a
// Gather's workers, as PostgreSQL's does.
const MaxParallelWorkersSetting = "max_parallel_workers_per_gather"

// workersAllowed is planned bounded by the session's setting.
func (b *builder) workersAllowed(planned int) int {
	ec := b.env.Ec
	if ec == nil || ec.Session == nil {
		return planned
	}
	v, ok := ec.Session.Setting(MaxParallelWorkersSetting)
	if !ok {
		return planned
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return planned
	}
	return min(n, planned)
}

// countWorker wraps a worker's operator in a counter kept beside the
// node's others, which EXPLAIN ANALYZE adds up (one loop a worker).
func (b *builder) countWorker(n physical.Node, op exec.Operator) exec.Operator {
	a := &Analyzed{Operator: op, loops: 1}
	b.an.workers[n] = append(b.an.workers[n], a)
	return a
}
