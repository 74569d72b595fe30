package sqlbench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Engine runs a query and returns all its rows.
type Engine interface {
	Name() string
	Query(ctx context.Context, sql string) (Result, error)
	Close()
}

// Wire is a database spoken to over the PostgreSQL wire protocol.
type Wire struct {
	Label string
	// Connect returns the connection string to use (a harness may restart
	// a server that died before returning it).
	Connect func(ctx context.Context) (string, error)
	// Setup runs on every new connection (SET statements); errors are
	// ignored, as an engine may not know a setting.
	Setup []string
	// CPUFunc, when set, gives the CPU time of the server's processes.
	CPUFunc func() (time.Duration, error)
	conn    *pgx.Conn
}

// CPU implements CPUer.
func (e *Wire) CPU() (time.Duration, error) {
	if e.CPUFunc == nil {
		return 0, errors.New("no CPU time")
	}
	return e.CPUFunc()
}

func (e *Wire) Name() string { return e.Label }

// Query sends q over the simple query protocol, as SQL text from a
// dashboard or a benchmark script would be, and keeps the text the server
// sent.
func (e *Wire) Query(ctx context.Context, q string) (Result, error) {
	if e.conn == nil {
		if err := e.connect(ctx); err != nil {
			return nil, err
		}
	}
	res, err := e.query(ctx, q)
	if err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || ctx.Err() != nil {
			// A broken or cancelled connection: the next query gets a fresh one.
			e.Close()
		}
		return nil, err
	}
	return res, nil
}

func (e *Wire) connect(ctx context.Context) error {
	cs, err := e.Connect(ctx)
	if err != nil {
		return err
	}
	cfg, err := pgx.ParseConfig(cs)
	if err != nil {
		return err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.RuntimeParams["timezone"] = "UTC"
	if e.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		return fmt.Errorf("%s: connect: %w", e.Label, err)
	}
	for _, s := range e.Setup {
		_, _ = e.query(ctx, s)
	}
	return nil
}

func (e *Wire) query(ctx context.Context, q string) (Result, error) {
	rows, err := e.conn.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var floats []bool
	for _, f := range rows.FieldDescriptions() {
		floats = append(floats, f.DataTypeOID == 700 || f.DataTypeOID == 701)
	}
	var res Result
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]Cell, len(raw))
		for i, v := range raw {
			if v == nil {
				row[i] = Cell{Null: true}
			} else {
				row[i] = Cell{Text: string(v), Float: floats[i]}
			}
		}
		res = append(res, row)
	}
	return res, rows.Err()
}

// Exec runs statements, stopping at the first error.
func (e *Wire) Exec(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		if _, err := e.Query(ctx, s); err != nil {
			return fmt.Errorf("%s: %s: %w", e.Label, FirstLine(s), err)
		}
	}
	return nil
}

// Conn is the open connection (opening one if needed), for COPY.
func (e *Wire) Conn(ctx context.Context) (*pgx.Conn, error) {
	if e.conn == nil {
		if err := e.connect(ctx); err != nil {
			return nil, err
		}
	}
	return e.conn, nil
}

func (e *Wire) Close() {
	if e.conn != nil {
		e.conn.Close(context.Background())
		e.conn = nil
	}
}

// Duck is an in-process DuckDB database.
type Duck struct{ DB *sql.DB }

// OpenDuckDB opens an in-memory DuckDB limited to threads threads, its
// session time zone UTC.
func OpenDuckDB(ctx context.Context, threads int) (*Duck, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	db.SetMaxOpenConns(1) // settings are per connection
	e := &Duck{DB: db}
	if err := e.Exec(ctx, fmt.Sprintf("SET threads = %d", threads), "SET TimeZone = 'UTC'"); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

func (e *Duck) Name() string { return "duckdb" }

func (e *Duck) Query(ctx context.Context, q string) (Result, error) {
	rows, err := e.DB.QueryContext(ctx, q)
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
	var res Result
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]Cell, len(vals))
		for i, v := range vals {
			row[i] = Normalize(v)
		}
		res = append(res, row)
	}
	return res, rows.Err()
}

func (e *Duck) Exec(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		if _, err := e.DB.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("duckdb: %s: %w", FirstLine(s), err)
		}
	}
	return nil
}

func (e *Duck) Close() { e.DB.Close() }

// CPU implements CPUer: DuckDB runs in this process.
func (e *Duck) CPU() (time.Duration, error) { return SelfCPU() }

// FirstLine shortens a statement for a message.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
