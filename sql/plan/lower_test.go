package plan

import (
	"context"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// planNoTables plans q, which reads no table: the planner has no
// catalog.
func planNoTables(t *testing.T, q string) *Query {
	t.Helper()
	tree, err := pg.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	p := New(context.Background(), nil, &expr.Ctx{Loc: time.UTC, Now: time.Unix(0, 0)}, q, nil, nil)
	got, err := p.Select(tree.Stmts[0].Stmt.GetSelectStmt())
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return got
}

// TestSubqueryPlannedOnce checks that a subquery keeps the plan it got
// when bound (built when evaluated), correlated or not, unless planning
// needed an outer value (a percentile's fraction): then it is planned per outer row.
func TestSubqueryPlannedOnce(t *testing.T) {
	for _, tc := range []struct {
		query      string
		correlated bool
		perRow     bool
	}{
		{"SELECT (SELECT 1) FROM generate_series(1, 2) x", false, false},
		{"SELECT (SELECT x) FROM generate_series(1, 2) x", true, false},
		{"SELECT EXISTS (SELECT 1 WHERE x > 1) FROM generate_series(1, 2) x", true, false},
		{"SELECT 2 IN (SELECT 2) FROM generate_series(1, 2) x", false, false},
		{"SELECT (SELECT 1 LIMIT x) FROM generate_series(1, 2) x", true, false},
		{"SELECT (SELECT percentile_disc(x / 2.0) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 2) g) FROM generate_series(1, 2) x", true, true},
	} {
		q := planNoTables(t, tc.query)
		var sub *subqueryExpr
		var walk func(n physical.Node)
		walk = func(n physical.Node) {
			if pr, ok := n.(*physical.Project); ok {
				for _, e := range pr.Exprs {
					if s, ok := e.(*subqueryExpr); ok {
						sub = s
					}
				}
			}
			for _, c := range n.Children() {
				walk(c)
			}
		}
		walk(q.Root)
		if sub == nil {
			t.Fatalf("%s: no subquery in the plan", tc.query)
		}
		if sub.corr != tc.correlated || (sub.plan == nil) != tc.perRow {
			t.Errorf("%s: correlated %v, kept plan %v", tc.query, sub.corr, sub.plan != nil)
		}
	}
}
