package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/bench/internal/closedloop"
)

// upsertSQL is the upsert of a counter-like row: every key it picks
// exists (the keys are preloaded), so each one replaces a row, reading the
// row it replaces (n = kv.n + 1) as an application's upsert of a running
// total would.
const upsertSQL = `INSERT INTO kv (id, n, v, updated_at) VALUES ($1, 1, $2, now()) ` +
	`ON CONFLICT (id) DO UPDATE SET n = kv.n + 1, v = EXCLUDED.v, updated_at = EXCLUDED.updated_at`

// upsert runs upsertSQL once for id with value v, in autocommit: it is
// acknowledged once durable (Loam's write log, PostgreSQL's WAL, both
// fsync'd), and must report one row.
func upsert(ctx context.Context, c *pgx.Conn, id, v int64) error {
	tag, err := c.Exec(ctx, upsertSQL, id, v)
	if err != nil {
		return fmt.Errorf("upsert id %d: %w", id, err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("upsert id %d: command tag %q, want one row", id, tag)
	}
	return nil
}

// measureUpserts runs single-row upserts of uniformly random keys in
// [1, keys] on conns connections in a closed loop, prepared once a
// connection (pgx's statement cache), and summarizes the last dur.
func measureUpserts(ctx context.Context, connString string, conns int, keys int64, seed uint64, warmup, dur time.Duration) (closedloop.Summary, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return closedloop.Summary{}, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	return closedloop.Run(ctx, cfg, conns, seed, warmup, dur, func(ctx context.Context, c *pgx.Conn, r *rand.Rand) error {
		return upsert(ctx, c, 1+r.Int64N(keys), r.Int64N(1<<40))
	})
}
