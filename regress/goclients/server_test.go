package goclients

import (
	"fmt"
	"os"
	"testing"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// startLoam starts `loam serve` on a fresh data directory and returns its
// connection URL; it is stopped when the test ends.
func startLoam(t *testing.T) string {
	t.Helper()
	srv := loamtest.Start(t, loamtest.Binary(t))
	// No sslmode: pgx's default (prefer) asks for TLS first.
	return fmt.Sprintf("postgres://loam@%s/loam", srv.Addr)
}
