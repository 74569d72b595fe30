package difffuzz

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

// TestDMLFuzz changes rows at random on Loam and a throwaway PostgreSQL
// 15 and fails at the first statement after which their answers or
// tables differ. DMLFUZZ_SEED and DMLFUZZ_N vary it.
func TestDMLFuzz(t *testing.T) {
	seed := envInt(t, "DMLFUZZ_SEED", 1)
	n := envInt(t, "DMLFUZZ_N", 1000)
	srv := loamtest.Start(t, loamtest.Binary(t))
	loamURL := fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr)
	pgURL := pgtest.Database(t)
	ctx := context.Background()
	// DMLFUZZ_SKIP leaves statement kinds out: upsert, merge, keyed, truncate.
	kinds := os.Getenv("DMLFUZZ_SKIP")
	skip := map[string]bool{}
	for _, k := range strings.Split(kinds, ",") {
		skip[k] = k != ""
	}
	f, err := NewDMLFuzzer(ctx, seed, loamURL, pgURL, skip["keyed"], t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	f.Skip = skip
	defer f.Close()
	for i := int64(0); i < n; i++ {
		diff, err := f.Step(ctx)
		if err != nil {
			t.Fatalf("seed %d step %d: %v%s", seed, f.Steps, err, srv.ExitedEarly())
		}
		if diff != "" {
			t.Fatalf("seed %d step %d: %s%s", seed, f.Steps, diff, srv.ExitedEarly())
		}
	}
	t.Logf("seed %d: %d statements, %d checkpoints, %d vacuums, no difference; refused alike: %v", seed, f.Steps, f.Checkpoints, f.Vacuums, f.Failed)
}
