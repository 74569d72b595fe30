package difffuzz

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// Defaults of the run in `make test`: a fixed seed, so that a failure
// there is the same failure on every machine, and a budget of a few
// thousand queries. DIFFFUZZ_SEED and DIFFFUZZ_N override them (make
// fuzz-diff SEED=… N=…); DIFFFUZZ_GATES=open also generates the shapes
// Gates keeps out (known differences, KNOWN.md).
const (
	defaultSeed = 1
	defaultN    = 3000
)

func envInt(t *testing.T, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// TestDiffFuzz runs the fuzzer against a fresh `loam serve` and a
// throwaway PostgreSQL 15; every difference fails the test with its
// reduced sqllogictest record.
func TestDiffFuzz(t *testing.T) {
	seed := envInt(t, "DIFFFUZZ_SEED", defaultSeed)
	n := envInt(t, "DIFFFUZZ_N", defaultN)
	srv := loamtest.Start(t, loamtest.Binary(t))
	loamURL := fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr)
	pgURL := pgtest.Database(t)
	ctx := context.Background()
	cfg := Config{Seed: seed, Queries: int(n), Logf: t.Logf, Gates: DefaultGates(),
		// A long run goes on past a few differences: DIFFFUZZ_MAXFAIL.
		MaxFailures: int(envInt(t, "DIFFFUZZ_MAXFAIL", 0))}
	if os.Getenv("DIFFFUZZ_GATES") == "open" {
		cfg.Gates = AllGates()
	}
	f, err := New(ctx, cfg, loamURL, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Run(ctx)
	if err != nil {
		t.Fatalf("seed %d: %v%s", seed, err, srv.ExitedEarly())
	}
	t.Logf("seed %d: %d queries in %d rounds, %.0f queries/s; %d raised the same error class on both sides; %d differences",
		seed, st.Queries, st.Rounds, float64(st.Queries)/st.Elapsed.Seconds(), st.Errors, len(st.Failures))
	t.Logf("errors on both sides by SQLSTATE: %v", st.ErrorCodes)
	t.Logf("time in queries: Loam %v (slowest %v), PostgreSQL %v (slowest %v)", f.loam.Busy.Round(time.Millisecond), f.loam.Slowest.Round(time.Millisecond), f.pg.Busy.Round(time.Millisecond), f.pg.Slowest.Round(time.Millisecond))
	if f.loam.Slowest > 2*time.Second {
		t.Logf("slowest on Loam: %s", f.loam.SlowestText)
	}
	for i, fl := range st.Failures {
		// The query and its record were logged when found.
		t.Errorf("difference %d of %d (%s): see its reduced record above; fix it, or gate its shape and list it in KNOWN.md", i+1, len(st.Failures), fl.Verdict.Sig)
	}
	if msg := srv.ExitedEarly(); msg != "" {
		t.Fatal(msg)
	}
}
