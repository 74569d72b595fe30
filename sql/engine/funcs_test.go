package engine_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// TestFunctionErrors checks the SQLSTATE, message and position of failing
// function and operator calls against PostgreSQL 15's (sqllogictest files
// cannot: they only see that a statement failed).
func TestFunctionErrors(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id INT, j JSONB)")
	cases := []struct {
		query string
		code  string
		msg   string
		at    string // the text the position points at; "" for none
	}{
		{"SELECT length(5)", pgerr.UndefinedFunction, "function length(integer) does not exist", "length"},
		{"SELECT id, upper(1) FROM t", pgerr.UndefinedFunction, "function upper(integer) does not exist", "upper"},
		{"SELECT nosuch(1, 'a')", pgerr.UndefinedFunction, "function nosuch(integer, unknown) does not exist", "nosuch"},
		{"SELECT round(1.5::float8, 1)", pgerr.UndefinedFunction, "function round(double precision, integer) does not exist", "round"},
		{"SELECT floor('x')", pgerr.InvalidTextRepresentation, `invalid input syntax for type double precision: "x"`, "'x'"},
		{"SELECT sqrt(-1)", "2201F", "cannot take square root of a negative number", ""},
		{"SELECT ln(0)", "2201E", "cannot take logarithm of zero", ""},
		{"SELECT power(0, -1)", "2201F", "zero raised to a negative power is undefined", ""},
		{"SELECT mod(5, 0)", pgerr.DivisionByZero, "division by zero", ""},
		{"SELECT exp(1000)", pgerr.NumericValueOutOfRange, "value out of range: overflow", ""},
		{"SELECT 'abc' ~ '('", pgerr.InvalidRegularExpression, "invalid regular expression: parentheses () not balanced", ""},
		{"SELECT regexp_replace('abc', 'b', 'x', 'z')", pgerr.InvalidParameterValue, `invalid regular expression option: "z"`, ""},
		{"SELECT 1 || 2", pgerr.UndefinedFunction, "operator does not exist: integer || integer", "||"},
		{"SELECT 1 ~ 'a'", pgerr.UndefinedFunction, "operator does not exist: integer ~ unknown", "~"},
		{"SELECT j -> 1.5 FROM t", pgerr.UndefinedFunction, "operator does not exist: jsonb -> numeric", "->"},
		{"SELECT jsonb_array_length('{}')", pgerr.InvalidParameterValue, "cannot get array length of a non-array", ""},
		{"SELECT chr(0)", pgerr.ProgramLimitExceeded, "null character not permitted", ""},
		{"SELECT split_part('a', ',', 0)", pgerr.InvalidParameterValue, "field position must not be zero", ""},
		{"SELECT substr('hello', 2, -1)", "22011", "negative substring length not allowed", ""},
		{"SELECT format('%s %s', 'a')", pgerr.InvalidParameterValue, "too few arguments for format()", ""},
		{"SELECT concat()", pgerr.UndefinedFunction, "function concat() does not exist", "concat"},
		{"SELECT gcd(-2147483648, 0)", pgerr.NumericValueOutOfRange, "integer out of range", ""},
		{"SELECT '{bad'::jsonb", pgerr.InvalidTextRepresentation, "invalid input syntax for type json", "'{bad'"},
		{"SELECT greatest(1, true)", pgerr.DatatypeMismatch, "GREATEST types integer and boolean cannot be matched", "true"},
		{"SELECT coalesce(1, 'a'::text)", pgerr.DatatypeMismatch, "COALESCE types integer and text cannot be matched", "'a'"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			_, err := runSQL(context.Background(), s, tc.query)
			if err == nil {
				t.Fatalf("no error, want %s", tc.code)
			}
			pe := pgerr.From(err)
			if pe.Code != tc.code || pe.Message != tc.msg {
				t.Fatalf("%s %q, want %s %q", pe.Code, pe.Message, tc.code, tc.msg)
			}
			want := 0
			if tc.at != "" {
				want = strings.Index(tc.query, tc.at) + 1
			}
			if pe.Position != want {
				t.Errorf("position %d, want %d (at %q)", pe.Position, want, tc.at)
			}
		})
	}
}

// TestFunctionColumnsAndParams checks output column names and the types
// parameters take from function arguments, as PostgreSQL gives them.
func TestFunctionColumnsAndParams(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	r := mustRun(t, s, `SELECT upper('a'), '{"a":1}'::jsonb->>'a', greatest(1,2), least(1,2), substring('x' from 1), position('a' in 'b'), trim(' a '), round(1.5), overlay('abc' placing 'x' from 1)`)
	var names []string
	for _, c := range r.cols {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "upper,?column?,greatest,least,substring,position,btrim,round,overlay" {
		t.Errorf("columns %s", got)
	}
	for _, c := range []struct {
		query string
		oids  []uint32
	}{
		{"SELECT round($1, 2)", []uint32{types.OIDNumeric}},
		{"SELECT round($1)", []uint32{types.OIDFloat8}},
		{"SELECT upper($1)", []uint32{types.OIDText}},
		{"SELECT substr($1, $2)", []uint32{types.OIDText, types.OIDInt4}},
	} {
		stmts, err := s.Prepare(ctx, c.query, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		var got []uint32
		for _, pt := range stmts[0].ParamTypes {
			got = append(got, pt.OID())
		}
		if !reflect.DeepEqual(got, c.oids) {
			t.Errorf("%s: parameter OIDs %v, want %v", c.query, got, c.oids)
		}
	}
	stmts, err := s.Prepare(ctx, "SELECT round($1, 1), upper($2)", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := execStmt(ctx, s, stmts[0], []types.Datum{{T: types.TNumeric, S: "2.45"}, types.TextDatum("ab")})
	if err != nil || len(res.rows) != 1 || res.rows[0][0] != "2.5" || res.rows[0][1] != "AB" {
		t.Errorf("round($1, 1), upper($2) = %v, %v", res.rows, err)
	}
}
