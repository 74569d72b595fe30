package exec

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// Explained is what an operator shows of itself in EXPLAIN.
type Explained struct {
	Name    string   // the node's heading, e.g. "Hash Join"
	Details []string // lines under it, e.g. "Hash Cond: …"
}

// Explainer is implemented by operators that show themselves in EXPLAIN.
// Inputs are pointers to the operator's input fields, so that EXPLAIN
// ANALYZE can put a counting wrapper in between.
type Explainer interface {
	Explain() Explained
	Inputs() []*Operator
}

// Analyzed counts what an operator did: for EXPLAIN ANALYZE.
type Analyzed struct {
	Operator
	rows, batches int64
	first, total  time.Duration
	started       bool
}

// Instrument wraps op and every operator under it in an Analyzed.
func Instrument(op Operator) Operator {
	if e, ok := op.(Explainer); ok {
		for _, in := range e.Inputs() {
			if *in != nil {
				*in = Instrument(*in)
			}
		}
	}
	return &Analyzed{Operator: op}
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
	d := time.Since(start)
	a.total += d
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

// Render writes the plan under op as PostgreSQL lays out EXPLAIN text:
// one line per node, "->" for inputs, details indented beneath.
func Render(op Operator) []string {
	var lines []string
	var walk func(op Operator, depth int)
	walk = func(op Operator, depth int) {
		var stats *Analyzed
		if a, ok := op.(*Analyzed); ok {
			stats, op = a, a.Operator
		}
		ex := Explained{Name: typeName(op)}
		var inputs []*Operator
		if e, ok := op.(Explainer); ok {
			ex, inputs = e.Explain(), e.Inputs()
		}
		head := ex.Name
		if stats != nil {
			head += fmt.Sprintf("  (actual time=%.3f..%.3f rows=%d batches=%d loops=1)", ms(stats.first), ms(stats.total), stats.rows, stats.batches)
		}
		if depth > 0 {
			lines = append(lines, strings.Repeat(" ", (depth-1)*6+2)+"->  "+head)
		} else {
			lines = append(lines, head)
		}
		for _, d := range ex.Details {
			lines = append(lines, strings.Repeat(" ", depth*6+2)+d)
		}
		for _, in := range inputs {
			if *in != nil {
				walk(*in, depth+1)
			}
		}
	}
	walk(op, 0)
	return lines
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func typeName(op Operator) string {
	t := reflect.TypeOf(op)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// ExprList joins expressions for a detail line.
func ExprList[E fmt.Stringer](es []E) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func typeList(ts []types.T) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}
