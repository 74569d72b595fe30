package expr

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// evalOp evaluates an operator expression over one row.
func evalOp(t *testing.T, e Expr) (string, string) {
	t.Helper()
	batch := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer batch.Release()
	out, err := e.Eval(&Ctx{Loc: time.UTC}, batch)
	if err != nil {
		return "", pgerr.Code(err)
	}
	defer out.Release()
	d := types.DatumAt(e.Type(), out, 0)
	if d.Null {
		return "NULL", ""
	}
	return types.FormatText(d, time.UTC), ""
}

func c(d types.Datum) Expr { return &Const{D: d} }

func txt(s string) types.Datum { return types.TextDatum(s) }

// Expected values are PostgreSQL 15's.
func TestJSONOperators(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want string
		code string
	}{
		{JSONArrow(c(js(`{"a":1,"a":2}`)), c(txt("a")), false), "2", ""},
		{JSONArrow(c(js(`[1,2,3]`)), c(i4(-1)), false), "3", ""},
		{JSONArrow(c(jb(`[1, 2, 3]`)), c(i4(5)), false), "NULL", ""},
		{JSONArrow(c(js(`{"a": {"b":  [1, 2]}}`)), c(txt("a")), false), `{"b":  [1, 2]}`, ""},
		{JSONArrow(c(jb(`{"a": {"b": [1, 2]}}`)), c(txt("a")), false), `{"b": [1, 2]}`, ""},
		{JSONArrow(c(jb(`{"a": "x\ny", "b": null}`)), c(txt("a")), true), "x\ny", ""},
		{JSONArrow(c(jb(`{"a": "x", "b": null}`)), c(txt("b")), true), "NULL", ""},
		{JSONArrow(c(jb(`{"a": "x", "b": null}`)), c(txt("b")), false), "null", ""},
		{JSONArrow(c(js(`{"c": {"d" : 1}}`)), c(txt("c")), true), `{"d" : 1}`, ""},
		{JSONArrow(c(jb(`["a", "b"]`)), c(i4(1)), true), "b", ""},
		{JSONArrow(c(jb(`{"a": 1}`)), c(i4(0)), false), "NULL", ""},
		{JSONPathOp(c(jb(`{"a": {"b": [10, 20]}}`)), c(txt("{a,b}")), false), "[10, 20]", ""},
		{JSONPathOp(c(jb(`{"a": {"b": [10, 20]}}`)), c(txt("{a,b,1}")), true), "20", ""},
		{JSONPathOp(c(js(`{"a": {"b": [10, 20]}}`)), c(txt("{a, b, -1}")), false), "20", ""},
		{JSONPathOp(c(jb(`{"a": 1}`)), c(txt("{}")), false), `{"a": 1}`, ""},
		{JSONPathOp(c(jb(`{"a": 1}`)), c(txt("{x,y}")), false), "NULL", ""},
		{JSONPathOp(c(jb(`{"a": {"b c": 2}}`)), c(txt(`{a,"b c"}`)), true), "2", ""},
		{JSONPathOp(c(jb(`{"a": 1}`)), c(txt("x")), false), "", pgerr.InvalidTextRepresentation},
		{JSONExists(c(jb(`{"a": 1, "b": 2}`)), c(txt("a"))), "t", ""},
		{JSONExists(c(jb(`{"a": 1}`)), c(txt("c"))), "f", ""},
		{JSONExists(c(jb(`["a", "b"]`)), c(txt("b"))), "t", ""},
		{JSONExists(c(jb(`"a"`)), c(txt("a"))), "t", ""},
		{JSONContains(c(jb(`{"a": 1, "b": {"c": [1, 2]}}`)), c(jb(`{"b": {"c": [2]}}`)), false), "t", ""},
		{JSONContains(c(jb(`{"a": 1}`)), c(jb(`{"a": 2}`)), false), "f", ""},
		{JSONContains(c(jb(`[1, 2, 3]`)), c(jb(`[3, 1]`)), false), "t", ""},
		{JSONContains(c(jb(`[1, 2]`)), c(jb(`1`)), false), "t", ""},
		{JSONContains(c(jb(`{"a": 1}`)), c(jb(`{"a": 1, "b": 2}`)), true), "t", ""},
		{JSONContains(c(jb(`1.0`)), c(jb(`1`)), false), "t", ""},
		{JSONConcat(c(jb(`{"a": 1}`)), c(jb(`{"b": 2}`))), `{"a": 1, "b": 2}`, ""},
		{JSONConcat(c(jb(`{"a": 1}`)), c(jb(`{"a": 3}`))), `{"a": 3}`, ""},
		{JSONConcat(c(jb(`1`)), c(jb(`[2]`))), `[1, 2]`, ""},
	} {
		got, code := evalOp(t, tc.e)
		if got != tc.want || code != tc.code {
			t.Errorf("%s = %q (code %q), want %q (code %q)", tc.e, got, code, tc.want, tc.code)
		}
	}
}

func TestJSONFuncs(t *testing.T) {
	runCases(t, []fcase{
		ok("jsonb_extract_path_text", "x", jb(`{"a": {"b": "x"}}`), lit("a"), lit("b")),
		ok("json_extract_path", `{"b": "x"}`, js(`{"a":  {"b": "x"}}`), lit("a")),
		ok("jsonb_extract_path_text", "NULL", jb(`{"a": 1}`), lit("a"), null()),
		ok("jsonb_typeof", "object", jb(`{}`)),
		ok("jsonb_typeof", "array", jb(`[]`)),
		ok("jsonb_typeof", "number", jb(`1`)),
		ok("jsonb_typeof", "boolean", jb(`true`)),
		ok("jsonb_typeof", "null", jb(`null`)),
		ok("json_typeof", "string", js(`"s"`)),
		ok("jsonb_array_length", "3", jb(`[1, 2, [3]]`)),
		ok("json_array_length", "0", js(`[]`)),
		fails("jsonb_array_length", pgerr.InvalidParameterValue, jb(`{}`)),
		fails("jsonb_array_length", pgerr.InvalidParameterValue, jb(`1`)),
		fails("jsonb_typeof", pgerr.UndefinedFunction, js(`1`)),
	})
}

func TestParseTextArray(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // "<nil>" for a NULL element
		bad  bool
	}{
		{"{a,b}", []string{"a", "b"}, false},
		{"{}", nil, false},
		{`{ a , "b c", NULL, "NULL", "x\"y" }`, []string{"a", "b c", "<nil>", "NULL", `x"y`}, false},
		{"x", nil, true},
		{"{a,}", nil, true},
	} {
		got, err := ParseTextArray(c.in)
		if (err != nil) != c.bad {
			t.Errorf("ParseTextArray(%q): %v", c.in, err)
			continue
		}
		var strs []string
		for _, p := range got {
			if p == nil {
				strs = append(strs, "<nil>")
			} else {
				strs = append(strs, *p)
			}
		}
		if len(strs) != len(c.want) {
			t.Errorf("ParseTextArray(%q) = %q, want %q", c.in, strs, c.want)
			continue
		}
		for i := range strs {
			if strs[i] != c.want[i] {
				t.Errorf("ParseTextArray(%q) = %q, want %q", c.in, strs, c.want)
				break
			}
		}
	}
}

func TestJSONBScalarIndex(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{JSONArrow(c(jb(`"a"`)), c(i4(0)), false), `"a"`},
		{JSONArrow(c(jb(`"a"`)), c(i4(-1)), true), "a"},
		{JSONArrow(c(jb(`"a"`)), c(i4(1)), false), "NULL"},
		{JSONArrow(c(js(`"a"`)), c(i4(0)), false), "NULL"},
		{JSONPathOp(c(jb(`1`)), c(txt("{0}")), false), "NULL"},
	} {
		if got, code := evalOp(t, tc.e); got != tc.want || code != "" {
			t.Errorf("%s = %q %s, want %q", tc.e, got, code, tc.want)
		}
	}
}
