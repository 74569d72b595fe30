package expr

import (
	"testing"
	"time"

	"github.com/loamdb/loam/types"
)

// TestBindRun: parameters become constants of the execution's values
// (converted to the parameter's type), and parts that read no column are
// evaluated with the execution's moment, inside the shapes pruning reads;
// columns and volatile calls stay.
func TestBindRun(t *testing.T) {
	col := &Col{Idx: 0, T: types.TInt8, Name: "id"}
	now := &Func{Name: "now", T: types.TTimestampTZ, Fn: func(c *Ctx, _ []types.Datum) (types.Datum, error) {
		return types.Int(types.TTimestampTZ, c.Now.UnixMicro()), nil
	}}
	random := &Func{Name: "random", T: types.TInt8, Fn: func(*Ctx, []types.Datum) (types.Datum, error) {
		return types.Int(types.TInt8, 4), nil
	}}
	e := &BoolOp{Args: []Expr{
		&Compare{Op: EQ, L: col, R: &Param{N: 1, T: types.TInt8}},
		&In{Arg: col, List: []Expr{&Param{N: 2, T: types.TInt8}, &Const{D: types.Int(types.TInt8, 7)}, random}},
		&Compare{Op: GE, L: &Col{Idx: 1, T: types.TTimestampTZ, Name: "ts"}, R: now},
	}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &Ctx{Loc: time.UTC, Now: at, Params: []types.Datum{types.Int(types.TInt8, 5), types.TextDatum("6")}}
	got := BindRun(e, c).String()
	want := "((id = '5'::bigint) AND (id IN ('6'::bigint, '7'::bigint, random())) AND (ts >= '2026-01-02 03:04:05+00'::timestamp with time zone))"
	if got != want {
		t.Errorf("BindRun =\n %s, want\n %s", got, want)
	}
	if !HasParams(e) || HasParams(BindRun(e, c)) {
		t.Error("HasParams: want true before binding, false after")
	}
	// Described, not executed: parameters are NULL.
	if got := BindRun(&Compare{Op: EQ, L: col, R: &Param{N: 1, T: types.TInt8}}, &Ctx{Loc: time.UTC}).String(); got != "(id = NULL)" {
		t.Errorf("without values: %s", got)
	}
}
