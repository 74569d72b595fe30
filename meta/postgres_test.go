package meta_test

import (
	"os"
	"testing"

	"github.com/loamdb/loam/meta/metatest"
	"github.com/loamdb/loam/meta/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// TestPostgresStore runs the suite on a throwaway PostgreSQL cluster, a new
// database for each test.
func TestPostgresStore(t *testing.T) {
	metatest.Run(t, func(t *testing.T) (string, string) {
		return pgtest.Database(t), "file://" + t.TempDir() + "/warehouse"
	})
}
