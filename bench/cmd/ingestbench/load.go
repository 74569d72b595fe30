package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/loamdb/loam/bench/gen"
)

// method is one way of loading rows.
type method struct {
	name string
	// load loads rows [from, to) of the data set of seed into table over
	// conn.
	load func(ctx context.Context, conn *pgx.Conn, table string, seed, from, to uint64) error
	// prepare, when set, renders rows [from, to) before the clock starts,
	// so that the client's row generator does not share the cores with
	// the server under test (BENCH_PREGEN=0 turns it off).
	prepare func(seed, from, to uint64)
}

// pregenMaxRows bounds the rows a case renders in advance (memory).
const pregenMaxRows = 5_000_000

var pregen = struct {
	sync.Mutex
	on   bool
	data map[pregenKey][]byte
}{on: os.Getenv("BENCH_PREGEN") != "0", data: map[pregenKey][]byte{}}

type pregenKey struct {
	f              gen.Format
	seed, from, to uint64
}

// insertBatch is the number of rows a multi-row INSERT carries.
const insertBatch = 1000

var methods = []method{
	{"copy-text", copyLoader(gen.Text), copyPrepare(gen.Text)},
	{"copy-binary", copyLoader(gen.Binary), copyPrepare(gen.Binary)},
	{"insert", insertLoad, nil},
	// An application logging each call as it happens: one single-row
	// INSERT a transaction, or a hundred in one BEGIN … COMMIT. Slow by
	// nature: run them with a small BENCH_ROWS.
	{"insert-row", rowInserter(1), nil},
	{"insert-tx", rowInserter(100), nil},
}

// rowInserter loads with single-row INSERTs, perTx of them in each
// transaction block (1: no block, each commits on its own).
func rowInserter(perTx int) func(context.Context, *pgx.Conn, string, uint64, uint64, uint64) error {
	return func(ctx context.Context, conn *pgx.Conn, table string, seed, from, to uint64) error {
		sql := insertSQL(table, 1)
		g := gen.NewAt(seed, from)
		args := make([]any, 0, len(gen.Columns))
		for i := from; i < to; i++ {
			inBlock := perTx > 1
			if inBlock && (i-from)%uint64(perTx) == 0 {
				if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
					return err
				}
			}
			args = gen.AppendArgs(args[:0], g.Next())
			if _, err := conn.Exec(ctx, sql, args...); err != nil {
				return fmt.Errorf("INSERT of row %d: %w", i, err)
			}
			if inBlock && ((i-from)%uint64(perTx) == uint64(perTx-1) || i == to-1) {
				if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// copyLoader loads with COPY … FROM STDIN, generating the data as pgconn
// reads it.
func copyLoader(f gen.Format) func(context.Context, *pgx.Conn, string, uint64, uint64, uint64) error {
	sql := "COPY %s FROM STDIN"
	if f != gen.Text {
		sql += " (FORMAT " + f.String() + ")"
	}
	return func(ctx context.Context, conn *pgx.Conn, table string, seed, from, to uint64) error {
		var src io.Reader = gen.NewReader(seed, from, to, f)
		pregen.Lock()
		if b, ok := pregen.data[pregenKey{f, seed, from, to}]; ok {
			src = bytes.NewReader(b)
		}
		pregen.Unlock()
		tag, err := conn.PgConn().CopyFrom(ctx, src, fmt.Sprintf(sql, table))
		if err != nil {
			return err
		}
		if n := uint64(tag.RowsAffected()); n != to-from {
			return fmt.Errorf("COPY reported %d rows (%q), sent %d", n, tag.String(), to-from)
		}
		return nil
	}
}

// copyPrepare renders a range of COPY data into memory ahead of the load.
func copyPrepare(f gen.Format) func(seed, from, to uint64) {
	return func(seed, from, to uint64) {
		if !pregen.on || to-from > pregenMaxRows {
			return
		}
		k := pregenKey{f, seed, from, to}
		pregen.Lock()
		_, ok := pregen.data[k]
		pregen.Unlock()
		if ok {
			return
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(gen.NewReader(seed, from, to, f))
		pregen.Lock()
		pregen.data[k] = buf.Bytes()
		pregen.Unlock()
	}
}

// insertSQL is a multi-row INSERT of n rows of parameters.
func insertSQL(table string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(gen.Columns, ", ") + ") VALUES ")
	p := 1
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for j := range gen.Columns {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("$" + strconv.Itoa(p))
			p++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// insertLoad loads with multi-row INSERTs of insertBatch rows over the
// extended protocol (pgx prepares each statement text once and sends the
// parameters in binary).
func insertLoad(ctx context.Context, conn *pgx.Conn, table string, seed, from, to uint64) error {
	full := insertSQL(table, insertBatch)
	g := gen.NewAt(seed, from)
	args := make([]any, 0, insertBatch*len(gen.Columns))
	for i := from; i < to; {
		n := min(uint64(insertBatch), to-i)
		sql := full
		if n < insertBatch {
			sql = insertSQL(table, int(n))
		}
		args = args[:0]
		for range n {
			args = gen.AppendArgs(args, g.Next())
		}
		tag, err := conn.Exec(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("INSERT of rows %d..%d: %w", i, i+n, err)
		}
		if uint64(tag.RowsAffected()) != n {
			return fmt.Errorf("INSERT reported %q, sent %d rows", tag.String(), n)
		}
		i += n
	}
	return nil
}

// loadResult is the outcome of loading a data set into one target.
type loadResult struct {
	elapsed    time.Duration
	err        error
	checkpoint time.Duration // Loam: time of the CHECKPOINT after the load
	ckptErr    error
}

// unsupported reports whether err is SQLSTATE 0A000 (feature not supported).
func unsupported(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "0A000"
}

// describe is the short text a table cell shows for a failed load.
func describe(err error) string {
	if unsupported(err) {
		return "unsupported"
	}
	return "failed"
}

// runLoad creates table on the target, loads rows [0, rows) of the data set
// of seed over conns connections (each a contiguous range), checks the row
// count and, on Loam, times a CHECKPOINT. Connection setup and the checks
// are not part of the elapsed time. afterLoad, if not nil, runs right after
// a successful load, before the checks.
func runLoad(ctx context.Context, t *target, m method, table string, seed, rows uint64, conns int, afterLoad func()) loadResult {
	admin, err := pgx.Connect(ctx, t.connString)
	if err != nil {
		return loadResult{err: err}
	}
	defer admin.Close(context.Background())
	_, _ = admin.Exec(ctx, "DROP TABLE IF EXISTS "+table)
	if _, err := admin.Exec(ctx, t.createTable(table)); err != nil {
		return loadResult{err: fmt.Errorf("create table: %w", err)}
	}
	defer func() {
		// Free the space (PostgreSQL) for the next case; a target that
		// cannot drop tables keeps them.
		_, _ = admin.Exec(context.Background(), "DROP TABLE IF EXISTS "+table)
	}()

	cs := make([]*pgx.Conn, conns)
	for i := range cs {
		c, err := pgx.Connect(ctx, t.connString)
		if err != nil {
			return loadResult{err: err}
		}
		defer c.Close(context.Background())
		cs[i] = c
	}

	// The first failure cancels the other connections; it, not their
	// cancellation errors, is the case's error.
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	if m.prepare != nil {
		for i := range cs {
			m.prepare(seed, rows*uint64(i)/uint64(conns), rows*uint64(i+1)/uint64(conns))
		}
	}
	start := time.Now()
	for i, c := range cs {
		from, to := rows*uint64(i)/uint64(conns), rows*uint64(i+1)/uint64(conns)
		wg.Go(func() {
			if err := m.load(lctx, c, table, seed, from, to); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	res := loadResult{elapsed: time.Since(start), err: first}
	if first != nil && ctx.Err() != nil {
		// The connection's own error hides why: say it.
		res.err = fmt.Errorf("%w (gave up after %s: %v)", first, res.elapsed.Round(time.Second), ctx.Err())
	}
	if res.err != nil {
		return res
	}
	if afterLoad != nil {
		afterLoad()
	}

	var n int64
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		res.err = fmt.Errorf("count check: %w", err)
		return res
	}
	if uint64(n) != rows {
		res.err = fmt.Errorf("count check: SELECT count(*) = %d after loading %d rows", n, rows)
		return res
	}
	if t.loam {
		start := time.Now()
		_, res.ckptErr = admin.Exec(ctx, "CHECKPOINT")
		res.checkpoint = time.Since(start)
	}
	return res
}
