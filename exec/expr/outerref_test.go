package expr

import (
	"testing"

	"github.com/loamdb/loam/types"
)

// TestOuterRef: a reference reads its frame's row wherever it is in the
// chain, NULL without it; BindRun makes it a constant only when the
// context holds its row, so a plan shown (not run) prunes nothing by it.
func TestOuterRef(t *testing.T) {
	inner, outer := NewFrame(), NewFrame()
	ref := &OuterRef{Frame: outer, Idx: 1, T: types.TInt4, Name: "t.x"}
	cmp := &Compare{Op: EQ, L: &Col{Idx: 0, T: types.TInt4}, R: &Arith{Op: Add, L: ref, R: &Const{D: types.Int(types.TInt4, 1)}, T: types.TInt4}}
	for _, c := range []struct {
		name  string
		chain *OuterRow
		value string // what ref reads
		bound string // cmp after BindRun
	}{
		{"no rows", nil, "NULL", cmp.String()},
		{"own row", (*OuterRow)(nil).Push(outer, []types.Datum{types.NullOf(types.TInt4), types.Int(types.TInt4, 41)}), "41", "(#0 = '42'::integer)"},
		{"under an inner row", (*OuterRow)(nil).Push(outer, []types.Datum{types.NullOf(types.TInt4), types.Int(types.TInt4, 7)}).Push(inner, []types.Datum{types.Int(types.TInt4, 1)}), "7", "(#0 = '8'::integer)"},
		{"another frame only", (*OuterRow)(nil).Push(inner, []types.Datum{types.Int(types.TInt4, 1), types.Int(types.TInt4, 2)}), "NULL", cmp.String()},
	} {
		ec := &Ctx{Outer: c.chain}
		d, _ := OuterValue(ec, ref)
		if got := types.FormatText(d, nil); got != c.value && !(d.Null && c.value == "NULL") {
			t.Errorf("%s: reads %q, want %q", c.name, got, c.value)
		}
		if got := BindRun(cmp, ec).String(); got != c.bound {
			t.Errorf("%s: BindRun gives %s, want %s", c.name, got, c.bound)
		}
	}
}
