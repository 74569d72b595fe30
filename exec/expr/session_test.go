package expr

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// fakeSession is a session of settings and one sequence "s".
type fakeSession struct {
	settings map[string]string
	next     int64
	ctxs     []context.Context // the contexts NextVal was called with
}

func (f *fakeSession) Setting(name string) (string, bool) { v, ok := f.settings[name]; return v, ok }
func (f *fakeSession) SetConfig(name string, value *string, _ bool) (string, error) {
	f.settings[name] = *value
	return *value, nil
}
func (f *fakeSession) BackendPID() int32 { return 42 }
func (f *fakeSession) NextVal(ctx context.Context, seq string, n int) ([]int64, error) {
	f.ctxs = append(f.ctxs, ctx)
	if seq != "s" {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", seq)
	}
	out := make([]int64, n)
	for i := range out {
		f.next++
		out[i] = f.next
	}
	return out, nil
}
func (f *fakeSession) CurrVal(context.Context, string) (int64, error) { return f.next, nil }
func (f *fakeSession) SetVal(_ context.Context, _ string, v int64, _ bool) (int64, error) {
	f.next = v
	return v, nil
}
func (f *fakeSession) LastVal() (int64, error) { return f.next, nil }

// evalIn evaluates e over an n-row batch with c, returning the rows as
// text or the SQLSTATE of the error.
func evalIn(c *Ctx, e Expr, n int) ([]string, string) {
	batch := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, int64(n))
	defer batch.Release()
	out, err := e.Eval(c, batch)
	if err != nil {
		return nil, pgerr.Code(err)
	}
	defer out.Release()
	var rows []string
	for i := 0; i < n; i++ {
		d := types.DatumAt(e.Type(), out, i)
		if d.Null {
			rows = append(rows, "NULL")
		} else {
			rows = append(rows, types.FormatText(d, time.UTC))
		}
	}
	return rows, ""
}

// The session functions read the session from the Ctx they are evaluated
// with, not from the plan: one node runs against whichever session
// executes it, and fails with 0A000 where none does.
func TestSessionFuncs(t *testing.T) {
	f := &fakeSession{settings: map[string]string{"search_path": "public"}}
	ctx := context.WithValue(context.Background(), struct{}{}, "stmt")
	c := &Ctx{Loc: time.UTC, Context: ctx, Session: f}
	set := NewSetConfig(c0(txt("search_path")), c0(txt("a")), c0(types.BoolDatum(false)))
	for _, tc := range []struct {
		e    Expr
		rows int
		want []string
	}{
		{NewCurrentSetting([]Expr{c0(txt("search_path"))}), 1, []string{"public"}},
		{set, 1, []string{"a"}},
		{NewCurrentSetting([]Expr{c0(txt("search_path"))}), 1, []string{"a"}},
		{NewCurrentSetting([]Expr{c0(txt("nope")), c0(types.BoolDatum(true))}), 1, []string{"NULL"}},
		{NewBackendPID(), 1, []string{"42"}},
		{NewNextVal(c0(txt("s"))), 3, []string{"1", "2", "3"}},
		{NewCurrVal(c0(txt("s"))), 1, []string{"3"}},
		{NewSetVal([]Expr{c0(txt("s")), c0(i8(10))}), 1, []string{"10"}},
		{NewLastVal(), 1, []string{"10"}},
		{NewSleep(c0(f8(0))), 1, []string{""}},
	} {
		got, code := evalIn(c, tc.e, tc.rows)
		if code != "" || !equal(got, tc.want) {
			t.Errorf("%s = %q (%s), want %q", tc.e, got, code, tc.want)
		}
	}
	if len(f.ctxs) == 0 || f.ctxs[0] != ctx {
		t.Errorf("nextval ran with %v, want the Ctx's context", f.ctxs)
	}
	if _, code := evalIn(c, NewCurrentSetting([]Expr{c0(txt("nope"))}), 1); code != pgerr.UndefinedObject {
		t.Errorf("current_setting of an unknown setting: %q, want 42704", code)
	}
	for _, e := range []Expr{set, NewNextVal(c0(txt("s"))), NewBackendPID(), NewLastVal()} {
		if _, code := evalIn(&Ctx{Loc: time.UTC}, e, 2); code != pgerr.FeatureNotSupported {
			t.Errorf("%s without a session: %q, want 0A000", e, code)
		}
	}
}

// pg_sleep ends with 57014 when the statement's context does, with the
// context's cause (statement_timeout or a cancel request) as its message.
func TestSleepCancelled(t *testing.T) {
	for _, tc := range []struct {
		secs float64
		why  *pgerr.Error
		msg  string
	}{
		{10, pgerr.StatementTimeout(), "canceling statement due to statement timeout"},
		{10, nil, "canceling statement due to user request"},
		{types.Float8Datum(1e308).F * 10, pgerr.StatementTimeout(), "canceling statement due to statement timeout"}, // +Infinity
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		if tc.why != nil {
			cancel(tc.why)
		} else {
			cancel(nil)
		}
		batch := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		_, err := NewSleep(c0(f8(tc.secs))).Eval(&Ctx{Loc: time.UTC, Context: ctx}, batch)
		batch.Release()
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.QueryCanceled || pe.Message != tc.msg {
			t.Errorf("pg_sleep(%v) cancelled by %v: %v, want 57014 %q", tc.secs, tc.why, err, tc.msg)
		}
	}
}

func c0(d types.Datum) Expr { return &Const{D: d} }

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A select list is evaluated a row at a time when a function that changes
// the session sits beside another that reads or changes it; nextvals of
// different sequences (serial DEFAULTs) keep their batch at a time.
func TestRowOrdered(t *testing.T) {
	s := c0(txt("s"))
	for _, tc := range []struct {
		exprs []Expr
		want  bool
	}{
		{[]Expr{NewNextVal(s)}, false},
		{[]Expr{NewNextVal(s), c0(i8(1))}, false},
		{[]Expr{NewNextVal(s), NewCurrVal(s)}, true},
		{[]Expr{NewNextVal(s), NewNextVal(c0(txt("t")))}, false},
		{[]Expr{NewNextVal(s), NewNextVal(s)}, true},
		{[]Expr{NewNextVal(s), NewSetVal([]Expr{c0(txt("t")), c0(i8(3))})}, true},
		{[]Expr{NewSetConfig(c0(txt("a")), c0(txt("b")), c0(types.BoolDatum(false))), NewSetConfig(c0(txt("a")), c0(txt("c")), c0(types.BoolDatum(false)))}, true},
		{[]Expr{NewCurrentSetting([]Expr{c0(txt("a"))}), NewSetConfig(c0(txt("a")), c0(txt("b")), c0(types.BoolDatum(false)))}, true},
		{[]Expr{&Func{Name: "concat", Args: []Expr{NewSetConfig(c0(txt("a")), c0(txt("b")), c0(types.BoolDatum(false))), NewCurrentSetting([]Expr{c0(txt("a"))})}}}, true},
		{[]Expr{NewCurrentSetting([]Expr{c0(txt("a"))}), NewLastVal()}, false},
	} {
		if got := RowOrdered(tc.exprs); got != tc.want {
			t.Errorf("RowOrdered(%v) = %v, want %v", tc.exprs, got, tc.want)
		}
	}
}
