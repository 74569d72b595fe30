package plan

import (
	"context"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// The recursive term of WITH RECURSIVE is planned once: the plan holds
// it under the RecursiveUnion, its self reference a WorkTableScan of the
// union's own working table.
func TestRecursiveTermPlannedOnce(t *testing.T) {
	q := planNoTables(t, "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t")
	var unions []*physical.RecursiveUnion
	var scans []*physical.WorkTableScan
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		switch x := n.(type) {
		case *physical.RecursiveUnion:
			unions = append(unions, x)
		case *physical.WorkTableScan:
			scans = append(scans, x)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(q.Root)
	if len(unions) != 1 || len(scans) != 1 {
		t.Fatalf("%d recursive unions, %d work-table scans; want one of each", len(unions), len(scans))
	}
	if scans[0].Work != unions[0].Work {
		t.Errorf("the work-table scan reads %p, the union fills %p", scans[0].Work, unions[0].Work)
	}
}

// What PostgreSQL refuses in a recursive query, and what Loam does not
// support, fails while planning, with PostgreSQL's SQLSTATE.
func TestRecursiveRefused(t *testing.T) {
	for _, tc := range []struct {
		query, code string
	}{
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < (SELECT max(n) FROM t)) SELECT * FROM t", pgerr.InvalidRecursion},
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (SELECT n FROM t UNION ALL SELECT n FROM t)) SELECT * FROM t", pgerr.InvalidRecursion},
		// SEARCH and CYCLE were ignored, and CYCLE recursed for ever.
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SEARCH DEPTH FIRST BY n SET ord SELECT * FROM t", pgerr.FeatureNotSupported},
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n % 3 + 1 FROM t) CYCLE n SET is_cycle USING path SELECT * FROM t", pgerr.FeatureNotSupported},
	} {
		tree, err := pg.Parse(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		p := New(context.Background(), nil, &expr.Ctx{Loc: time.UTC, Now: time.Unix(0, 0)}, tc.query, nil, nil)
		_, err = p.Select(tree.Stmts[0].Stmt.GetSelectStmt())
		if got := pgerr.Code(err); got != tc.code {
			t.Errorf("%s: %v (SQLSTATE %s), want SQLSTATE %s", tc.query, err, got, tc.code)
		}
	}
}
