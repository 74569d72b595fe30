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

// servers starts Loam and a throwaway PostgreSQL 15 and returns a pgx
// connection to each (pgx's default config: the extended protocol with
// its statement cache, binary results for the types it knows).
func servers(t *testing.T, ctx context.Context) (loam, pg *pgx.Conn) {
	t.Helper()
	srv := loamtest.Start(t, loamtest.Binary(t))
	urls := []string{fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr), pgtest.Database(t)}
	conns := make([]*pgx.Conn, 2)
	for i, url := range urls {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatalf("connect %s: %v", url, err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		// Both sessions in UTC, so that timestamptz text and date_trunc
		// of a timestamptz agree whatever the machine's zone.
		if _, err := c.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
			t.Fatalf("SET TimeZone on %s: %v", url, err)
		}
		conns[i] = c
	}
	return conns[0], conns[1]
}
