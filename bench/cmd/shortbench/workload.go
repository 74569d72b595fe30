package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/bench/internal/closedloop"
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
// operations that started in the last dur (see closedloop.Run).
func measure(ctx context.Context, connString string, w workload, conns int, rows int64, seed uint64, warmup, dur time.Duration) (closedloop.Summary, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return closedloop.Summary{}, err
	}
	cfg.DefaultQueryExecMode = w.mode
	return closedloop.Run(ctx, cfg, conns, seed, warmup, dur, func(ctx context.Context, c *pgx.Conn, r *rand.Rand) error {
		return w.op(ctx, c, r, rows)
	})
}
