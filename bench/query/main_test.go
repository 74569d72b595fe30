package main

import (
	"context"
	"io"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

func TestSame(t *testing.T) {
	ts := time.Date(2026, 10, 15, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		a, b cell
		want bool
	}{
		{cell{str: "42"}, normalize(int64(42)), true},
		{cell{str: "1.5e+06"}, normalize(1500000.0), true},
		{cell{str: "0.30000000000000004"}, normalize(0.3), true}, // within relTol
		{cell{str: "0.3001"}, normalize(0.3), false},
		{cell{str: "8"}, normalize(big.NewInt(8)), true},                                       // DuckDB HUGEINT sums
		{cell{str: "1.25"}, normalize(duckdb.Decimal{Scale: 2, Value: big.NewInt(125)}), true}, // DuckDB DECIMAL
		{cell{str: "2026-10-15 03:00:00+00"}, normalize(ts), true},
		{cell{str: "2026-10-15 03:00:00.5+00"}, normalize(ts), false},
		{cell{str: "2026-10-15 05:00:00+02"}, normalize(ts), true},
		{cell{str: "2026-10-15T03:00:00Z"}, cell{str: "2026-10-15 03:00:00+00"}, true},
		{cell{str: "gpt-4o"}, normalize("gpt-4o"), true},
		{cell{str: "gpt-4o"}, normalize("gpt-4o-mini"), false},
		{cell{str: "1"}, normalize("one"), false},
		{cell{null: true}, normalize(nil), true},
		{cell{null: true}, normalize(int64(0)), false},
		{cell{str: ""}, normalize(nil), false},
	} {
		if got := same(c.a, c.b); got != c.want {
			t.Errorf("same(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := same(c.b, c.a); got != c.want {
			t.Errorf("same(%v, %v) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}

func TestDiff(t *testing.T) {
	ref := result{{cell{str: "a"}, num(1)}, {cell{str: "b"}, num(2)}}
	if d := diff(result{{cell{str: "a"}, cell{str: "1"}}, {cell{str: "b"}, cell{str: "2"}}}, ref); d != "" {
		t.Errorf("equal results: %s", d)
	}
	for _, got := range []result{
		{{cell{str: "a"}, num(1)}},
		{{cell{str: "b"}, num(2)}, {cell{str: "a"}, num(1)}}, // order matters
		{{cell{str: "a"}, num(1)}, {cell{str: "b"}, num(3)}},
		{{cell{str: "a"}, num(1)}, {cell{str: "b"}}},
	} {
		if diff(got, ref) == "" {
			t.Errorf("diff(%v) found no difference", got)
		}
	}
}

func TestMedian(t *testing.T) {
	ms := time.Millisecond
	if got := median([]time.Duration{5 * ms, 1 * ms, 3 * ms}); got != 3*ms {
		t.Errorf("odd: %v", got)
	}
	if got := median([]time.Duration{4 * ms, 1 * ms, 2 * ms, 10 * ms}); got != 3*ms {
		t.Errorf("even: %v", got)
	}
}

func TestParseConfig(t *testing.T) {
	t.Setenv("BENCH_QUERY_ROWS", "5000")
	t.Setenv("BENCH_QUERY_TIMEOUT", "1m")
	c, err := parseConfig([]string{"-queries", "1, 3", "-engines", "loam,postgres", "-pg-settings", "work_mem=1GB"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.rows != 5000 || c.runs != 5 || !c.only[1] || !c.only[3] || len(c.only) != 2 || c.engines["duckdb"] ||
		c.timeout != time.Minute || len(c.pgSettings) != 1 {
		t.Errorf("config %+v", c)
	}
	for _, args := range [][]string{{"-rows", "0"}, {"-runs", "0"}, {"-queries", "99"}, {"-engines", "mysql"},
		{"-engines", "duckdb,postgres"}, {"-pg-settings", "work_mem"}, {"extra"}} {
		if _, err := parseConfig(args, io.Discard); err == nil {
			t.Errorf("parseConfig(%q) accepted", args)
		}
	}
}

func TestQueries(t *testing.T) {
	for i, q := range queries {
		if q.name == "" || !strings.Contains(q.sql, "llm_calls") {
			t.Errorf("query %d: %+v", i+1, q)
		}
	}
	if strings.Contains(loamDDL, "retention") || !strings.Contains(loamDDL, "PARTITIONED BY") {
		t.Errorf("loamDDL:\n%s", loamDDL)
	}
	if ins := modelsInsert(); strings.Contains(ins, "'other'") {
		t.Errorf("a model without provider: %s", ins)
	}
}

func TestPrintTable(t *testing.T) {
	var b strings.Builder
	printTable(&b, [][]string{{"#", "query", "ms"}, {"1", "count", "12.5"}, {"10", "a longer one", "3"}}, 0, 1)
	want := "#   query           ms\n1   count         12.5\n10  a longer one     3\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestDuckDB checks the DuckDB side end to end on an in-memory table: the
// driver's HUGEINT, DOUBLE and TIMESTAMPTZ values normalise to what
// PostgreSQL prints for the same query.
func TestDuckDB(t *testing.T) {
	ctx := context.Background()
	e, err := openDuckDB(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	if err := e.exec(ctx, `CREATE TABLE llm_calls AS SELECT TIMESTAMPTZ '2026-10-15 03:04:05.678+00' AS ts, 7::INTEGER AS latency_ms, 0.25::DOUBLE AS cost_usd`,
		modelsTable, modelsInsert()); err != nil {
		t.Fatal(err)
	}
	got, err := e.run(ctx, `SELECT date_trunc('hour', ts) AS h, sum(latency_ms), sum(cost_usd), floor(extract(epoch FROM ts) / 300) * 300, count(*)
FROM llm_calls GROUP BY 1, 4`)
	if err != nil {
		t.Fatal(err)
	}
	// PostgreSQL 15's text output of the same query.
	want := result{{cell{str: "2026-10-15 03:00:00+00"}, cell{str: "7"}, cell{str: "0.25"}, cell{str: "1792033200"}, cell{str: "1"}}}
	if d := diff(got, want); d != "" {
		t.Errorf("%s", d)
	}
	var n int
	if err := e.db.QueryRow("SELECT count(*) FROM models").Scan(&n); err != nil || n != len(providers) {
		t.Errorf("models: %d rows, %v", n, err)
	}
}
