// Package obs runs the SQL that open-source LLM-observability products
// write (Langfuse's traces, observations and scores, Helicone's request
// and response log, OpenLLMetry's OpenTelemetry spans, evaluation
// results) on Loam and on a throwaway PostgreSQL 15 holding the same
// rows, and compares the answers: column names and types, rows (in order
// where ORDER BY fixes it, floats to a relative 1e-12) and SQLSTATEs.
//
//	LOAM_BIN=$PWD/bin/loam go test -count=1 ./regress/obs/
//
// Every query runs over the simple and the extended protocol, first with
// the rows in Loam's write log, then after CHECKPOINT has moved them into
// Iceberg files, then on a second server with each table's rows split
// between files and the log; the writes (INSERT … RETURNING, CREATE TABLE
// … AS, UPDATE, DELETE) run last. A query listed in knownGaps must differ
// exactly as listed: the test fails when it starts to pass or fails
// another way, so that the list stays true.
package obs

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// outcome is one query's answer on one server.
type outcome struct {
	cols []string // "name:oid"
	oids []uint32
	rows [][]string
	err  error
}

func (o outcome) code() string {
	var pe *pgconn.PgError
	if errors.As(o.err, &pe) {
		return pe.Code
	}
	return ""
}

// run sends q over the simple protocol (simple) or pgx's default
// extended protocol, and renders the rows as text.
func run(ctx context.Context, c *pgx.Conn, q query, simple bool) outcome {
	args := q.args
	if simple {
		args = append([]any{pgx.QueryExecModeSimpleProtocol}, args...)
	}
	rows, err := c.Query(ctx, q.sql, args...)
	if err != nil {
		return outcome{err: err}
	}
	defer rows.Close()
	var o outcome
	for _, fd := range rows.FieldDescriptions() {
		o.cols = append(o.cols, fmt.Sprintf("%s:%d", fd.Name, fd.DataTypeOID))
		o.oids = append(o.oids, fd.DataTypeOID)
	}
	for rows.Next() {
		var row []string
		if simple {
			// Text format: the server's own rendering.
			for _, v := range rows.RawValues() {
				if v == nil {
					row = append(row, "NULL")
				} else {
					row = append(row, string(v))
				}
			}
		} else {
			vals, err := rows.Values()
			if err != nil {
				return outcome{err: err}
			}
			for _, v := range vals {
				row = append(row, render(v))
			}
		}
		o.rows = append(o.rows, row)
	}
	if err := rows.Err(); err != nil {
		return outcome{err: err}
	}
	return o
}

// render is a decoded value as text.
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case driver.Valuer:
		dv, err := x.Value()
		if err != nil {
			return fmt.Sprintf("<%T: %v>", v, err)
		}
		if _, same := dv.(driver.Valuer); same {
			return fmt.Sprintf("%v", dv)
		}
		return render(dv)
	}
	return fmt.Sprintf("%v", v)
}

const (
	oidFloat4      = 700
	oidFloat8      = 701
	oidFloat4Array = 1021
	oidFloat8Array = 1022
)

func isFloat(oid uint32) bool {
	return oid == oidFloat4 || oid == oidFloat8 || oid == oidFloat4Array || oid == oidFloat8Array
}

var number = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// sameFloatText compares two renderings of float values (or arrays of
// them): the text around the numbers must match, the numbers agree to a
// relative 1e-12.
func sameFloatText(a, b string) bool {
	if a == b {
		return true
	}
	if number.ReplaceAllString(a, "#") != number.ReplaceAllString(b, "#") {
		return false
	}
	na, nb := number.FindAllString(a, -1), number.FindAllString(b, -1)
	for i := range na {
		x, err1 := strconv.ParseFloat(na[i], 64)
		y, err2 := strconv.ParseFloat(nb[i], 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if x != y && math.Abs(x-y) > 1e-12*math.Max(math.Abs(x), math.Abs(y)) {
			return false
		}
	}
	return true
}

// sortKey is a row's text with floats rounded, so that rows differing
// only in a float's last digits sort alike.
func sortKey(row []string, oids []uint32) string {
	parts := make([]string, len(row))
	for i, v := range row {
		if isFloat(oids[i]) {
			v = number.ReplaceAllStringFunc(v, func(n string) string {
				f, _ := strconv.ParseFloat(n, 64)
				return strconv.FormatFloat(f, 'g', 9, 64)
			})
		}
		parts[i] = v
	}
	return strings.Join(parts, "\x00")
}

// diff says how loam's outcome differs from pg's for q: "" when it does
// not, else a short signature (what knownGaps lists) and the detail.
func diff(q query, loam, pg outcome) (sig, detail string) {
	switch {
	case loam.err != nil && pg.err != nil:
		if loam.code() == pg.code() && loam.code() != "" {
			return "", ""
		}
		return "error " + errSig(loam.err), fmt.Sprintf("PostgreSQL: %v\nLoam:       %v", pg.err, loam.err)
	case loam.err != nil:
		return "error " + errSig(loam.err), fmt.Sprintf("PostgreSQL: %d rows\nLoam:       %v", len(pg.rows), loam.err)
	case pg.err != nil:
		return "no error", fmt.Sprintf("PostgreSQL: %v\nLoam:       %d rows", pg.err, len(loam.rows))
	}
	if strings.Join(loam.cols, ",") != strings.Join(pg.cols, ",") {
		return "columns " + strings.Join(loam.cols, ","), fmt.Sprintf("PostgreSQL: %v\nLoam:       %v", pg.cols, loam.cols)
	}
	lr, pr := loam.rows, pg.rows
	if len(lr) != len(pr) {
		return fmt.Sprintf("%d rows", len(lr)), fmt.Sprintf("PostgreSQL: %d rows\nLoam:       %d rows\n%s", len(pr), len(lr), showRows(pr, lr))
	}
	if !q.ordered {
		lr, pr = sorted(lr, loam.oids), sorted(pr, pg.oids)
	}
	for i := range pr {
		for j := range pr[i] {
			a, b := lr[i][j], pr[i][j]
			if a == b || (isFloat(pg.oids[j]) && sameFloatText(a, b)) {
				continue
			}
			return "values", fmt.Sprintf("row %d column %s: PostgreSQL %s, Loam %s\n%s", i, pg.cols[j], b, a, showRows(pr, lr))
		}
	}
	return "", ""
}

func errSig(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + ": " + pe.Message
	}
	return err.Error()
}

func sorted(rows [][]string, oids []uint32) [][]string {
	out := append([][]string(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool { return sortKey(out[i], oids) < sortKey(out[j], oids) })
	return out
}

func showRows(pg, loam [][]string) string {
	show := func(rows [][]string) string {
		var b strings.Builder
		for i, r := range rows {
			if i == 8 {
				fmt.Fprintf(&b, "  … %d more\n", len(rows)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", strings.Join(r, " | "))
		}
		return b.String()
	}
	return "PostgreSQL:\n" + show(pg) + "Loam:\n" + show(loam)
}

// check runs qs on both servers over both protocols and judges each
// against knownGaps.
func check(t *testing.T, ctx context.Context, phase string, loam, pg *pgx.Conn, qs []query, tally map[string]bool) {
	for _, q := range qs {
		for _, simple := range []bool{true, false} {
			proto := "extended"
			if simple {
				proto = "simple"
			}
			what := fmt.Sprintf("%s (%s, %s protocol)", q.name, phase, proto)
			p := run(ctx, pg, q, simple)
			if p.err != nil && p.code() == "" {
				t.Fatalf("%s on PostgreSQL: %v", what, p.err)
			}
			l := run(ctx, loam, q, simple)
			sig, detail := diff(q, l, p)
			if sig != "" {
				tally[q.name] = false
			} else if _, ok := tally[q.name]; !ok {
				tally[q.name] = true
			}
			gap, known := knownGaps[q.name]
			switch {
			case known && sig == "":
				t.Errorf("%s: listed in knownGaps (%s) but now agrees with PostgreSQL: remove it from the list", what, gap.reason)
			case known && sig != gap.sig:
				t.Errorf("%s: listed in knownGaps as %q, now differs another way: %s\n%s\n%s", what, gap.sig, sig, detail, q.sql)
			case !known && sig != "":
				t.Errorf("%s: %s\n%s\n%s", what, sig, detail, q.sql)
			}
			// The session must survive whatever the query did.
			if err := loam.Ping(ctx); err != nil {
				t.Fatalf("after %s: Loam's session: %v", what, err)
			}
			if p.err != nil || l.err != nil {
				// Clear any failed transaction state pgx may hold.
				_, _ = pg.Exec(ctx, "SELECT 1")
				_, _ = loam.Exec(ctx, "SELECT 1")
			}
		}
	}
}

// splitLoad puts each table's first INSERT in first, the others in rest.
func splitLoad(stmts []string) (first, rest []string) {
	seen := map[string]bool{}
	for _, s := range stmts {
		table := strings.Fields(s)[2]
		if seen[table] {
			rest = append(rest, s)
		} else {
			first = append(first, s)
		}
		seen[table] = true
	}
	return first, rest
}

// load creates the schema on c and inserts stmts' rows over the simple
// protocol.
func load(t *testing.T, ctx context.Context, who string, c *pgx.Conn, stmts []string) {
	t.Helper()
	if _, err := c.PgConn().Exec(ctx, schema).ReadAll(); err != nil {
		t.Fatalf("schema on %s: %v", who, err)
	}
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("load on %s: %v\n%.300s", who, err, s)
		}
	}
}

func TestObservabilityDashboards(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	loam, pg := servers(t, ctx)
	stmts := data()
	load(t, ctx, "PostgreSQL", pg, stmts)
	load(t, ctx, "Loam", loam, stmts)
	names := map[string]bool{}
	for _, q := range append(queries, writes...) {
		if names[q.name] {
			t.Fatalf("two queries named %s", q.name)
		}
		names[q.name] = true
	}
	for name := range knownGaps {
		if !names[name] {
			t.Errorf("knownGaps lists %s, which is no query", name)
		}
	}
	tally := map[string]bool{}
	check(t, ctx, "rows in the write log", loam, pg, queries, tally)
	if _, err := loam.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatalf("CHECKPOINT: %v", err)
	}
	check(t, ctx, "rows in Iceberg files", loam, pg, queries, tally)
	// A second Loam with each table's first INSERT in Iceberg files and
	// the rest in the write log, so that scans merge both (each table's
	// rows still go in in order: eval_results takes its ids from a
	// sequence).
	split := loamConn(t, ctx)
	first, rest := splitLoad(stmts)
	load(t, ctx, "Loam (split)", split, first)
	if _, err := split.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatalf("CHECKPOINT: %v", err)
	}
	for _, s := range rest {
		if _, err := split.Exec(ctx, s, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("load on Loam (split): %v\n%.300s", err, s)
		}
	}
	check(t, ctx, "rows split between files and the write log", split, pg, queries, tally)
	check(t, ctx, "writes", loam, pg, writes, tally)
	passed := 0
	for _, ok := range tally {
		if ok {
			passed++
		}
	}
	t.Logf("%d queries: %d agree with PostgreSQL, %d known gaps", len(tally), passed, len(tally)-passed)
}
