// Package closedloop runs benchmark clients in a closed loop, as pgbench
// does (each connection sends its next statement when the answer to the
// last has arrived), and summarizes their latencies. The short-query and
// update benchmarks share it, so their q/s and percentiles mean the same.
package closedloop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Op is one statement of a client: c is the client's connection, r its
// own random source.
type Op func(ctx context.Context, c *pgx.Conn, r *rand.Rand) error

// Run opens conns connections with cfg, runs op on each for warmup+dur and
// summarizes the operations that started in the last dur. Client i draws
// from PCG(seed, i), so a run is repeatable whatever the timing.
func Run(ctx context.Context, cfg *pgx.ConnConfig, conns int, seed uint64, warmup, dur time.Duration, op Op) (Summary, error) {
	cs := make([]*pgx.Conn, conns)
	defer func() {
		for _, c := range cs {
			if c != nil {
				c.Close(context.Background())
			}
		}
	}()
	for i := range cs {
		var err error
		if cs[i], err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return Summary{}, fmt.Errorf("connect: %w", err)
		}
	}

	start := time.Now().Add(warmup)
	end := start.Add(dur)
	lats := make([][]time.Duration, conns)
	errs := make([]error, conns)
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			lat := make([]time.Duration, 0, 1<<16)
			for {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				if err := op(ctx, c, r); err != nil {
					errs[i] = err
					return
				}
				if !t0.Before(start) {
					lat = append(lat, time.Since(t0))
				}
			}
			lats[i] = lat
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Summary{}, err
		}
	}
	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	return Summarize(all, dur), nil
}
