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

func TestJSONMemberElement(t *testing.T) {
	doc := ` { "a" : "x}\"]" , "b":{"c":[1,{"d":"}"}]} ,"e\u0041": 3, "a": [ 1 , 2 ] , "n": null } `
	for _, c := range []struct {
		key, want string
		ok        bool
	}{
		{"a", "[ 1 , 2 ]", true}, // the last of duplicate keys
		{"b", `{"c":[1,{"d":"}"}]}`, true},
		{"eA", "3", true},
		{"n", "null", true},
		{"zz", "", false},
	} {
		got, ok := JSONMember(doc, c.key)
		if got != c.want || ok != c.ok {
			t.Errorf("JSONMember(%q) = %q, %v; want %q, %v", c.key, got, ok, c.want, c.ok)
		}
	}
	if _, ok := JSONMember(`[1]`, "a"); ok {
		t.Error("JSONMember on an array found something")
	}
	arr := `[ "a,b" , {"x": [1, 2]}, 3 ]`
	for _, c := range []struct {
		n    int64
		want string
		ok   bool
	}{{0, `"a,b"`, true}, {1, `{"x": [1, 2]}`, true}, {-1, "3", true}, {-3, `"a,b"`, true}, {3, "", false}, {-4, "", false}} {
		got, ok := JSONElement(arr, c.n)
		if got != c.want || ok != c.ok {
			t.Errorf("JSONElement(%d) = %q, %v; want %q, %v", c.n, got, ok, c.want, c.ok)
		}
	}
	if _, ok := JSONElement(`[]`, 0); ok {
		t.Error("JSONElement on [] found something")
	}
	for _, c := range []struct {
		raw, want string
		ok        bool
	}{{`"a\nb"`, "a\nb", true}, {`"plain"`, "plain", true}, {"null", "", false}, {"1.50", "1.50", true}, {`{"a": 1}`, `{"a": 1}`, true}} {
		got, ok := JSONScalarText(c.raw)
		if got != c.want || ok != c.ok {
			t.Errorf("JSONScalarText(%s) = %q, %v", c.raw, got, ok)
		}
	}
}
