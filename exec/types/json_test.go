package types

import (
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// Expected outputs are PostgreSQL 15's jsonb output.
func TestNormalizeJSONB(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1, "aa": 2, "a":[1, 2.0, 1e2, 1E-2, -0, "\u00e9\n", true, null]}`, `{"a": [1, 2.0, 100, 0.01, 0, "é\n", true, null], "b": 1, "aa": 2}`},
		{`{"a":1,"a":2}`, `{"a": 2}`},
		{`  [1, {"x": {}} ]  `, `[1, {"x": {}}]`},
		{`"str"`, `"str"`},
		{`{"a": "\""}`, `{"a": "\""}`},
		{`{"a":"\u0041\ud83d\ude00"}`, `{"a": "A😀"}`},
		{`{"k": "\t\u0001"}`, `{"k": "\t\u0001"}`},
		{`[0.000001, 1e-7, 123456789012345678901234567890]`, `[0.000001, 0.0000001, 123456789012345678901234567890]`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	} {
		got, err := NormalizeJSONB(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormalizeJSONB(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`{bad`, `[1,]`, `{"a" 1}`, `01`, `1.`, `"x`, ``, `[1] x`, `tru`} {
		if _, err := NormalizeJSONB(bad); pgerr.Code(err) != pgerr.InvalidTextRepresentation {
			t.Errorf("NormalizeJSONB(%q): %v, want 22P02", bad, err)
		}
	}
}

func TestParseJSONKeepsRaw(t *testing.T) {
	v, err := ParseJSON(`{"a":  {"b" : [1,  2]}, "c": "x"}`)
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != 'o' || v.Vals[0].Raw != `{"b" : [1,  2]}` || v.Vals[1].Str != "x" {
		t.Errorf("parsed %+v", v)
	}
}
