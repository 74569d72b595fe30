package main

import (
	"io"
	"strings"
	"testing"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12345: "-12,345"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPrintTable(t *testing.T) {
	var b strings.Builder
	printTable(&b, [][]string{{"case", "n", "rate"}, {"copy-text", "1", "12"}, {"x", "8", "1,234"}}, 2)
	want := "case       n   rate\ncopy-text  1     12\nx          8  1,234\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestInsertSQL(t *testing.T) {
	got := insertSQL("t", 2)
	want := "INSERT INTO t (ts, tenant, model, prompt_tokens, completion_tokens, cost_usd, latency_ms) VALUES ($1,$2,$3,$4,$5,$6,$7),($8,$9,$10,$11,$12,$13,$14)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestParseConfig(t *testing.T) {
	t.Setenv("BENCH_ROWS", "5000")
	t.Setenv("BENCH_CONNS", "2, 4")
	c, err := parseConfig([]string{"-methods", "insert", "-targets", "postgres"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.rows != 5000 || len(c.conns) != 2 || c.conns[1] != 4 || len(c.methods) != 1 || c.methods[0].name != "insert" || !c.targets["postgres"] || c.targets["loam"] {
		t.Errorf("config %+v", c)
	}
	for _, args := range [][]string{{"-rows", "0"}, {"-conns", "0"}, {"-methods", "bulk"}, {"-targets", "mysql"}, {"extra"}} {
		if _, err := parseConfig(args, io.Discard); err == nil {
			t.Errorf("parseConfig(%q) accepted", args)
		}
	}
}
