package build

import (
	"context"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
)

// Tables gives a scan the state of its table when the plan is built, not
// when it was planned: a plan kept by a prepared statement then reads the
// pinned snapshot and write-log tail current at each execution (DESIGN.md,
// invariant 3). The engine implements it over the link and catalog.
type Tables interface {
	// CurrentSource is the current state of the table src names. It fails
	// when the table is gone or its schema is no longer the one the plan
	// was made for.
	CurrentSource(ctx context.Context, src physical.ScanSource) (physical.ScanSource, error)
}

// source is the table state a scan reads.
func (b *builder) source(ctx context.Context, src physical.ScanSource) (physical.ScanSource, error) {
	if b.env.Tables == nil || !src.Current {
		return src, nil
	}
	return b.env.Tables.CurrentSource(ctx, src)
}

// runTables is the RunState key under which an execution keeps the
// Tables its plan was built with.
type runTables struct{}

// keep records, for the execution env.Ec belongs to, the table states
// its plan is built with, so that a plan built later in the same
// execution (a subquery's, run when its expression is evaluated) reads
// the same states (EnvOf).
func (env Env) keep() {
	if env.Tables != nil && env.Ec != nil {
		env.Ec.RunState().Set(runTables{}, env.Tables)
	}
}

// EnvOf is the Env for building, during the execution c belongs to, a
// plan that is part of it: its scans read the table states the
// execution's plan was built with, or the planner's where it had none.
func EnvOf(c *expr.Ctx) Env {
	env := Env{Ec: c}
	if c != nil && c.Run != nil {
		if t, ok := c.Run.Lookup(runTables{}); ok {
			env.Tables = t.(Tables)
		}
	}
	return env
}
