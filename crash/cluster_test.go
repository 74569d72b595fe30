package crash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/loamdb/loam/meta/pgtest"
)

func count(t *testing.T, ctx context.Context, c *pgx.Conn, tbl string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM "+tbl).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", tbl, err)
	}
	return n
}

func insertRange(ctx context.Context, c *pgx.Conn, tbl string, from, to int) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "INSERT INTO %s (id, writer, payload, ts) VALUES ", tbl)
	for i := from; i < to; i++ {
		if i > from {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "(%d, 0, 'p', '2026-11-29 10:00:00+00')", i)
	}
	_, err := c.Exec(ctx, sb.String())
	return err
}

// TestTwoServersOneCatalog runs two servers on one PostgreSQL metastore and
// one warehouse: a table created on one is read on the other; each table
// has one writer, and the other's writes are refused naming it; commits of
// both running at once are all kept; the lease passes to the other server
// when the writer stops; and iceberg-go's own SQL catalog on the same
// database reads the result without Loam.
func TestTwoServersOneCatalog(t *testing.T) {
	ctx := context.Background()
	pgURL := pgtest.Database(t)
	wh := newWarehouse(t)
	logDir := t.TempDir()
	extra := append([]string{"--metastore", pgURL}, wh.serveArgs()...)
	a := startServer(t, t.TempDir(), logDir, time.Hour, extra...)
	b := startServer(t, t.TempDir(), logDir, time.Hour, extra...)
	ca, cb := connect(t, ctx, a), connect(t, ctx, b)

	const ddl = `CREATE TABLE %s (id BIGINT NOT NULL, writer INT, payload TEXT, ts TIMESTAMPTZ) PARTITIONED BY (day(ts))`
	mustExec(t, ctx, ca, fmt.Sprintf(ddl, "ta"))
	mustExec(t, ctx, cb, fmt.Sprintf(ddl, "tb"))
	if err := insertRange(ctx, ca, "ta", 0, 100); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, ca, "CHECKPOINT")
	if n := count(t, ctx, cb, "ta"); n != 100 {
		t.Fatalf("server b reads %d rows of a's table, want 100", n)
	}

	// a writes ta: b's write is refused, naming a.
	err := insertRange(ctx, cb, "ta", 100, 101)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "55006" || !strings.Contains(pe.Message, a.addr) {
		t.Fatalf("write on the other server: %v; want 55006 naming %s", err, a.addr)
	}

	// Both servers write and commit their own tables at once.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, w := range []struct {
		c   *pgx.Conn
		tbl string
	}{{ca, "ta"}, {cb, "tb"}} {
		wg.Go(func() {
			for r := 0; r < 20; r++ {
				if err := insertRange(ctx, w.c, w.tbl, 1000+r*50, 1000+(r+1)*50); err != nil {
					errs <- err
					return
				}
				if _, err := w.c.Exec(ctx, "CHECKPOINT"); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := count(t, ctx, cb, "ta"); n != 1100 {
		t.Fatalf("b reads ta: %d rows, want 1100", n)
	}
	if n := count(t, ctx, ca, "tb"); n != 1000 {
		t.Fatalf("a reads tb: %d rows, want 1000", n)
	}

	// a stops: its lease is released and b takes ta over.
	ca.Close(ctx)
	a.stop()
	if err := insertRange(ctx, cb, "ta", 5000, 5010); err != nil {
		t.Fatalf("b after a stopped: %v", err)
	}
	mustExec(t, ctx, cb, "CHECKPOINT")
	if n := count(t, ctx, cb, "ta"); n != 1110 {
		t.Fatalf("after takeover: %d rows, want 1110", n)
	}
	cb.Close(ctx)
	b.stop()

	// iceberg-go's own SQL catalog on the PostgreSQL database.
	db, err := sql.Open("pgx", pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cat := wh.catalog(t, db, sqlcat.Postgres)
	listed := map[string]bool{}
	for id, err := range cat.ListTables(ctx, table.Identifier{"public"}) {
		if err != nil {
			t.Fatal(err)
		}
		listed[id[len(id)-1]] = true
	}
	if !listed["ta"] || !listed["tb"] {
		t.Fatalf("iceberg-go lists %v", listed)
	}
	for tbl, want := range map[string]int64{"ta": 1110, "tb": 1000} {
		it, err := cat.LoadTable(ctx, table.Identifier{"public", tbl})
		if err != nil {
			t.Fatal(err)
		}
		at, err := it.Scan().ToArrowTable(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if at.NumRows() != want {
			t.Fatalf("iceberg-go reads %d rows of %s, want %d", at.NumRows(), tbl, want)
		}
		at.Release()
	}
}
