package jsonpath

import (
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// query runs path over doc and prints the items as jsonb, one a line,
// or the error's SQLSTATE and message.
func query(t *testing.T, doc, path, vars string) string {
	t.Helper()
	p, err := Parse(path)
	if err != nil {
		e := pgerr.From(err)
		return "ERROR " + e.Code + " " + e.Message
	}
	v, err := types.ParseJSON(doc)
	if err != nil {
		t.Fatalf("bad test document %s: %v", doc, err)
	}
	v.Normalize()
	var vv *types.JSONValue
	if vars != "" {
		if vv, err = types.ParseJSON(vars); err != nil {
			t.Fatalf("bad test vars %s: %v", vars, err)
		}
	}
	items, err := p.Query(v, vv)
	if err != nil {
		e := pgerr.From(err)
		return "ERROR " + e.Code + " " + e.Message
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.JSONB()
	}
	return strings.Join(out, "\n")
}

// The expected results are PostgreSQL 15's jsonb_path_query.
func TestQuery(t *testing.T) {
	const nested = `{"a":[1,{"b":2}],"b":{"b":3}}`
	const people = `[{"name":"foo","x":2},{"name":"bar","x":0}]`
	for _, c := range []struct{ doc, path, vars, want string }{
		{`{"a":{"b":[1,2,{"c":3}]}}`, `$.a.b[*]`, "", "1\n2\n{\"c\": 3}"},
		{`{"a":{"b":[1,2,{"c":3}]}}`, `$.a.b.c`, "", "3"},
		{`{"a":{"b":[1,2,{"c":3}]}}`, `strict $.a.b.c`, "", "ERROR 2203A jsonpath member accessor can only be applied to an object"},
		{`[1,2,3]`, `$ ? (@ > 1)`, "", "2\n3"},
		{`[1,2,3]`, `strict $ ? (@ > 1)`, "", ""},
		{nested, `$.**`, "", "{\"a\": [1, {\"b\": 2}], \"b\": {\"b\": 3}}\n[1, {\"b\": 2}]\n1\n{\"b\": 2}\n2\n{\"b\": 3}\n3"},
		{nested, `lax $.**.b`, "", "{\"b\": 3}\n2\n2\n3"},
		{nested, `$.**{1}`, "", "[1, {\"b\": 2}]\n{\"b\": 3}"},
		{nested, `$.**{2 to last}`, "", "1\n{\"b\": 2}\n2\n3"},
		{`[1,2,3,4]`, `$[last]`, "", "4"},
		{`[1,2,3,4]`, `$[1 to 2]`, "", "2\n3"},
		{`[1,2,3,4]`, `$[0, 2 to last]`, "", "1\n3\n4"},
		{`[1,2,3,4]`, `$[10]`, "", ""},
		{`[1,2,3,4]`, `strict $[10]`, "", "ERROR 22033 jsonpath array subscript is out of bounds"},
		{`{"a":1}`, `$[0]`, "", "{\"a\": 1}"},
		{`{"a":1}`, `strict $[0]`, "", "ERROR 22039 jsonpath array accessor can only be applied to an array"},
		{`{"a":1}`, `strict $.b`, "", "ERROR 2203A JSON object does not contain key \"b\""},
		{`{"a":1}`, `$.b`, "", ""},
		{people, `$[*] ? (@.name == "foo" && @.x > 1).name`, "", "\"foo\""},
		{people, `$[*] ? (!(@.name == "foo") || @.x > 1)`, "", "{\"x\": 2, \"name\": \"foo\"}\n{\"x\": 0, \"name\": \"bar\"}"},
		{`[{"name":"foo","x":2},{"name":"bar"}]`, `$[*] ? (exists(@.x))`, "", "{\"x\": 2, \"name\": \"foo\"}"},
		{`[{"name":"foo","x":2},{"name":"bar"}]`, `$[*] ? (@.name like_regex "^F" flag "i")`, "", "{\"x\": 2, \"name\": \"foo\"}"},
		{`[{"name":"foo","x":2},{"name":"bar"}]`, `$[*] ? (@.name starts with "b")`, "", "{\"name\": \"bar\"}"},
		{`[1, "a", null, true]`, `$[*] ? (@ == null)`, "", "null"},
		{`[1, "a", null, true]`, `$[*] ? ((@ > 0) is unknown)`, "", "\"a\"\ntrue"},
		{`{"a":2}`, `$.a + 3`, "", "5"},
		{`{"a":2}`, `$.a * 2.5`, "", "5.0"},
		{`{"a":7}`, `$.a / 2`, "", "3.5000000000000000"},
		{`{"a":7}`, `$.a % 4`, "", "3"},
		{`{"a":7}`, `-$.a`, "", "-7"},
		{`{"a":[1,2]}`, `$.a + 3`, "", "ERROR 22038 left operand of jsonpath operator + is not a single numeric value"},
		{`1`, `$ + "a"`, "", "ERROR 22038 right operand of jsonpath operator + is not a single numeric value"},
		{`[1,2]`, `$.size()`, "", "2"},
		{`[1,2]`, `$.type()`, "", "\"array\""},
		{`{"a":-1.5}`, `$.a.abs()`, "", "1.5"},
		{`{"a":-1.5}`, `$.a.floor()`, "", "-2"},
		{`{"a":-1.5}`, `$.a.ceiling()`, "", "-1"},
		{`"1.5e1"`, `$.double()`, "", "15"},
		{`{"x":2}`, `$.x.size()`, "", "1"},
		{`{"a":1,"b":[2]}`, `$.keyvalue()`, "", "{\"id\": 0, \"key\": \"a\", \"value\": 1}\n{\"id\": 0, \"key\": \"b\", \"value\": [2]}"},
		{`{"a":1,"b":[2]}`, `$.*`, "", "1\n[2]"},
		{`[[1],[2,3]]`, `$[*][*]`, "", "1\n2\n3"},
		{`{"a":1}`, `$.a ? (@ > $x)`, `{"x":0}`, "1"},
		{`{"a":1}`, `$.a ? (@ > $x)`, `{"y":0}`, "ERROR 42704 could not find jsonpath variable \"x\""},
		{`{"a":1}`, `$.a ? (@ > $x)`, `[]`, "ERROR 22023 \"vars\" argument is not an object"},
		{`{"a b":1}`, `$."a b"`, "", "1"},
		{`[1,2,3]`, `$[*] ? (@ <> 2)`, "", "1\n3"},
		{`["a","b"]`, `$[*] ? (@ < "b")`, "", "\"a\""},
		{`[1, 1.0, "1"]`, `$[*] ? (@ == 1)`, "", "1\n1.0"},
		{`{"a":[{"b":1},{"b":5}]}`, `$.a[*].b ? (@ > 2)`, "", "5"},
		{`{"a":[{"b":1},{"b":5}]}`, `$.a ? (@.b > 2)`, "", "{\"b\": 5}"},
		{`{"a":[{"b":1},{"b":5}]}`, `$.a.b`, "", "1\n5"},
		{`[1,2]`, `$[$i]`, `{"i":1}`, "2"},
		{`[]`, `strict $.a`, "", "ERROR 2203A jsonpath member accessor can only be applied to an object"},
		{`[1,2]`, `$[1.7]`, "", "2"},
		{`[1,2]`, `$[-1]`, "", ""},
		{`[1,2]`, `strict $[-1]`, "", "ERROR 22033 jsonpath array subscript is out of bounds"},
		{`1`, `1 + 2`, "", "3"},
		{`1`, `1.5e2`, "", "150"},
		{`1`, `$ == 1`, "", "true"},
		{`{"x":2}`, `$.x / 0`, "", "ERROR 22012 division by zero"},
		{`{"a":1}`, `$.a[`, "", "ERROR 42601 syntax error at end of jsonpath input"},
		{`{"a":1}`, `$.`, "", "ERROR 42601 syntax error at end of jsonpath input"},
		{`{"a":1}`, `foo`, "", "ERROR 42601 syntax error at end of jsonpath input"},
		{`{"a":1}`, `$ ? (foo == 1)`, "", "ERROR 42601 syntax error at or near \" \" of jsonpath input"},
		{`{"a":1}`, `$.a +`, "", "ERROR 42601 syntax error at end of jsonpath input"},
		{`{"a":1}`, `$ ? (@.a)`, "", "ERROR 42601 syntax error at or near \")\" of jsonpath input"},
		{`{"a":1}`, `$.a ]`, "", "ERROR 42601 syntax error at or near \"]\" of jsonpath input"},
		{`{"a":1}`, `$ ? (@.a == "x)`, "", "ERROR 42601 unexpected end of quoted string at end of jsonpath input"},
		{`{"a":1}`, `@.a`, "", "ERROR 42601 @ is not allowed in root expressions"},
	} {
		if got := query(t, c.doc, c.path, c.vars); got != c.want {
			t.Errorf("jsonb_path_query('%s', '%s'):\n got %q\nwant %q", c.doc, c.path, got, c.want)
		}
	}
}

// FuzzParse feeds the parser arbitrary text, which jsonb_path_* read from
// users: it must return a path or a 42601-class error, never panic, and a
// path it returns must run.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`$.a.b[*]`, `strict $.a ? (@.x > 1 && exists(@.y))`, `$.**{2 to last}.type()`,
		`$[0, 2 to last]`, `$ ? (@.name like_regex "^F" flag "i")`, `-$.a % 4 + $x`, `"\u{1F600}"`, `$ ? ((@ > 0) is unknown)`,
		`$.a ? (@ starts with "b")`, `lax $.*.keyvalue()`, `$[$i to last - 1]`} {
		f.Add(s)
	}
	doc, _ := types.ParseJSON(`{"a":[1,{"b":2,"x":3}],"name":"foo","y":[[]]}`)
	vars, _ := types.ParseJSON(`{"x":1,"i":0}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			switch code := pgerr.From(err).Code; code {
			case pgerr.InvalidRegularExpression, pgerr.StatementTooComplex, pgerr.FeatureNotSupported, pgerr.InvalidTextRepresentation:
			default:
				if code[:2] != "42" {
					t.Fatalf("Parse(%q): unexpected error %v", s, err)
				}
			}
			return
		}
		_, _ = p.Query(doc, vars)
	})
}
