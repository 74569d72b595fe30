package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// engine runs a query and returns all its rows.
type engine interface {
	name() string
	run(ctx context.Context, sql string) (result, error)
	close()
}

// wireEngine is a database spoken to over the PostgreSQL wire protocol
// (Loam, PostgreSQL).
type wireEngine struct {
	label string
	// connect returns the connection string to use, restarting the
	// server first if it is gone (Loam after a crash).
	connect func(ctx context.Context) (string, error)
	conn    *pgx.Conn
}

func (e *wireEngine) name() string { return e.label }

// run sends q over the simple query protocol, as a dashboard's SQL text
// would be, and keeps the values as the text the server sent: numbers and
// timestamps are compared from their text (see same).
func (e *wireEngine) run(ctx context.Context, q string) (result, error) {
	if e.conn == nil {
		cs, err := e.connect(ctx)
		if err != nil {
			return nil, err
		}
		cfg, err := pgx.ParseConfig(cs)
		if err != nil {
			return nil, err
		}
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		// Timestamps print in UTC, as in DuckDB (SET TimeZone below).
		cfg.RuntimeParams["timezone"] = "UTC"
		if e.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return nil, fmt.Errorf("connect: %w", err)
		}
	}
	res, err := e.query(ctx, q)
	if err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || ctx.Err() != nil {
			// A broken or cancelled connection: the next query gets a
			// fresh one.
			e.conn.Close(context.Background())
			e.conn = nil
		}
		return nil, err
	}
	return res, nil
}

func (e *wireEngine) query(ctx context.Context, q string) (result, error) {
	rows, err := e.conn.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var res result
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]cell, len(raw))
		for i, v := range raw {
			if v == nil {
				row[i] = cell{null: true}
			} else {
				row[i] = cell{str: string(v)}
			}
		}
		res = append(res, row)
	}
	return res, rows.Err()
}

// exec runs statements (setup) without keeping results.
func (e *wireEngine) exec(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		if _, err := e.run(ctx, s); err != nil {
			return fmt.Errorf("%s: %s: %w", e.label, firstLine(s), err)
		}
	}
	return nil
}

func (e *wireEngine) close() {
	if e.conn != nil {
		e.conn.Close(context.Background())
		e.conn = nil
	}
}

// duckEngine is an in-process DuckDB database.
type duckEngine struct {
	db *sql.DB
}

// openDuckDB opens an in-memory DuckDB limited to threads threads, with
// session time zone UTC (its timestamptz functions work in that zone, as
// PostgreSQL's do in the wire engines' sessions).
func openDuckDB(ctx context.Context, threads int) (*duckEngine, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	// One connection: settings are per connection, and the benchmark runs
	// one query at a time.
	db.SetMaxOpenConns(1)
	e := &duckEngine{db: db}
	if err := e.exec(ctx, fmt.Sprintf("SET threads = %d", threads), "SET TimeZone = 'UTC'"); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

func (e *duckEngine) name() string { return "duckdb" }

func (e *duckEngine) run(ctx context.Context, q string) (result, error) {
	rows, err := e.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var res result
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]cell, len(vals))
		for i, v := range vals {
			row[i] = normalize(v)
		}
		res = append(res, row)
	}
	return res, rows.Err()
}

func (e *duckEngine) exec(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		if _, err := e.db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("duckdb: %s: %w", firstLine(s), err)
		}
	}
	return nil
}

func (e *duckEngine) close() { e.db.Close() }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
