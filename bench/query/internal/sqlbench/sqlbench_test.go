package sqlbench

import (
	"context"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

func TestDiff(t *testing.T) {
	num := func(s string) Cell { return Cell{Text: s} }
	flt := func(s string) Cell { return Cell{Text: s, Float: true} }
	for _, c := range []struct {
		name      string
		got, want Result
		exact     bool
		differs   bool
	}{
		{"same text", Result{{num("1.50")}}, Result{{num("1.50")}}, true, false},
		// Two servers must print a numeric's scale the same way.
		{"numeric scale exact", Result{{num("1.5")}}, Result{{num("1.50")}}, true, true},
		{"numeric scale loose", Result{{num("1.5")}}, Result{{num("1.50")}}, false, false},
		{"float tolerance", Result{{flt("0.30000000000000004")}}, Result{{flt("0.3")}}, true, false},
		{"float beyond tolerance", Result{{flt("0.3001")}}, Result{{flt("0.3")}}, true, true},
		{"char padding loose", Result{{num("FRANCE")}}, Result{{num("FRANCE    ")}}, false, false},
		{"char padding exact", Result{{num("FRANCE")}}, Result{{num("FRANCE    ")}}, true, true},
		{"null", Result{{{Null: true}}}, Result{{num("")}}, true, true},
		{"row count", Result{{num("1")}}, Result{{num("1")}, {num("2")}}, true, true},
		{"order", Result{{num("2")}, {num("1")}}, Result{{num("1")}, {num("2")}}, false, true},
	} {
		if d := Diff(c.got, c.want, c.exact); (d != "") != c.differs {
			t.Errorf("%s: Diff = %q, want a difference: %v", c.name, d, c.differs)
		}
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{int64(42), "42"},
		{duckdb.Decimal{Scale: 2, Value: big.NewInt(125)}, "1.25"},
		{big.NewInt(8), "8"},
		{time.Date(1995, 3, 15, 0, 0, 0, 0, time.UTC), "1995-03-15"},
		{true, "t"},
		{"x", "x"},
	} {
		if got := Normalize(c.v); got.Text != c.want {
			t.Errorf("Normalize(%#v) = %q, want %q", c.v, got.Text, c.want)
		}
	}
	// A DuckDB double compares with PostgreSQL's numeric text within the tolerance.
	if d := Diff(Result{{Normalize(25.522005853257337)}}, Result{{{Text: "25.5220058532573370"}}}, false); d != "" {
		t.Error(d)
	}
}

// fake is an engine whose runs take the given times in turn.
type fake struct {
	times []time.Duration
	err   error
	calls int
}

func (f *fake) Name() string { return "fake" }
func (f *fake) Close()       {}
func (f *fake) Query(ctx context.Context, q string) (Result, error) {
	d := f.times[min(f.calls, len(f.times)-1)]
	f.calls++
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return Result{{{Text: "1"}}}, f.err
}

func TestMeasure(t *testing.T) {
	ms := time.Millisecond
	// Three timed runs after the warm-up, the median reported.
	f := &fake{times: []time.Duration{5 * ms, 1 * ms, 9 * ms, 3 * ms}}
	_, m := Measure(context.Background(), f, "q", Options{Runs: 3, Timeout: time.Second, Budget: time.Second})
	if m.Status != OK || len(m.Runs) != 3 || f.calls != 4 || m.Median < 3*ms || m.Median >= 9*ms {
		t.Errorf("runs: %+v after %d calls", m, f.calls)
	}
	// A warm-up past the budget is the one measurement.
	f = &fake{times: []time.Duration{30 * ms}}
	_, m = Measure(context.Background(), f, "q", Options{Runs: 3, Timeout: time.Second, Budget: 10 * ms})
	if m.Status != OK || len(m.Runs) != 1 || f.calls != 1 {
		t.Errorf("budget: %+v after %d calls", m, f.calls)
	}
	// A run past the timeout is a timeout, not an error.
	f = &fake{times: []time.Duration{time.Second}}
	_, m = Measure(context.Background(), f, "q", Options{Runs: 1, Timeout: 10 * ms, Budget: time.Second})
	if m.Status != Timeout {
		t.Errorf("timeout: %+v", m)
	}
	f = &fake{times: []time.Duration{0}, err: errors.New("boom\nsecond line")}
	_, m = Measure(context.Background(), f, "q", Options{Runs: 1, Timeout: time.Second, Budget: time.Second})
	if m.Status != Error || strings.Contains(m.Err, "\n") {
		t.Errorf("error: %+v", m)
	}
}

func TestGeomean(t *testing.T) {
	if g := Geomean([]float64{2, 8}); g < 3.999 || g > 4.001 {
		t.Errorf("Geomean(2, 8) = %v", g)
	}
	if Geomean(nil) != 0 {
		t.Error("Geomean() != 0")
	}
}

func TestProcCPU(t *testing.T) {
	// This process's own /proc entry parses (the test has used some CPU).
	if _, err := ProcCPU(syscallGetpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := TreeCPU(syscallGetpid()); err != nil {
		t.Fatal(err)
	}
}

func syscallGetpid() int { return os.Getpid() }
