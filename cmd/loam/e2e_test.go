package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// startServer runs a whole Loam server in-process on a loopback port with
// its embedded defaults in a temp dir, and stops it when the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	return startServerWith(t, t.TempDir())
}

// startServerWith is startServer on data directory dir with extra flags.
func startServerWith(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	args := append([]string{"--data-dir", dir, "--listen", "127.0.0.1:0", "--http", ""}, flags...)
	cfg, err := parseConfig(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- runServer(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), ready) }()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("server did not start in 60s")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server stopped with %v", err)
		}
	})
	return "postgres://loam@" + addr.String() + "/loam?sslmode=disable"
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// createLLMCalls is README's table with a retention long enough that the
// tests' fixed timestamps never expire.
const createLLMCalls = `CREATE TABLE llm_calls (
  ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING,
  prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT
)
PARTITIONED BY (day(ts))
SORTED BY (tenant, model, ts)
WITH (retention = '100 years' ON ts);`

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestEndToEndWithPgx(t *testing.T) {
	url := startServer(t)
	ctx := context.Background()
	a, b := connect(t, url), connect(t, url)

	if _, err := a.Exec(ctx, createLLMCalls); err != nil {
		t.Fatal(err)
	}
	// Extended protocol with parameters in pgx's binary formats.
	base := time.Date(2026, 11, 29, 10, 0, 0, 123_456_000, time.UTC)
	rows := []struct {
		ts     time.Time
		tenant string
		model  string
		tokens int32
		cost   float64
	}{
		{base, "acme", "gpt-4o", 100, 0.5},
		{base.Add(time.Hour), "acme", "claude", 200, 0.25},
		{base.Add(-24 * time.Hour), "beta", "gpt-4o", 300, 1.5},
	}
	for _, r := range rows {
		tag, err := a.Exec(ctx, `INSERT INTO llm_calls (ts, tenant, model, prompt_tokens, cost_usd) VALUES ($1, $2, $3, $4, $5)`,
			r.ts, r.tenant, r.model, r.tokens, r.cost)
		if err != nil {
			t.Fatal(err)
		}
		if tag.String() != "INSERT 0 1" {
			t.Fatalf("tag %q", tag)
		}
	}

	// A row acknowledged on one connection is seen by the next query on another.
	var n int64
	if err := b.QueryRow(ctx, `SELECT count(*) FROM llm_calls`).Scan(&n); err != nil || n != int64(len(rows)) {
		t.Fatalf("count on second connection = %d, %v; want %d", n, err, len(rows))
	}

	// Typed results: timestamptz rounded to TIMESTAMP(3), float8, int4.
	var ts time.Time
	var tenant string
	var cost float64
	var tokens int32
	err := b.QueryRow(ctx, `SELECT ts, tenant, cost_usd, prompt_tokens FROM llm_calls WHERE ts >= $1 AND model = $2 ORDER BY ts LIMIT 1`,
		base.Add(-time.Minute), "gpt-4o").Scan(&ts, &tenant, &cost, &tokens)
	if err != nil {
		t.Fatal(err)
	}
	if want := base.Truncate(time.Millisecond); !ts.Equal(want) || tenant != "acme" || cost != 0.5 || tokens != 100 {
		t.Fatalf("got %v %s %v %d; want %v acme 0.5 100", ts, tenant, cost, tokens, want)
	}

	// Aggregates by model, against the rows computed here.
	sum := map[string]float64{}
	for _, r := range rows {
		sum[r.model] += r.cost
	}
	res, err := b.Query(ctx, `SELECT model, sum(cost_usd), count(*) FROM llm_calls GROUP BY model ORDER BY model`)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for res.Next() {
		var model string
		var s float64
		var c int64
		if err := res.Scan(&model, &s, &c); err != nil {
			t.Fatal(err)
		}
		if s != sum[model] {
			t.Errorf("sum(cost_usd) for %s = %v, want %v", model, s, sum[model])
		}
		got++
	}
	if res.Err() != nil || got != len(sum) {
		t.Fatalf("groups %d, err %v", got, res.Err())
	}

	// Errors carry their SQLSTATE and leave the connection usable.
	for _, c := range []struct{ sql, code string }{
		{"SELEC 1", "42601"},
		{"SELECT * FROM nope", "42P01"},
		{"SELECT nope FROM llm_calls", "42703"},
		{"SELECT 1/0", "22012"},
		{"SELECT 2147483647 + 1", "22003"},
		{"INSERT INTO llm_calls (ts) VALUES ('yesterday-ish')", "22007"},
	} {
		_, err := a.Exec(ctx, c.sql)
		if sqlState(err) != c.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", c.sql, err, c.code)
		}
		if err := a.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
			t.Fatalf("connection unusable after %q: %v", c.sql, err)
		}
	}
}

// TestBadClientsLeaveServerServing sends a malformed startup packet and an
// unknown message type on raw sockets, and checks each gets an error
// response while the server keeps serving others.
func TestBadClientsLeaveServerServing(t *testing.T) {
	url := startServer(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(cfg.Host, itoa(int(cfg.Port)))

	readErrorResponse := func(c net.Conn) byte {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		hdr := make([]byte, 5)
		for {
			if _, err := io.ReadFull(c, hdr); err != nil {
				return 0
			}
			body := make([]byte, binary.BigEndian.Uint32(hdr[1:])-4)
			if _, err := io.ReadFull(c, body); err != nil {
				return 0
			}
			if hdr[0] == 'E' {
				return 'E'
			}
		}
	}

	// A startup packet whose length is absurd.
	c1, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c1.Write([]byte{0, 0, 0, 8, 0xde, 0xad, 0xbe, 0xef})
	if readErrorResponse(c1) != 'E' {
		t.Error("malformed startup packet got no ErrorResponse")
	}
	c1.Close()

	// A good startup, then a message type that does not exist.
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	startup := []byte{0, 0, 0, 0, 0, 3, 0, 0}
	startup = append(startup, "user\x00loam\x00database\x00loam\x00\x00"...)
	binary.BigEndian.PutUint32(startup, uint32(len(startup)))
	c2.Write(startup)
	c2.SetReadDeadline(time.Now().Add(10 * time.Second))
	// Read up to ReadyForQuery.
	hdr := make([]byte, 5)
	for {
		if _, err := io.ReadFull(c2, hdr); err != nil {
			t.Fatal(err)
		}
		body := make([]byte, binary.BigEndian.Uint32(hdr[1:])-4)
		io.ReadFull(c2, body)
		if hdr[0] == 'Z' {
			break
		}
	}
	c2.Write([]byte{'@', 0, 0, 0, 4})
	if readErrorResponse(c2) != 'E' {
		t.Error("unknown message type got no ErrorResponse")
	}
	c2.Close()

	conn := connect(t, url)
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
		t.Fatalf("server not serving after bad clients: %d, %v", n, err)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

func TestCopyWithPgx(t *testing.T) {
	url := startServer(t)
	ctx := context.Background()
	a, b := connect(t, url), connect(t, url)
	if _, err := a.Exec(ctx, createLLMCalls); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const n = 50000
	var want float64
	rows := make([][]any, n)
	for i := range rows {
		cost := float64(i%100) / 4
		want += cost
		rows[i] = []any{base.Add(time.Duration(i) * time.Minute), "t" + itoa(i%37), "m" + itoa(i%5), int32(i % 1000), nil, cost, int32(i % 3000)}
	}
	// pgx's CopyFrom sends PostgreSQL's binary COPY format.
	cols := []string{"ts", "tenant", "model", "prompt_tokens", "completion_tokens", "cost_usd", "latency_ms"}
	got, err := a.CopyFrom(ctx, pgx.Identifier{"llm_calls"}, cols, pgx.CopyFromRows(rows))
	if err != nil || got != n {
		t.Fatalf("binary COPY: %d rows, %v", got, err)
	}
	var count int64
	var sum float64
	if err := b.QueryRow(ctx, "SELECT count(*), sum(cost_usd) FROM llm_calls").Scan(&count, &sum); err != nil || count != n || sum != want {
		t.Fatalf("after COPY: count %d sum %v (%v); want %d %v", count, sum, err, n, want)
	}

	// Text COPY with a bad line: the whole COPY fails and nothing shows.
	data := "2026-11-02 00:00:00+00\tacme\tgpt\t1\t2\t0.5\t3\n2026-11-02 00:00:01+00\tacme\tgpt\tnotanumber\t2\t0.5\t3\n"
	_, err = a.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY llm_calls FROM STDIN")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22P02" || pe.Where != `COPY llm_calls, line 2, column prompt_tokens: "notanumber"` {
		t.Fatalf("bad COPY: %v (where %q), want 22P02 naming line 2", err, pe.Where)
	}
	if err := b.QueryRow(ctx, "SELECT count(*) FROM llm_calls").Scan(&count); err != nil || count != n {
		t.Fatalf("after failed COPY: count %d (%v), want %d", count, err, n)
	}

	// COPY TO STDOUT in CSV.
	var out bytes.Buffer
	tag, err := b.PgConn().CopyTo(ctx, &out, "COPY (SELECT tenant, count(*) FROM llm_calls GROUP BY tenant ORDER BY tenant) TO STDOUT WITH (FORMAT csv)")
	if err != nil || tag.RowsAffected() != 37 || !strings.HasPrefix(out.String(), "t0,") {
		t.Fatalf("COPY TO: %q %v %q", tag, err, out.String()[:min(40, out.Len())])
	}
}
