package expr

import (
	"testing"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Expected values and errors are PostgreSQL 15's.
func TestJSONBCasts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		to   types.T
		want string // the value, or the error "SQLSTATE message"
	}{
		{"1.5", types.TInt4, "2"},
		{"2.5", types.TInt2, "3"},
		{"-2.5", types.TInt8, "-3"},
		{"1e2", types.TNumeric, "100"},
		{"1.50", types.TNumeric, "1.50"},
		{"1e2", types.TFloat8, "100"},
		{"12.75", types.TFloat4, "12.75"},
		{"true", types.TBool, "t"},
		{"false", types.TBool, "f"},
		{`"1"`, types.TNumeric, "22023 cannot cast jsonb string to type numeric"},
		{"null", types.TInt4, "22023 cannot cast jsonb null to type integer"},
		{"{}", types.TInt8, "22023 cannot cast jsonb object to type bigint"},
		{"[]", types.TFloat4, "22023 cannot cast jsonb array to type real"},
		{"true", types.TFloat8, "22023 cannot cast jsonb boolean to type double precision"},
		{"1", types.TBool, "22023 cannot cast jsonb numeric to type boolean"},
		{"99999999999", types.TInt4, "22003 integer out of range"},
	} {
		got, err := CastDatum(jb(tc.in), tc.to, time.UTC)
		s := ""
		if err != nil {
			e := pgerr.From(err)
			s = e.Code + " " + e.Message
		} else {
			s = types.FormatText(got, time.UTC)
		}
		if s != tc.want {
			t.Errorf("'%s'::jsonb::%s = %q, want %q", tc.in, tc.to, s, tc.want)
		}
	}
}

// Expected values are PostgreSQL 15's.
func TestJSONBKeyOperators(t *testing.T) {
	arr := func(s string) types.Datum { return types.Datum{T: types.ArrayOf(types.Text), S: s} }
	for _, tc := range []struct {
		doc, keys string
		all       bool
		want      string
	}{
		{`{"a": 1, "b": 2}`, `{a,x}`, false, "t"},
		{`{"a": 1}`, `{a,NULL}`, true, "t"},
		{`{"a": 1}`, `{}`, true, "t"},
		{`{"a": 1}`, `{}`, false, "f"},
		{`["a", "b"]`, `{a,b}`, true, "t"},
		{`"a"`, `{a}`, false, "t"},
		{`{"a": 1}`, `{NULL}`, false, "f"},
		{`{"a": {"b": 1}}`, `{b}`, false, "f"},
	} {
		got, code := evalOp(t, JSONExistsAnyAll(c(jb(tc.doc)), c(arr(tc.keys)), tc.all))
		if code != "" || got != tc.want {
			t.Errorf("'%s' ?%v '%s' = %s (%s), want %s", tc.doc, map[bool]string{false: "|", true: "&"}[tc.all], tc.keys, got, code, tc.want)
		}
	}
}

// TestCompareJSONB checks jsonb's btree order: PostgreSQL 15 sorts
// these values in this order.
func TestCompareJSONB(t *testing.T) {
	sorted := []string{`[]`, `null`, `"a"`, `"b"`, `9`, `10`, `false`, `true`, `[1]`, `[0, 0]`, `{}`, `{"a": 1}`, `{"b": 1}`, `{"a": 1, "b": 1}`}
	for i := range sorted {
		for k := range sorted {
			want := 0
			switch {
			case i < k:
				want = -1
			case i > k:
				want = 1
			}
			if got := CompareJSONB(sorted[i], sorted[k]); got != want {
				t.Errorf("CompareJSONB(%s, %s) = %d, want %d", sorted[i], sorted[k], got, want)
			}
		}
	}
	if CompareJSONB(`1.0`, `1`) != 0 {
		t.Errorf("1.0 and 1 differ as jsonb; PostgreSQL finds them equal")
	}
}

// TestJSONBKey checks that values jsonb finds equal hash alike.
func TestJSONBKey(t *testing.T) {
	for _, tc := range [][2]string{
		{`1.0`, `1`}, {`2.50`, `2.5`}, {`-0.0`, `0`}, {`[1.50, {"a": 2.0}]`, `[1.5, {"a": 2}]`},
		{`{"a": "x.0"}`, `{"a": "x.0"}`}, {`0.10`, `0.1`},
	} {
		if a, b := JSONBKey(tc[0]), JSONBKey(tc[1]); a != b {
			t.Errorf("JSONBKey(%s) = %q, JSONBKey(%s) = %q: want one key", tc[0], a, tc[1], b)
		}
		if CompareJSONB(tc[0], tc[1]) != 0 {
			t.Errorf("%s and %s differ as jsonb", tc[0], tc[1])
		}
	}
	if JSONBKey(`"1.0"`) == JSONBKey(`"1"`) {
		t.Errorf("strings \"1.0\" and \"1\" share a key")
	}
}
