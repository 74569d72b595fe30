package plan

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// planText plans q (which reads no table: the planner has no catalog)
// and renders its physical plan as EXPLAIN lays it out, without the
// statistics a scan adds.
func planText(t *testing.T, q string) (string, *Query) {
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
	return strings.Join(physical.Render(got.Root, nil), "\n"), got
}

// TestLowerPlans checks the physical plan of query shapes that need no
// table, as EXPLAIN prints it.
func TestLowerPlans(t *testing.T) {
	for _, tc := range []struct{ query, plan string }{
		{"SELECT 1", `Project
  Output: '1'::integer
  ->  Values Scan (1 rows)`},
		{"SELECT x FROM generate_series(1, 3) x WHERE x > 1 ORDER BY x DESC LIMIT 2", `Limit
  Limit: 2
  ->  Top-N Sort
        Sort Key: #0 DESC
        Keeps: 2 rows
        ->  Project
              Output: x
              ->  Project
                    Output: x
                    ->  Filter
                          Filter: (x > '1'::integer)
                          ->  Function Scan on generate_series
                                Arguments: '1'::integer, '3'::integer`},
		{"SELECT 1 UNION SELECT 2", `HashAggregate
  Group Key: #0
  ->  Append
        ->  Project
              Output: '1'::integer
              ->  Values Scan (1 rows)
        ->  Project
              Output: '2'::integer
              ->  Values Scan (1 rows)`},
		{"SELECT a, count(*) FROM (VALUES (1), (2)) v(a) GROUP BY ROLLUP (a)", `Project
  Output: a, count(*)
  ->  Append
        ->  Project
              Output: #0, #1, '0'::integer
              ->  HashAggregate
                    Group Key: a
                    Aggregates: count(*)
                    ->  Spool Reader (2 readers)
                          ->  Project
                                Output: a
                                ->  Values Scan (2 rows)
        ->  Project
              Output: NULL, #0, '1'::integer
              ->  Aggregate
                    Aggregates: count(*)
                    ->  Spool Reader (2 readers)`},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r", `Project
  Output: n
  ->  Project
        Output: n
        ->  Recursive Union All
              Recursive Term: planned for each iteration over the working table
              ->  Project
                    Output: '1'::integer
                    ->  Values Scan (1 rows)`},
	} {
		got, _ := planText(t, tc.query)
		if got != tc.plan {
			t.Errorf("%s: plan\n%s\nwant\n%s", tc.query, got, tc.plan)
		}
	}
}

// TestSubqueryPlannedOnce checks that a subquery not referring to the
// outer query keeps the plan it got when bound (built when evaluated),
// while a correlated one is planned per outer row.
func TestSubqueryPlannedOnce(t *testing.T) {
	for _, tc := range []struct {
		query      string
		correlated bool
	}{
		{"SELECT (SELECT 1) FROM generate_series(1, 2) x", false},
		{"SELECT (SELECT x) FROM generate_series(1, 2) x", true},
		{"SELECT EXISTS (SELECT 1 WHERE x > 1) FROM generate_series(1, 2) x", true},
		{"SELECT 2 IN (SELECT 2) FROM generate_series(1, 2) x", false},
	} {
		_, q := planText(t, tc.query)
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
		if sub.corr != tc.correlated || (sub.plan == nil) != tc.correlated {
			t.Errorf("%s: correlated %v, kept plan %v", tc.query, sub.corr, sub.plan != nil)
		}
	}
}
