package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	restcat "github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
)

// TestRESTAuthzEndToEnd: roles, passwords and grants made in SQL decide
// what a REST catalog client of that role may do, with either
// --authorizer: a wrong password gets no token; a role that may read one
// schema loads its table, is refused (403) the other schema and commits
// until granted INSERT, and a REVOKE holds from its next request.
func TestRESTAuthzEndToEnd(t *testing.T) {
	for _, az := range []string{authorizerBuiltin, authorizerOpenFGA} {
		t.Run(az, func(t *testing.T) {
			ctx := context.Background()
			httpAddr := freeAddr(t)
			url := startServerWith(t, t.TempDir(), "--http", httpAddr, "--authorizer", az, "--password", "s3cret")
			c := connect(t, strings.Replace(url, "loam@", "loam:s3cret@", 1))
			for _, q := range []string{
				`CREATE SCHEMA sales`,
				`CREATE SCHEMA hr`,
				`CREATE TABLE sales.orders (id BIGINT, msg TEXT) WITH (writer = 'external')`,
				`CREATE TABLE hr.salaries (id BIGINT, msg TEXT)`,
				`CREATE ROLE analyst LOGIN PASSWORD 'pw'`,
				`GRANT USAGE ON SCHEMA sales TO analyst`,
				`GRANT SELECT ON sales.orders TO analyst`,
			} {
				if _, err := c.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			uri := "http://" + httpAddr
			if _, err := restcat.NewCatalog(ctx, "loam", uri, restcat.WithCredential("analyst:wrong")); err == nil {
				t.Error("a wrong password got a token")
			}
			cat, err := restcat.NewCatalog(ctx, "loam", uri, restcat.WithCredential("analyst:pw"))
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			orders, err := cat.LoadTable(ctx, table.Identifier{"sales", "orders"})
			if err != nil {
				t.Fatalf("analyst loads sales.orders: %v", err)
			}
			if _, err := cat.LoadTable(ctx, table.Identifier{"hr", "salaries"}); !errors.Is(err, restcat.ErrForbidden) {
				t.Errorf("analyst loads hr.salaries: %v, want 403", err)
			}
			if _, err := appendThroughClient(ctx, t, orders, []int64{1}, []string{"one"}); !errors.Is(err, restcat.ErrForbidden) {
				t.Errorf("analyst appends without INSERT: %v, want 403", err)
			}
			if _, err := c.Exec(ctx, `GRANT INSERT ON sales.orders TO analyst`); err != nil {
				t.Fatal(err)
			}
			if _, err := appendThroughClient(ctx, t, orders, []int64{1}, []string{"one"}); err != nil {
				t.Errorf("analyst appends with INSERT: %v", err)
			}
			if got := queryRows(ctx, t, c, `SELECT id, msg FROM sales.orders`); !slices.Equal(got, []string{"1|one"}) {
				t.Errorf("Loam reads the analyst's append: %v", got)
			}
			if _, err := c.Exec(ctx, `REVOKE SELECT ON sales.orders FROM analyst`); err != nil {
				t.Fatal(err)
			}
			if _, err := cat.LoadTable(ctx, table.Identifier{"sales", "orders"}); !errors.Is(err, restcat.ErrForbidden) {
				t.Errorf("analyst loads sales.orders after REVOKE: %v, want 403", err)
			}
		})
	}
}
