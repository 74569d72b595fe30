package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestSame(t *testing.T) {
	for _, c := range []struct {
		a, b [][]any
		want bool
	}{
		{[][]any{{"t", 45.73545165}}, [][]any{{"t", 45.73545165 * (1 + 1e-12)}}, true},
		{[][]any{{"t", 45.7354}}, [][]any{{"t", 45.7355}}, false},
		{[][]any{{"t", int64(1)}}, [][]any{{"u", int64(1)}}, false},
		{[][]any{{"t"}}, [][]any{{"t"}, {"u"}}, false},
	} {
		if got := same(c.a, c.b); got != c.want {
			t.Errorf("same(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestReportRatios(t *testing.T) {
	n := len(queries)
	mk := func(d time.Duration) *figures {
		f := &figures{copy: d, checkpoint: 2 * d}
		for range n {
			f.cold, f.warm = append(f.cold, d), append(f.warm, d)
		}
		return f
	}
	best := mk(time.Second).min(mk(2 * time.Second))
	if best.copy != time.Second || best.cold[0] != time.Second {
		t.Fatalf("min kept %v", best.copy)
	}
	var buf bytes.Buffer
	report(&buf, 1000, 100, 5, 2, mk(time.Second), mk(2*time.Second))
	out := buf.String()
	for _, want := range []string{"COPY rows/s", "1000", "500", "0.50", "CHECKPOINT time", "2.00", "count (cold)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
