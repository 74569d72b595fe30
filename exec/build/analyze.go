package build

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
)

// Analysis is what EXPLAIN ANALYZE learns running a plan: each node's
// counted operator.
type Analysis struct {
	ops   map[physical.Node]*Analyzed
	scans map[*physical.Scan]exec.Operator
}

// Instrumented builds the plan under n with every operator counted, for
// EXPLAIN ANALYZE; Render then shows the counts.
func Instrumented(ctx context.Context, n physical.Node, env Env) (exec.Operator, *Analysis, error) {
	an := &Analysis{ops: map[physical.Node]*Analyzed{}, scans: map[*physical.Scan]exec.Operator{}}
	op, err := newBuilder(env, an).build(ctx, n)
	return op, an, err
}

// Render is EXPLAIN's text for the plan under root: the nodes, the scans'
// files from the table metadata (read with ctx, the statement's context,
// and pruned as the statement would prune them: parts computed per run,
// such as now() - interval '1 hour', take their values from ec), and with
// an Analysis (nil for none) what each operator did.
func Render(ctx context.Context, root physical.Node, an *Analysis, ec *expr.Ctx) []string {
	return physical.Render(root, func(n physical.Node) physical.Annotation {
		var a physical.Annotation
		var op exec.Operator
		if an != nil {
			if st := an.ops[n]; st != nil {
				// As PostgreSQL: per loop, the average of the loops.
				a.Suffix = fmt.Sprintf("  (actual time=%.3f..%.3f rows=%d batches=%d loops=%d)", ms(st.first), ms(st.total/time.Duration(st.loops)), perLoop(st.rows, st.loops), perLoop(st.batches, st.loops), st.loops)
			}
		}
		if s, ok := n.(*physical.Scan); ok {
			if an != nil {
				op = an.scans[s]
			}
			a.Details = exec.ScanDetails(ctx, s.SpecOf(s.Source, ec), op)
		}
		if an != nil {
			if st := an.ops[n]; st != nil {
				if d, ok := st.Operator.(exec.RunDetailer); ok {
					a.Details = append(a.Details, d.RunDetails()...)
				}
			}
		}
		return a
	})
}

// Analyzed counts what an operator did: for EXPLAIN ANALYZE.
type Analyzed struct {
	exec.Operator
	rows, batches int64
	first, total  time.Duration
	started       bool
	loops         int64 // times built and run: a recursive term's iterations
	sel           exec.SelOperator
}

var _ exec.SelOperator = (*Analyzed)(nil)

// perLoop is n over loops, rounded as PostgreSQL rounds its averages.
func perLoop(n, loops int64) int64 {
	return (n + loops/2) / loops
}

func (a *Analyzed) Open(ctx context.Context) error {
	start := time.Now()
	err := a.Operator.Open(ctx)
	a.total += time.Since(start)
	return err
}

func (a *Analyzed) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	rec, err := a.Operator.Next(ctx)
	a.total += time.Since(start)
	if !a.started {
		a.started = true
		a.first = a.total
	}
	if rec != nil {
		a.rows += rec.NumRows()
		a.batches++
	}
	return rec, err
}

// NextSel counts the rows a selecting operator selects: the counted
// operator passes its selections on to a consumer that reads them.
func (a *Analyzed) NextSel(ctx context.Context) (arrow.RecordBatch, []int32, error) {
	if a.sel == nil {
		a.sel = exec.Selecting(a.Operator)
	}
	start := time.Now()
	rec, sel, err := a.sel.NextSel(ctx)
	a.total += time.Since(start)
	if !a.started {
		a.started = true
		a.first = a.total
	}
	if rec != nil {
		if sel != nil {
			a.rows += int64(len(sel))
		} else {
			a.rows += rec.NumRows()
		}
		a.batches++
	}
	return rec, sel, err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
