package catalog

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
)

// TestColumnOrigins compares the table OID and column number that
// RowDescription gives each result column with PostgreSQL's. PgJDBC's
// ResultSetMetaData (getTableName, isNullable) and other drivers look the
// table up by them. OIDs differ between the servers, so each is turned
// into the table's name on its own server.
func TestColumnOrigins(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pgc := connect(t, ctx, pgtest.Database(t), false)
	lc := connect(t, ctx, startLoam(t), false)
	for _, c := range []*pgx.Conn{pgc, lc} {
		if _, err := c.Exec(ctx, `CREATE TABLE orig_t (id int, name text, ts timestamptz)`); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		`SELECT id, name FROM orig_t`,
		`SELECT * FROM orig_t`,
		`SELECT o.name, id + 1 AS x, ts AS renamed FROM orig_t o`,
		`SELECT s.id FROM (SELECT id FROM orig_t) s`,
		`WITH c AS (SELECT name FROM orig_t) SELECT name FROM c`,
		`SELECT count(*) FROM orig_t`,
		`SELECT a.id, b.name FROM orig_t a JOIN orig_t b ON a.id = b.id`,
		`SELECT 1 AS one, 'x' AS two`,
	}
	describe := func(c *pgx.Conn, q string) (string, error) {
		rows, err := c.Query(ctx, q)
		if err != nil {
			return "", err
		}
		fds := rows.FieldDescriptions()
		rows.Close()
		out := ""
		for _, fd := range fds {
			name := "-"
			if fd.TableOID != 0 {
				if err := c.QueryRow(ctx, `SELECT relname::text FROM pg_catalog.pg_class WHERE oid = $1`, fd.TableOID).Scan(&name); err != nil {
					return "", fmt.Errorf("table of oid %d: %w", fd.TableOID, err)
				}
			}
			out += fmt.Sprintf("%s:%s.%d ", fd.Name, name, fd.TableAttributeNumber)
		}
		return out, nil
	}
	for _, q := range queries {
		want, err := describe(pgc, q)
		if err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, err)
		}
		got, err := describe(lc, q)
		if err != nil {
			t.Errorf("Loam: %s: %v", q, err)
			continue
		}
		if got != want {
			t.Errorf("%s\nPostgreSQL: %s\nLoam:       %s", q, want, got)
		}
	}
}
