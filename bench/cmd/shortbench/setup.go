package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// accountsPerBranch is pgbench's: bid = (aid-1)/100000 + 1.
const accountsPerBranch = 100000

// filler is pgbench's filler value: its char(84) column pads the empty string with
// blanks, so each account row carries 84 bytes beside its numbers.
var filler = strings.Repeat(" ", 84)

// setup creates pgbench's accounts and history tables on t and loads
// accounts with rows rows. On Loam the accounts are then checkpointed into
// Iceberg, so a point select reads Parquet files (pruned by aid through
// SORTED BY) and no write-log tail; on PostgreSQL VACUUM ANALYZE gives the
// planner its statistics and the visibility map, as autovacuum would have
// by the time an application runs.
func setup(ctx context.Context, t *target, rows int64) error {
	c, err := pgx.Connect(ctx, t.connString)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	accounts := `CREATE TABLE accounts (aid bigint PRIMARY KEY, bid int, abalance int, filler text)`
	if t.loam {
		accounts += ` SORTED BY (aid)`
	}
	for _, q := range []string{
		`DROP TABLE IF EXISTS accounts`,
		`DROP TABLE IF EXISTS history`,
		accounts,
		`CREATE TABLE history (tid int, bid int, aid bigint, delta int, mtime timestamptz)`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	tag, err := c.PgConn().CopyFrom(ctx, bytes.NewReader(accountsText(rows)), `COPY accounts (aid, bid, abalance, filler) FROM STDIN`)
	if err != nil {
		return fmt.Errorf("copy accounts: %w", err)
	}
	if tag.RowsAffected() != rows {
		return fmt.Errorf("copy accounts: %d rows, want %d", tag.RowsAffected(), rows)
	}
	after := `VACUUM ANALYZE accounts`
	if t.loam {
		after = `CHECKPOINT`
	}
	if _, err := c.Exec(ctx, after); err != nil {
		return fmt.Errorf("%s: %w", after, err)
	}
	var n int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&n); err != nil {
		return fmt.Errorf("count: %w", err)
	}
	if n != rows {
		return fmt.Errorf("accounts has %d rows, want %d", n, rows)
	}
	return nil
}

// accountsText renders the accounts as COPY text, in aid order as pgbench
// loads them.
func accountsText(rows int64) []byte {
	b := make([]byte, 0, int(rows)*(len(filler)+20))
	for aid := int64(1); aid <= rows; aid++ {
		b = strconv.AppendInt(b, aid, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, (aid-1)/accountsPerBranch+1, 10)
		b = append(b, "\t0\t"...)
		b = append(b, filler...)
		b = append(b, '\n')
	}
	return b
}
