package expr

import (
	"testing"
	"time"

	"github.com/loamdb/loam/types"
)

// TestBindParams: parameters become constants of the execution's values
// (converted to the parameter's type), inside the shapes pruning reads;
// without values the expression is returned as it is.
func TestBindParams(t *testing.T) {
	col := &Col{Idx: 0, T: types.TInt8, Name: "id"}
	e := &BoolOp{Args: []Expr{
		&Compare{Op: EQ, L: col, R: &Param{N: 1, T: types.TInt8}},
		&In{Arg: col, List: []Expr{&Param{N: 2, T: types.TInt8}, &Const{D: types.Int(types.TInt8, 7)}}},
	}}
	c := &Ctx{Loc: time.UTC, Params: []types.Datum{types.Int(types.TInt8, 5), types.TextDatum("6")}}
	got := BindParams(e, c).String()
	want := "((id = '5'::bigint) AND (id IN ('6'::bigint, '7'::bigint)))"
	if got != want {
		t.Errorf("BindParams = %s, want %s", got, want)
	}
	if !HasParams(e) || HasParams(BindParams(e, c)) {
		t.Error("HasParams: want true before binding, false after")
	}
	if out := BindParams(e, &Ctx{Loc: time.UTC}); out != e {
		t.Errorf("without values: got %s", out)
	}
}
