package main

import (
	"io"
	"strings"
	"testing"
)

func TestQueries(t *testing.T) {
	qs := queries(10)
	if len(qs) != 22 {
		t.Fatalf("%d queries", len(qs))
	}
	// Q11's FRACTION is 0.0001/SF (clause 2.4.11.3).
	if !strings.Contains(qs[10], "* 0.00001 FROM") {
		t.Errorf("Q11 at SF 10 does not use FRACTION 0.00001:\n%s", qs[10])
	}
	for i, q := range qs {
		if strings.Contains(q, "%!") {
			t.Errorf("Q%d: formatting error: %s", i+1, q)
		}
	}
}

func TestDuckView(t *testing.T) {
	v := duckView("nation", []string{"/w/a.parquet", "/w/b'.parquet"})
	for _, want := range []string{"rtrim(CAST(n_name AS VARCHAR)) AS n_name", "CAST(n_nationkey AS INTEGER)", "['/w/a.parquet', '/w/b''.parquet']"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	for table := range ddl {
		if len(duckTypes[table]) == 0 {
			t.Errorf("%s has no DuckDB column types", table)
		}
	}
}

func TestParseConfig(t *testing.T) {
	cfg, err := parseConfig([]string{"-sf", "0.1", "-queries", "1,22", "-engines", "loam,postgres"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.sf != 0.1 || !cfg.only[22] || cfg.engines["duckdb"] {
		t.Errorf("config: %+v", cfg)
	}
	for _, bad := range [][]string{{"-sf", "0"}, {"-queries", "23"}, {"-engines", "duckdb"}, {"-engines", "mysql"}} {
		if _, err := parseConfig(bad, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
