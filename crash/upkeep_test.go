package crash

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// vacuumer runs VACUUM t (compaction, expiry, orphan removal) over and
// over until ctx ends; it returns the first error it saw, and how many
// VACUUMs completed.
func vacuumer(ctx context.Context, url string) (int, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := pgx.Connect(cctx, url)
	cancel()
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.Close(cctx)
		cancel()
	}()
	n := 0
	for ctx.Err() == nil {
		if _, err := c.Exec(ctx, "VACUUM t"); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TestKillDuringUpkeep is TestKillDuringIngest with table upkeep running
// beside the writers: background compaction every 300 ms and a client
// running VACUUM t in a loop (snapshots kept for a second, so expiry
// deletes files too), while the link commits every 200 ms. The
// server is SIGKILLed at a random moment, so kills land inside rewrites
// and their commits. After each restart every acknowledged statement must
// be there exactly once, through Loam and, after CHECKPOINT and a last
// VACUUM, through iceberg-go reading the warehouse alone.
func TestKillDuringUpkeep(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a server many times")
	}
	ctx := context.Background()
	seed := seedFromEnv(t)
	rng := rand.New(rand.NewSource(seed))
	rounds := envInt("LOAM_CRASH_ROUNDS", 6)
	const writers = 2
	dataDir, logDir := t.TempDir(), t.TempDir()
	led := newLedger()
	start := time.Now()
	upkeep := []string{"--compact-interval", "300ms"}
	vacuums := 0

	for round := 0; round < rounds; round++ {
		srv := startServer(t, dataDir, logDir, 200*time.Millisecond, upkeep...)
		c := connect(t, ctx, srv)
		if round == 0 {
			mustExec(t, ctx, c, createT)
			// Snapshots expire (and the files only they held go) within
			// the rounds, not after a day.
			mustExec(t, ctx, c, `ALTER TABLE t SET (snapshot_retention = '1 second')`)
		} else {
			res := led.check(fmt.Sprintf("Loam after restart %d", round), selectIDs(t, ctx, c), true)
			reportCheck(t, res)
			if t.Failed() {
				t.Fatalf("seed %d round %d: %s; server log:\n%s", seed, round, res, srv.logTail())
			}
		}
		c.Close(ctx)

		delay := time.Duration(500+rng.Intn(2500)) * time.Millisecond
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		var wg sync.WaitGroup
		var killed atomic.Bool
		errs := make([]error, writers+1)
		for w := 0; w < writers; w++ {
			wrng := rand.New(rand.NewSource(seed + int64(round)*1000 + int64(w)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := writer(wctx, srv.url(), round, w, wrng, led, ingestCfg{copyText: true})
				if err != nil && !killed.Load() {
					errs[w] = err
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := vacuumer(wctx, srv.url())
			vacuums += n
			if err != nil && !killed.Load() {
				errs[writers] = fmt.Errorf("VACUUM: %w", err)
			}
		}()
		time.Sleep(delay)
		killAndDrain(t, srv, &killed, &wg, round, "clients")
		cancel()
		for w, err := range errs {
			if err != nil {
				t.Errorf("seed %d round %d client %d: failed before the kill: %v", seed, round, w, err)
			}
		}
		t.Logf("round %d: killed after %v", round, delay)
		if time.Since(start) > 60*time.Second {
			t.Logf("stopping after %d rounds to stay in the time budget", round+1)
			break
		}
	}
	t.Logf("%s; %d VACUUMs completed", led.statsByMode(), vacuums)
	if vacuums == 0 {
		t.Error("no VACUUM completed before a kill: the test did not exercise compaction")
	}

	files := finalCheck(t, ctx, led, dataDir, logDir, upkeep, "CHECKPOINT", "VACUUM t")
	// A VACUUM leaves at most one file per partition below the target.
	if len(files) > 8 {
		t.Errorf("%d files in the current snapshot after VACUUM; want a few (one a day partition)", len(files))
	}
	if t.Failed() {
		t.Logf("seed %d; rerun with LOAM_CRASH_SEED=%d LOAM_CRASH_ROUNDS=%d", seed, seed, rounds)
	}
}
