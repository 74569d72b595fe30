package plan_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// TestInsertPlans pins the plans of INSERT's shapes as EXPLAIN prints
// them: the sink at the root, over the source projected to the table's
// columns (defaults for those not given, assignment casts for the rest).
func TestInsertPlans(t *testing.T) {
	cat, err := newFakeCatalog()
	if err != nil {
		t.Fatal(err)
	}
	// tenants with defaults for plan and seats.
	ti, err := fakeTable("tenants_d", []fakeColumn{{"tenant", types.TText, true}, {"plan", types.TText, false}, {"seats", types.TInt4, false}}, "")
	if err != nil {
		t.Fatal(err)
	}
	ti.Defaults = []string{"", "'free'::text", "1"}
	cat.tables["tenants_d"] = ti
	for _, c := range []struct{ name, sql, want string }{
		{"values", "INSERT INTO tenants VALUES ('a', 'pro', 3)", `
Insert on tenants
  ->  Project
        Output: #0, #1, #2
        ->  Values Scan (1 rows)`},
		{"column list", "INSERT INTO tenants (seats, tenant) VALUES (2, 'b')", `
Insert on tenants
  ->  Project
        Output: #1, NULL, #0
        ->  Values Scan (1 rows)`},
		{"defaults", "INSERT INTO tenants_d (tenant) VALUES ('c')", `
Insert on tenants_d
  ->  Project
        Output: #0, 'free'::text, '1'::integer
        ->  Values Scan (1 rows)`},
		{"default values", "INSERT INTO tenants_d DEFAULT VALUES", `
Insert on tenants_d
  ->  Project
        Output: NULL, 'free'::text, '1'::integer
        ->  Values Scan (1 rows)`},
		{"select with casts", "INSERT INTO tenants SELECT tenant, model, tokens FROM llm_calls WHERE cost > 1", `
Insert on tenants
  ->  Project
        Output: #0, #1, #2::integer
        ->  Project
              Output: tenant, model, tokens
              ->  Filter
                    Filter: (cost > '1'::double precision)
                    ->  Widen
                          ->  Iceberg Scan on public.llm_calls
                                Columns: tenant, model, tokens, cost
                                Pruning Filter: GreaterThan(term=Reference(name='cost'), literal=1)
                                Files: 0 of 0 (0 pruned), Partitions: 0, Rows: 0, Bytes: 0`},
		{"returning", "INSERT INTO tenants (tenant, seats) VALUES ('d', 2) RETURNING tenant, seats * 2 AS double", `
Insert on tenants
  Returning: tenant, (seats * '2'::integer)
  ->  Project
        Output: #0, NULL, #1
        ->  Values Scan (1 rows)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := pg.Parse(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			p := plan.New(context.Background(), cat, &expr.Ctx{Loc: time.UTC, Now: now, Stmt: now}, c.sql, nil, nil)
			q, err := p.Insert(res.Stmts[0].Stmt.GetInsertStmt())
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(build.Render(context.Background(), q.Root, nil, q.Env().Ec), "\n")
			if got != strings.TrimSpace(c.want) {
				t.Errorf("%s:\n%s\nwant:\n%s", c.sql, got, c.want)
			}
		})
	}
}
