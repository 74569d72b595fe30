package plan_test

import (
	"strings"
	"testing"
)

// TestDecorrelatedShapes checks which subqueries become joins (EXPLAIN
// shows the join, and no per-row subquery is left in a filter or
// projection) and which are still run per outer row.
func TestDecorrelatedShapes(t *testing.T) {
	cat, err := newFakeCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, sql string
		want      []string // substrings of the plan, in order
		not       []string // substrings the plan must not have
	}{
		{"exists", "SELECT tenant FROM tenants t WHERE EXISTS (SELECT 1 FROM evals e WHERE e.tenant = t.tenant)",
			[]string{"Hash Semi Join", "Hash Cond: t.tenant = tenant"}, []string{"EXISTS("}},
		{"not exists with non-equal correlation", "SELECT tenant FROM tenants t WHERE NOT EXISTS (SELECT 1 FROM evals e WHERE e.tenant = t.tenant AND e.id <> t.seats)",
			[]string{"Hash Anti Join", "Hash Cond: t.tenant = tenant", "Join Filter: (id <> t.seats::bigint)"}, []string{"EXISTS("}},
		{"uncorrelated in", "SELECT tenant FROM tenants WHERE tenant IN (SELECT tenant FROM evals WHERE score > 0.5)",
			[]string{"Hash Semi Join", "Filter: (score > "}, []string{" IN ("}},
		{"uncorrelated not in is null-aware", "SELECT tenant FROM tenants WHERE tenant NOT IN (SELECT tenant FROM evals)",
			[]string{"Hash Anti Join", "Null-aware: NOT IN"}, []string{" IN ("}},
		{"correlated not in", "SELECT tenant FROM tenants t WHERE seats NOT IN (SELECT id FROM evals e WHERE e.tenant = t.tenant)",
			[]string{"Hash Anti Join", "IS NULL"}, []string{"Null-aware", " IN ("}},
		{"= any", "SELECT tenant FROM tenants t WHERE seats = ANY (SELECT id FROM evals e WHERE e.tenant = t.tenant)",
			[]string{"Hash Semi Join"}, []string{"ANY"}},
		{"scalar count: the count bug", "SELECT tenant, (SELECT count(*) FROM evals e WHERE e.tenant = t.tenant) FROM tenants t",
			[]string{"CASE WHEN", "THEN '0'::bigint", "Hash Join", "Group Key: tenant"}, []string{"(SELECT"}},
		{"scalar avg in where", "SELECT tenant FROM tenants t WHERE seats < (SELECT 0.2 * avg(score) FROM evals e WHERE e.tenant = t.tenant)",
			[]string{"Filter: ", "Hash Join", "Group Key: tenant", "avg(score)"}, []string{"(SELECT", "CASE"}},
		{"two correlations", "SELECT tenant FROM tenants t WHERE EXISTS (SELECT 1 FROM evals e WHERE e.tenant = t.tenant AND e.id = t.seats)",
			[]string{"Hash Semi Join", "Hash Cond: t.tenant = tenant AND t.seats::bigint = id"}, nil},
		{"nested in with correlated sum", "SELECT tenant FROM tenants WHERE tenant IN (SELECT tenant FROM evals e WHERE e.score > (SELECT sum(cost) FROM llm_calls c WHERE c.tenant = e.tenant))",
			[]string{"Hash Semi Join", "Hash Join", "Group Key: tenant", "sum(cost)"}, []string{"(SELECT"}},
		{"exists and not exists", "SELECT tenant FROM tenants t WHERE EXISTS (SELECT 1 FROM evals e WHERE e.tenant = t.tenant) AND NOT EXISTS (SELECT 1 FROM llm_calls c WHERE c.tenant = t.tenant AND c.cost > 1)",
			[]string{"Hash Anti Join", "Hash Semi Join"}, []string{"EXISTS("}},
		// Shapes still run per outer row.
		{"exists under or", "SELECT tenant FROM tenants t WHERE seats > 1 OR EXISTS (SELECT 1 FROM evals e WHERE e.tenant = t.tenant)",
			[]string{"EXISTS("}, []string{"Semi Join"}},
		{"no equality to hash", "SELECT tenant FROM tenants t WHERE EXISTS (SELECT 1 FROM evals e WHERE e.id > t.seats)",
			[]string{"EXISTS("}, []string{"Semi Join"}},
		{"scalar without aggregate", "SELECT tenant, (SELECT id FROM evals e WHERE e.tenant = t.tenant) FROM tenants t",
			[]string{"(SELECT id FROM evals"}, nil},
		{"cte read twice is spooled", "WITH b AS (SELECT tenant, sum(cost) AS c FROM llm_calls GROUP BY tenant) SELECT x.tenant FROM b x JOIN b y ON x.tenant = y.tenant",
			[]string{"Hash Join", "Spool", "Spool"}, nil},
		{"cte read once is inlined", "WITH b AS (SELECT tenant, sum(cost) AS c FROM llm_calls GROUP BY tenant) SELECT tenant FROM b",
			[]string{"HashAggregate"}, []string{"Spool"}},
		{"not materialized cte is inlined", "WITH b AS NOT MATERIALIZED (SELECT tenant FROM llm_calls) SELECT x.tenant FROM b x JOIN b y ON x.tenant = y.tenant",
			[]string{"Hash Join"}, []string{"Spool"}},
		{"derived table filter prunes the scan", "SELECT * FROM (SELECT tenant, cost FROM llm_calls WHERE cost > 1) s WHERE s.tenant = 'a'",
			[]string{"Filter: (tenant = 'a'::text)", "Filter: (cost > ", "Pruning Filter: And(", "tenant"}, nil},
		{"grouped derived table filter on its key prunes", "SELECT * FROM (SELECT tenant, sum(cost) AS c FROM llm_calls GROUP BY tenant) s WHERE s.tenant = 'a'",
			[]string{"Filter: (tenant = 'a'::text)", "HashAggregate", "Pruning Filter: Equal(term=Reference(name='tenant')"}, nil},
		{"not through limit", "SELECT * FROM (SELECT tenant FROM llm_calls LIMIT 5) s WHERE s.tenant = 'a'",
			[]string{"Limit"}, []string{"Pruning Filter"}},
		{"left join filters", "SELECT t.tenant FROM tenants t LEFT JOIN llm_calls c ON c.tenant = t.tenant AND c.cost > 1 WHERE t.seats > 3",
			[]string{"Hash Join", "Filter: (seats > '3'::integer)", "Pruning Filter", "Filter: (cost > ", "Pruning Filter"}, nil},
		{"volatile cte is spooled", "WITH b AS (SELECT random() AS r) SELECT r FROM b",
			[]string{"Spool"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := explainPlan(cat, tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			plan := strings.Join(lines, "\n")
			rest := plan
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("plan lacks %q (in order):\n%s", w, plan)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(plan, n) {
					t.Fatalf("plan has %q:\n%s", n, plan)
				}
			}
		})
	}
}
