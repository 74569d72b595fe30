package difffuzz

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// queryTimeout bounds one statement: a query still running then counts as
// a hang (the data is tiny: the slowest query of a run takes well under a
// second on either side).
const queryTimeout = 30 * time.Second

// Side is one database the fuzzer talks to, over the simple query
// protocol so that every value arrives as PostgreSQL's text form.
type Side struct {
	Name   string // "loam" or "postgres"
	URL    string
	Params map[string]string // more session settings
	conn   *pgx.Conn
	// Busy is the time spent in Query, and Slowest the slowest query.
	Busy        time.Duration
	Slowest     time.Duration
	SlowestText string
}

// Result is what one statement gave.
type Result struct {
	Cols []string
	OIDs []uint32
	Rows [][]*string
	Err  *pgconn.PgError // an SQL error: the session goes on
	// Lost is set when the session did not survive the statement (closed
	// connection, FATAL, timeout): always a failure on Loam's side.
	Lost error
}

func (s *Side) connect(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(s.URL)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	// PostgreSQL's session follows the server's time zone otherwise;
	// Loam's is UTC.
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.RuntimeParams["extra_float_digits"] = "1"
	for k, v := range s.Params {
		cfg.RuntimeParams[k] = v
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%s: connect: %w", s.Name, err)
	}
	s.conn = c
	return nil
}

// reconnect replaces a lost session.
func (s *Side) reconnect(ctx context.Context) error {
	if s.conn != nil {
		s.conn.Close(ctx)
	}
	return s.connect(ctx)
}

func (s *Side) close() {
	if s.conn != nil {
		s.conn.Close(context.Background())
	}
}

// Query runs one statement and collects its rows as text. When it fails,
// the session is probed: a session that no longer answers is Lost.
func (s *Side) Query(ctx context.Context, sql string) Result {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	start := time.Now()
	defer func() {
		d := time.Since(start)
		s.Busy += d
		if d > s.Slowest {
			s.Slowest, s.SlowestText = d, sql
		}
	}()
	var res Result
	rows, err := s.conn.Query(qctx, sql)
	if err == nil {
		for _, fd := range rows.FieldDescriptions() {
			res.Cols = append(res.Cols, fd.Name)
			res.OIDs = append(res.OIDs, fd.DataTypeOID)
		}
		for rows.Next() {
			raw := rows.RawValues()
			row := make([]*string, len(raw))
			for i, v := range raw {
				if v != nil {
					sv := string(v)
					row[i] = &sv
				}
			}
			res.Rows = append(res.Rows, row)
		}
		rows.Close()
		err = rows.Err()
	}
	if err == nil {
		return res
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Severity != "FATAL" && pe.Severity != "PANIC" {
		res.Err = pe
		res.Cols, res.OIDs, res.Rows = nil, nil, nil
		if s.alive(ctx) {
			return res
		}
		res.Lost = fmt.Errorf("session lost after ERROR %s: %s", pe.Code, pe.Message)
		return res
	}
	if pe != nil {
		res.Err = pe
	}
	if qctx.Err() != nil {
		res.Lost = fmt.Errorf("no answer within %v", queryTimeout)
	} else {
		res.Lost = fmt.Errorf("session lost: %v", err)
	}
	return res
}

// alive says the session still answers.
func (s *Side) alive(ctx context.Context) bool {
	if s.conn.IsClosed() {
		return false
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := s.conn.Exec(pctx, "SELECT 1")
	return err == nil
}

// Exec runs a statement that must succeed (setup: CREATE, INSERT,
// CHECKPOINT).
func (s *Side) Exec(ctx context.Context, sql string) error {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if _, err := s.conn.Exec(qctx, sql); err != nil {
		return fmt.Errorf("%s: %s: %w", s.Name, abbrev(sql), err)
	}
	return nil
}

// Copy loads rows into table with COPY FROM STDIN in text format.
func (s *Side) Copy(ctx context.Context, table string, text string) error {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if _, err := s.conn.PgConn().CopyFrom(qctx, strings.NewReader(text), "COPY "+table+" FROM STDIN"); err != nil {
		return fmt.Errorf("%s: COPY %s: %w", s.Name, table, err)
	}
	return nil
}

func abbrev(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
