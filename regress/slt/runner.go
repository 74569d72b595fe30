package slt

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// Engine is the engine name the runner runs as by default: records marked
// `skipif postgresql`, or `onlyif` another engine, are skipped.
const Engine = "postgresql"

// ConnConfig parses a connection string into a pgx configuration that
// talks the simple query protocol (every value comes back as text, as it
// would to psql) and, when a context ends during a statement, sends the
// server a CancelRequest and gives it a few seconds to stop before the
// connection is given up, so a slow record does not cost the connection.
func ConnConfig(connString string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	return cfg, nil
}

// Runner runs the records of one script on one database.
type Runner struct {
	// Engine names the engine for skipif/onlyif; "" means Engine.
	Engine string
	// RecordTimeout bounds each statement or query; 0 means 10s.
	RecordTimeout time.Duration
	// MaxFailures is how many failures Result.Failures keeps; 0 means 5.
	MaxFailures int
	// Connect opens a connection to the database under test. Run calls it
	// at the start and again when a connection is lost or left unusable by
	// a timed-out record; if it fails then, the run is aborted.
	Connect func(ctx context.Context) (*pgx.Conn, error)
}

// Result is what running one script came to.
type Result struct {
	File    string
	Records int // statements and queries: Passed + Failed + Skipped
	Passed  int
	Failed  int
	Skipped int // skipif/onlyif, and records after a halt
	// TimedOut counts the failed records that ran out of time: they hit
	// the record timeout, or were not run because the run's context ended.
	TimedOut int

	Failures []Failure      // the first few failures
	Causes   map[string]int // every failure by cause (see Failure.Cause)

	// Aborted is set when the run could not go on: the server stopped
	// answering or dropped the connection and refused a new one. The
	// records not run then count as failed.
	Aborted error
	Elapsed time.Duration

	StatementTime time.Duration // spent in statements
	QueryTime     time.Duration // spent in queries
	Slow          []Timing      // records that took SlowRecord or longer, the first few
}

// Timing is how long one record took.
type Timing struct {
	Line    int
	Elapsed time.Duration
}

// SlowRecord is how long a record must take to be listed in Result.Slow.
const SlowRecord = time.Second

// Failure is one record that did not pass.
type Failure struct {
	Line     int
	SQL      string
	Expected string // expected values, one per line, or a hash line
	Got      string // actual values, likewise
	Err      string // the error the server sent, or what went wrong
	Cause    string // Err without the specifics, for grouping
}

func (f Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d: %s\n", f.Line, indent(f.SQL))
	if f.Err != "" {
		fmt.Fprintf(&b, "  error: %s\n", f.Err)
	}
	if f.Expected != "" || f.Got != "" {
		fmt.Fprintf(&b, "  expected:\n    %s\n  got:\n    %s\n", indent(f.Expected), indent(f.Got))
	}
	return strings.TrimRight(b.String(), "\n")
}

func indent(s string) string {
	const max = 40
	lines := strings.Split(s, "\n")
	if len(lines) > max {
		lines = append(lines[:max], fmt.Sprintf("... (%d more lines)", len(lines)-max))
	}
	return strings.Join(lines, "\n    ")
}

// Run executes records in order and tallies them. ctx bounds the whole run:
// once it is done the records left count as failed (cause "not run: …"),
// and Run returns. Run closes the connections it opened.
func (r *Runner) Run(ctx context.Context, file string, records []Record) *Result {
	start := time.Now()
	engine := r.Engine
	if engine == "" {
		engine = Engine
	}
	recTimeout := r.RecordTimeout
	if recTimeout == 0 {
		recTimeout = 10 * time.Second
	}
	maxFail := r.MaxFailures
	if maxFail == 0 {
		maxFail = 5
	}
	res := &Result{File: file, Causes: map[string]int{}}
	defer func() { res.Elapsed = time.Since(start) }()

	fail := func(f Failure) {
		res.Failed++
		if f.Cause == "" {
			f.Cause = causeOf(f.Err)
		}
		res.Causes[f.Cause]++
		if len(res.Failures) < maxFail {
			res.Failures = append(res.Failures, f)
		}
	}

	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			conn.Close(closeCtx)
			cancel()
		}
	}()
	connect := func() error {
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			conn.Close(closeCtx)
			cancel()
			conn = nil
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		c, err := r.Connect(cctx)
		if err != nil {
			return err
		}
		conn = c
		return nil
	}

	threshold := 0
	labels := map[string]string{}
	halted := false
	for _, rec := range records {
		if rec.Kind != Statement && rec.Kind != Query {
			if rec.Skipped(engine) || halted {
				continue
			}
			switch rec.Kind {
			case HashThreshold:
				threshold = rec.Threshold
			case Halt:
				halted = true
			}
			continue
		}
		res.Records++
		if halted || rec.Skipped(engine) {
			res.Skipped++
			continue
		}
		if res.Aborted != nil || ctx.Err() != nil {
			why := "not run: "
			if res.Aborted != nil {
				why += "run aborted"
			} else {
				why += "time limit for the file reached"
				res.TimedOut++
			}
			fail(Failure{Line: rec.Line, SQL: rec.SQL, Err: why, Cause: why})
			continue
		}
		if conn == nil {
			if err := connect(); err != nil {
				res.Aborted = fmt.Errorf("connect before line %d: %w", rec.Line, err)
				fail(Failure{Line: rec.Line, SQL: rec.SQL, Err: "not run: run aborted", Cause: "not run: run aborted"})
				continue
			}
		}

		rctx, cancel := context.WithTimeout(ctx, recTimeout)
		var f *Failure
		var err error
		t0 := time.Now()
		if rec.Kind == Statement {
			f, err = r.statement(rctx, conn, &rec)
			res.StatementTime += time.Since(t0)
		} else {
			f, err = r.query(rctx, conn, &rec, threshold, labels)
			res.QueryTime += time.Since(t0)
		}
		if d := time.Since(t0); d >= SlowRecord && len(res.Slow) < 20 {
			res.Slow = append(res.Slow, Timing{rec.Line, d})
		}
		timedOut := rctx.Err() != nil && ctx.Err() == nil
		cancel()

		if f == nil {
			res.Passed++
		} else {
			switch {
			case timedOut:
				res.TimedOut++
				f.Err = fmt.Sprintf("timed out after %v (%s)", recTimeout, f.Err)
				f.Cause = fmt.Sprintf("timed out after %v", recTimeout)
			case ctx.Err() != nil:
				res.TimedOut++
				f.Err = fmt.Sprintf("not finished: time limit for the file reached (%s)", f.Err)
				f.Cause = "not finished: time limit for the file reached"
			}
			fail(*f)
		}
		if err == nil && !timedOut {
			continue
		}
		// The connection may be unusable: make sure the server still
		// answers, on a new connection if need be. After a timeout always
		// take a new one: the CancelRequest sent for the record may
		// otherwise land on the next statement.
		if ctx.Err() != nil {
			continue // the records left are counted as not run
		}
		if timedOut {
			if cerr := connect(); cerr != nil {
				res.Aborted = fmt.Errorf("after line %d timed out: the server does not answer: %w", rec.Line, cerr)
				continue
			}
		}
		if err := r.probe(ctx, conn); err != nil {
			if cerr := connect(); cerr != nil {
				res.Aborted = fmt.Errorf("after line %d (%v): the server does not answer: %w", rec.Line, err, cerr)
				continue
			}
			if err := r.probe(ctx, conn); err != nil {
				res.Aborted = fmt.Errorf("after line %d: the server does not answer on a new connection: %w", rec.Line, err)
			}
		}
	}
	return res
}

// probe checks that conn still answers SELECT 1 within a few seconds.
func (r *Runner) probe(ctx context.Context, conn *pgx.Conn) error {
	if conn == nil || conn.IsClosed() {
		return errors.New("connection closed")
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var one int
	return conn.QueryRow(pctx, "SELECT 1").Scan(&one)
}

// statement runs a statement record. It returns a failure when the record
// did not pass, and an error when the connection may be unusable
// (anything but an error the server sent).
func (r *Runner) statement(ctx context.Context, conn *pgx.Conn, rec *Record) (*Failure, error) {
	_, err := conn.Exec(ctx, rec.SQL)
	connErr := brokenConn(err)
	switch {
	case err == nil && rec.ExpectError:
		return &Failure{Line: rec.Line, SQL: rec.SQL, Err: "statement succeeded; an error was expected",
			Cause: "statement succeeded; an error was expected"}, nil
	case err != nil && !rec.ExpectError:
		return &Failure{Line: rec.Line, SQL: rec.SQL, Err: errText(err)}, connErr
	case err != nil && connErr != nil:
		// Expected an error, but not a lost connection.
		return &Failure{Line: rec.Line, SQL: rec.SQL, Err: errText(err)}, connErr
	case err != nil && (rec.ErrorCode != "" || rec.ErrorText != ""):
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && rec.ErrorCode != "" && pgErr.Code != rec.ErrorCode {
			return &Failure{Line: rec.Line, SQL: rec.SQL, Err: errText(err) + "; expected SQLSTATE " + rec.ErrorCode,
				Cause: "wrong SQLSTATE"}, nil
		}
		if errors.As(err, &pgErr) && rec.ErrorText != "" && !strings.Contains(pgErr.Message, rec.ErrorText) {
			return &Failure{Line: rec.Line, SQL: rec.SQL, Err: errText(err) + "; expected a message with " + strconv.Quote(rec.ErrorText),
				Cause: "wrong error message"}, nil
		}
	}
	return nil, nil
}

// query runs a query record and compares its values.
func (r *Runner) query(ctx context.Context, conn *pgx.Conn, rec *Record, threshold int, labels map[string]string) (*Failure, error) {
	fail := func(err error, cause string) (*Failure, error) {
		return &Failure{Line: rec.Line, SQL: rec.SQL, Err: errText(err), Cause: cause}, brokenConn(err)
	}
	rows, err := conn.Query(ctx, rec.SQL)
	if err != nil {
		return fail(err, "")
	}
	ncol := len(rec.Types)
	var vals []string
	fields := rows.FieldDescriptions()
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != ncol {
			continue // reported below from the row description
		}
		for i, v := range raw {
			vals = append(vals, Render(v, rec.Types[i]))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err, "")
	}
	if len(fields) != ncol {
		msg := fmt.Sprintf("query returned %d columns; the record declares %d (%s)", len(fields), ncol, rec.Types)
		return &Failure{Line: rec.Line, SQL: rec.SQL, Err: msg, Cause: "wrong number of columns"}, nil
	}
	SortValues(vals, ncol, rec.Sort)

	if rec.Label != "" {
		h := HashValues(vals)
		if prev, ok := labels[rec.Label]; ok && prev != h {
			return &Failure{Line: rec.Line, SQL: rec.SQL,
				Err:   fmt.Sprintf("label %s: %s here, %s before", rec.Label, h, prev),
				Cause: "result differs from an earlier query with the same label"}, nil
		} else if !ok {
			labels[rec.Label] = h
		}
	}
	if ok, got := Match(rec.Expected, vals, ncol, threshold); !ok {
		return &Failure{Line: rec.Line, SQL: rec.SQL, Expected: strings.Join(rec.Expected, "\n"),
			Got: got, Cause: "wrong result"}, nil
	}
	return nil, nil
}

// brokenConn is err when it is not an error the server sent, i.e. when the
// connection may be lost or out of step.
func brokenConn(err error) error {
	var pgErr *pgconn.PgError
	if err == nil || errors.As(err, &pgErr) {
		return nil
	}
	return err
}

func errText(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	return err.Error()
}

var (
	quoted  = regexp.MustCompile(`"[^"]*"`)
	literal = regexp.MustCompile(`'[^']*'`)
	number  = regexp.MustCompile(`\b\d+\b`)
)

// causeOf is an error message without the names and numbers in it, so that
// failures group by what went wrong.
func causeOf(msg string) string {
	if i := strings.Index(msg, " (SQLSTATE "); i >= 0 {
		state := msg[i:]
		msg = msg[:i]
		msg = quoted.ReplaceAllString(msg, `"…"`)
		msg = literal.ReplaceAllString(msg, `'…'`)
		msg = number.ReplaceAllString(msg, "N")
		return msg + state
	}
	return msg
}
