package plan_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/sql/plan"
	pg "github.com/pganalyze/pg_query_go/v5"
)

var update = flag.Bool("update", false, "rewrite testdata/plans.golden with the plans made now")

// goldenQueries are the query shapes whose plans are pinned: one or more of
// each physical node. A change to the planner that changes a plan shows
// here as a diff of testdata/plans.golden (go test -run TestGoldenPlans
// -update writes the new plans; read the diff before committing it).
var goldenQueries = []struct{ name, sql string }{
	{"scan", "SELECT tenant, tokens FROM llm_calls"},
	{"scan pruned by partition and range", "SELECT model FROM llm_calls WHERE ts >= '2026-11-01' AND ts < '2026-11-02' AND tokens > 100"},
	{"filter not pushed", "SELECT tenant FROM llm_calls WHERE length(model) > 3 OR tokens IS NULL"},
	{"project expressions", "SELECT tenant || '/' || model, cost * 2, latency_ms::float8 / 1000 FROM llm_calls"},
	{"count only", "SELECT count(*) FROM llm_calls"},
	{"hash aggregate", "SELECT tenant, model, sum(tokens), avg(cost), count(*) FILTER (WHERE latency_ms > 1000) FROM llm_calls GROUP BY tenant, model"},
	{"aggregate having", "SELECT tenant FROM llm_calls GROUP BY tenant HAVING sum(cost) > 10"},
	{"grouping sets", "SELECT tenant, model, count(*) FROM llm_calls GROUP BY ROLLUP (tenant, model)"},
	{"distinct", "SELECT DISTINCT tenant FROM llm_calls"},
	{"distinct on", "SELECT DISTINCT ON (tenant) tenant, ts, cost FROM llm_calls ORDER BY tenant, ts DESC"},
	{"sort", "SELECT tenant, cost FROM llm_calls ORDER BY cost DESC NULLS LAST, tenant"},
	{"top-n", "SELECT tenant, cost FROM llm_calls ORDER BY cost DESC LIMIT 10"},
	{"limit offset", "SELECT tenant FROM llm_calls LIMIT 5 OFFSET 20"},
	{"limit with ties", "SELECT tenant, cost FROM llm_calls ORDER BY cost FETCH FIRST 3 ROWS WITH TIES"},
	{"hash join", "SELECT c.model, t.plan FROM llm_calls c JOIN tenants t ON c.tenant = t.tenant"},
	{"left join", "SELECT t.tenant, c.cost FROM tenants t LEFT JOIN llm_calls c ON c.tenant = t.tenant AND c.cost > 1"},
	{"full join", "SELECT t.tenant, e.score FROM tenants t FULL JOIN evals e ON e.tenant = t.tenant"},
	{"nested loop", "SELECT c.tenant, e.id FROM llm_calls c JOIN evals e ON e.at BETWEEN c.ts AND c.ts + interval '1 hour'"},
	{"cross join", "SELECT t.tenant, e.id FROM tenants t, evals e"},
	{"join three with filters", "SELECT t.plan, sum(c.cost) FROM llm_calls c JOIN tenants t USING (tenant) JOIN evals e ON e.tenant = t.tenant WHERE e.score > 0.5 AND c.ts > '2026-11-01' GROUP BY t.plan"},
	{"window", "SELECT tenant, ts, sum(cost) OVER (PARTITION BY tenant ORDER BY ts), rank() OVER (ORDER BY cost DESC) FROM llm_calls"},
	{"union all", "SELECT tenant FROM llm_calls UNION ALL SELECT tenant FROM tenants"},
	{"union", "SELECT tenant FROM llm_calls UNION SELECT tenant FROM tenants ORDER BY 1"},
	{"intersect except", "SELECT tenant FROM tenants INTERSECT SELECT tenant FROM llm_calls EXCEPT SELECT tenant FROM evals"},
	{"values", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(n, s) WHERE n > 1"},
	{"no from", "SELECT 1 + 2, now() IS NOT NULL"},
	{"set-returning function", "SELECT g, g * 2 FROM generate_series(1, 10) AS g"},
	{"srf in select list", "SELECT tenant, unnest(ARRAY[1, 2]) FROM tenants"},
	{"cte", "WITH big AS (SELECT tenant, sum(cost) AS c FROM llm_calls GROUP BY tenant) SELECT t.plan, b.c FROM big b JOIN tenants t USING (tenant)"},
	{"recursive cte", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT sum(n) FROM r"},
	{"scalar subquery", "SELECT tenant, (SELECT max(score) FROM evals) FROM tenants"},
	{"in subquery", "SELECT tenant FROM tenants WHERE tenant IN (SELECT tenant FROM llm_calls WHERE cost > 5)"},
	{"exists correlated", "SELECT tenant FROM tenants t WHERE EXISTS (SELECT 1 FROM evals e WHERE e.tenant = t.tenant)"},
	{"lateral", "SELECT t.tenant, x.cost FROM tenants t, LATERAL (SELECT cost FROM llm_calls c WHERE c.tenant = t.tenant ORDER BY cost DESC LIMIT 1) x"},
	{"derived table", "SELECT m, n FROM (SELECT model AS m, count(*) AS n FROM llm_calls GROUP BY model) s WHERE n > 10"},
	{"parameters", "SELECT tenant, cost FROM llm_calls WHERE tenant = $1 AND ts > $2"},
}

// TestGoldenPlans plans each query over the fake catalog and compares the
// plan, as EXPLAIN prints it, with testdata/plans.golden.
func TestGoldenPlans(t *testing.T) {
	cat, err := newFakeCatalog()
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, q := range goldenQueries {
		lines, err := explainPlan(cat, q.sql)
		if err != nil {
			t.Errorf("%s: %s: %v", q.name, q.sql, err)
			continue
		}
		got.WriteString("# " + q.name + "\n" + q.sql + "\n----\n" + strings.Join(lines, "\n") + "\n\n")
	}
	const path = "testdata/plans.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("plans differ from %s (rerun with -update and read the diff):\n%s", path, diffLines(string(want), got.String()))
	}
}

func explainPlan(cat plan.Catalog, sql string) ([]string, error) {
	res, err := pg.Parse(sql)
	if err != nil {
		return nil, err
	}
	sel := res.Stmts[0].Stmt.GetSelectStmt()
	// A fixed clock and zone: constants folded from now() would otherwise
	// change the plan text from run to run.
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p := plan.New(context.Background(), cat, &expr.Ctx{Loc: time.UTC, Now: now, Stmt: now}, sql, nil, nil)
	q, err := p.Select(sel)
	if err != nil {
		return nil, err
	}
	return build.Render(context.Background(), q.Root, nil, q.Env().Ec), nil
}

// diffLines shows the first differing line of each golden section.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			out.WriteString("line " + itoa(i+1) + ":\n  want: " + a + "\n  got:  " + b + "\n")
			if out.Len() > 4000 {
				break
			}
		}
	}
	return out.String()
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}
