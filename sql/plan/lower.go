package plan

import (
	"context"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// The planner's product is a physical plan (exec/physical); exec/build
// makes its operators when the statement runs.

// Build makes the operators that run the query.
func (q *Query) Build(ctx context.Context) (exec.Operator, error) {
	return build.Build(ctx, q.Root, q.env)
}

// Env is what building the query's operators needs.
func (q *Query) Env() build.Env { return q.env }

// checked is q after the check that its physical plan yields the
// columns the query says it does: a mismatch is a planner bug, caught
// here rather than as a wrong batch when the plan runs.
func (p *Planner) checked(q *Query) (*Query, error) {
	want := make([]types.T, len(q.Columns))
	for i, c := range q.Columns {
		want[i] = c.T
	}
	if got := q.Root.Types(); !physical.SameTypes(got, want) {
		return nil, pgerr.New(pgerr.InternalError, "plan: the physical plan yields %v, the query's columns are %v", got, want)
	}
	q.env = build.Env{Ec: p.ec}
	if p.ec != nil && p.ec.Session != nil {
		q.Root = build.Parallelize(q.Root, build.ParallelOf(p.ec.Session.Setting))
	}
	return q, nil
}

// scanSource is the table state a scan of ti reads.
func (p *Planner) scanSource(ti *TableInfo) physical.ScanSource {
	return physical.ScanSource{Store: p.cat.Store(), Table: ti.Table, Log: ti.Log,
		Current: ti.Ref == "" && !ti.Travel, NS: ti.Namespace, Name: ti.Name}
}

// Env is what building this planner's plans needs.
func (p *Planner) Env() build.Env { return build.Env{Ec: p.ec} }
