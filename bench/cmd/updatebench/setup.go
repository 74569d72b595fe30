package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The two tables. kv is keyed: the upserts and the visibility samples
// change its rows by id. events has no key: UPDATE … WHERE grp = k finds
// its 1% of rows by scanning them all, on both databases (PostgreSQL has
// no index on it either), which is the case of a late-arriving score or
// correction applied to an analytics table. On Loam both are SORTED BY
// (id), as an application would declare them, so their Parquet files are
// ordered and pruned by id.
const (
	kvColumns     = `(id bigint PRIMARY KEY, n bigint NOT NULL, v bigint, updated_at timestamptz)`
	eventsColumns = `(id bigint NOT NULL, grp int NOT NULL, v bigint NOT NULL, note text)`
	// groups is how many groups events' rows fall in: grp = id % groups,
	// so one group is 1% of the rows.
	groups = 100
)

// setupKV creates kv on t with keys rows, ids 1 to keys.
func setupKV(ctx context.Context, t *target, keys int64) error {
	return load(ctx, t, "kv", kvColumns, keys, func(b []byte, id int64) []byte {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, "\t0\t"...)
		b = strconv.AppendInt(b, id, 10)
		return append(b, "\t2026-11-01 00:00:00+00\n"...)
	})
}

// setupEvents creates events on t with rows rows, ids 1 to rows.
func setupEvents(ctx context.Context, t *target, rows int64) error {
	return load(ctx, t, "events", eventsColumns, rows, func(b []byte, id int64) []byte {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, id%groups, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, id, 10)
		return append(b, "\tnew\n"...)
	})
}

// load (re)creates table on t and fills it with one COPY of rows rows
// rendered by line. Then, on Loam, CHECKPOINT moves every row into
// Iceberg files, so the cases change rows in files and not only in the
// write log; on PostgreSQL VACUUM ANALYZE gives the planner its
// statistics and the visibility map, as autovacuum would have by then.
func load(ctx context.Context, t *target, table, columns string, rows int64, line func([]byte, int64) []byte) error {
	c, err := pgx.Connect(ctx, t.connString)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	create := `CREATE TABLE ` + table + ` ` + columns
	if t.isLoam() {
		create += ` SORTED BY (id)`
	}
	for _, q := range []string{`DROP TABLE IF EXISTS ` + table, create} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	tag, err := c.PgConn().CopyFrom(ctx, &rowsReader{rows: rows, line: line}, `COPY `+table+` FROM STDIN`)
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	if tag.RowsAffected() != rows {
		return fmt.Errorf("copy %s: %d rows, want %d", table, tag.RowsAffected(), rows)
	}
	after := `VACUUM ANALYZE ` + table
	if t.isLoam() {
		after = `CHECKPOINT`
	}
	if _, err := c.Exec(ctx, after); err != nil {
		return fmt.Errorf("%s: %w", after, err)
	}
	var n int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		return fmt.Errorf("count %s: %w", table, err)
	}
	if n != rows {
		return fmt.Errorf("%s has %d rows, want %d", table, n, rows)
	}
	return nil
}

// rowsReader renders COPY text for ids 1 to rows as it is read, a chunk
// at a time: ten million rows never sit in memory.
type rowsReader struct {
	rows int64
	line func([]byte, int64) []byte
	next int64 // last id rendered
	buf  []byte
	off  int
}

func (r *rowsReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.next == r.rows {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		for r.next < r.rows && len(r.buf) < 64<<10 {
			r.next++
			r.buf = r.line(r.buf, r.next)
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}
