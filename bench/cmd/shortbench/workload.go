package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// workload is one kind of short query, sent the way a given client
// library mode sends it.
type workload struct {
	name string
	desc string
	// mode is pgx's query exec mode: CacheStatement prepares the
	// statement once a connection and then only binds and executes it;
	// Exec sends Parse+Bind+Execute of an unnamed statement every call,
	// one round trip; SimpleProtocol sends the text with the parameters
	// inlined. The last two make the server parse and plan every call,
	// which is the cost a plan kept with the prepared statement saves.
	mode pgx.QueryExecMode
	op   func(ctx context.Context, c *pgx.Conn, r *rand.Rand, rows int64) error
}

// pgbench's statements (its "select-only" and the history INSERT of its
// TPC-B-like script), with its value ranges at one branch a 100,000
// accounts.
const (
	selectSQL = `SELECT abalance FROM accounts WHERE aid = $1`
	insertSQL = `INSERT INTO history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, now())`
)

func pointSelect(ctx context.Context, c *pgx.Conn, r *rand.Rand, rows int64) error {
	aid := 1 + r.Int64N(rows)
	var abalance int32
	if err := c.QueryRow(ctx, selectSQL, aid).Scan(&abalance); err != nil {
		return fmt.Errorf("select aid %d: %w", aid, err)
	}
	return nil
}

func historyInsert(ctx context.Context, c *pgx.Conn, r *rand.Rand, rows int64) error {
	branches := (rows + accountsPerBranch - 1) / accountsPerBranch
	aid := 1 + r.Int64N(rows)
	bid := int32(1 + r.Int64N(branches))
	tid := int32(1 + r.Int64N(10*branches))
	delta := int32(r.Int64N(10001) - 5000)
	tag, err := c.Exec(ctx, insertSQL, tid, bid, aid, delta)
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("insert: command tag %q, want one row", tag)
	}
	return nil
}

var workloads = []workload{
	{"select-prepared", "point select, prepared once (pgx statement cache)", pgx.QueryExecModeCacheStatement, pointSelect},
	{"select-exec", "point select, unnamed statement each call (extended protocol)", pgx.QueryExecModeExec, pointSelect},
	{"select-simple", "point select, simple protocol, parameter inlined", pgx.QueryExecModeSimpleProtocol, pointSelect},
	{"insert-prepared", "single-row INSERT in autocommit, prepared once", pgx.QueryExecModeCacheStatement, historyInsert},
}

// measure runs w on conns connections for warmup+dur and summarizes the
// operations that started in the last dur. Each connection is one client
// sending its next query when the answer to the last one has arrived, as
// pgbench does.
func measure(ctx context.Context, connString string, w workload, conns int, rows int64, seed uint64, warmup, dur time.Duration) (summary, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return summary{}, err
	}
	cfg.DefaultQueryExecMode = w.mode
	cs := make([]*pgx.Conn, conns)
	defer func() {
		for _, c := range cs {
			if c != nil {
				c.Close(context.Background())
			}
		}
	}()
	for i := range cs {
		if cs[i], err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return summary{}, fmt.Errorf("connect: %w", err)
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
				if err := w.op(ctx, c, r, rows); err != nil {
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
			return summary{}, err
		}
	}
	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	return summarize(all, dur), nil
}
