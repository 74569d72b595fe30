package obs

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// servers starts Loam and a throwaway PostgreSQL 15 and connects to each.
func servers(t *testing.T, ctx context.Context) (loam, pg *pgx.Conn) {
	t.Helper()
	return loamConn(t, ctx), connect(t, ctx, pgtest.Database(t))
}

// loamConn starts a Loam server and connects to it.
func loamConn(t *testing.T, ctx context.Context) *pgx.Conn {
	t.Helper()
	srv := loamtest.Start(t, loamtest.Binary(t))
	return connect(t, ctx, fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr))
}

// connect opens a pgx connection (pgx's default config: the extended
// protocol with its statement cache, binary results for the types it
// knows) in UTC, so that timestamptz text and date_trunc of a timestamptz
// agree whatever the machine's zone.
func connect(t *testing.T, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	if _, err := c.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatalf("SET TimeZone on %s: %v", url, err)
	}
	return c
}
