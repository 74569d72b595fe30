package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestGroupRows(t *testing.T) {
	// Against a count of the ids themselves, at sizes around the edges.
	for _, rows := range []int64{100, 101, 149, 150, 199, 200, 12345} {
		for g := 1; g < groups; g++ {
			var want int64
			for id := int64(1); id <= rows; id++ {
				if id%groups == int64(g) {
					want++
				}
			}
			if got := groupRows(rows, g); got != want {
				t.Errorf("groupRows(%d, %d) = %d, want %d", rows, g, got, want)
			}
		}
	}
	if got := groupRows(10000000, 1); got != 100000 {
		t.Errorf("groupRows(10M, 1) = %d, want 100000 (1%%)", got)
	}
}

func TestRowsReader(t *testing.T) {
	var want bytes.Buffer
	line := func(b []byte, id int64) []byte { return append(b, strings.Repeat("x", int(id%7))+"\n"...) }
	for id := int64(1); id <= 50000; id++ {
		want.Write(line(nil, id))
	}
	// io.ReadAll's reads start at 512 bytes and grow, so they split
	// lines and chunks at many places.
	got, err := io.ReadAll(&rowsReader{rows: 50000, line: line})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("rowsReader rendered %d bytes, want %d", len(got), want.Len())
	}
	if b, _ := io.ReadAll(&rowsReader{rows: 0, line: line}); len(b) != 0 {
		t.Errorf("no rows rendered %q", b)
	}
}

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, ""},
		{[]string{"-rows", "10000000", "-conns", "1,8", "-cases", "update"}, ""},
		{[]string{"-rows", "99"}, "rows"},
		{[]string{"-conns", "0"}, "conns"},
		{[]string{"-cases", "merge"}, "case"},
		{[]string{"-targets", "mysql"}, "target"},
		{[]string{"-link-interval", "0s"}, "link-interval"},
		{[]string{"-runs", "100"}, "runs"},
	} {
		_, err := parseConfig(tc.args, io.Discard)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("parseConfig(%q) = %v, want error containing %q", tc.args, err, tc.err)
		}
	}
	c, err := parseConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.conns) != 2 || c.conns[1] != 8 || !c.cases["upsert"] || !c.cases["update"] || !c.cases["visible"] {
		t.Errorf("defaults: conns %v, cases %v; want 1 and 8 connections and every case", c.conns, c.cases)
	}
}

// TestReport prints a report with a figure, a failure and an unsupported
// case of each part: the tables and the notes must say which is which.
func TestReport(t *testing.T) {
	r := &report{Commit: "abc", Keys: 100, Rows: 1000, Runs: 2, Samples: 3, LinkInterval: "1s"}
	r.Upserts = []upsertResult{
		{Conns: 8, Target: "loam", Error: "unsupported: ON CONFLICT"},
		{Conns: 8, Target: "postgres"},
	}
	r.Upserts[1].QPS = 1000
	r.Updates = []updateRun{
		{Run: 1, Target: "loam", Updated: 10, Seconds: 0.2, AfterWhat: "CHECKPOINT", AfterSeconds: 0.1},
		{Run: 1, Target: "postgres", Updated: 10, Seconds: 0.1, AfterWhat: "VACUUM events"},
		{Run: 2, Target: "loam", Error: "boom"},
		{Run: 2, Target: "postgres", Updated: 10, Seconds: 0.3, AfterWhat: "VACUUM events"},
	}
	r.Visible = []visibleResult{{Target: "loam", Samples: 3, QueryFirstTry: 3, OutsideWithin: 2}, {Target: "postgres", Error: "x"}}
	var b strings.Builder
	r.print(&b)
	out := b.String()
	for _, want := range []string{
		"unsupported", "loam upsert/8: unsupported: ON CONFLICT", "loam update run 2: boom",
		"PG/Loam: 0.50x", "3/3", "2/3", "postgres visible: x", "summary abc loam: update1%of1000=0.200s(0.50x)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
