package expr

import (
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

func arr(s string) types.Datum { return types.Datum{T: types.ArrayOf(types.Text), S: s} }

// Expected values are PostgreSQL 15's.
func TestArrayFuncs(t *testing.T) {
	runCases(t, []fcase{
		ok("regexp_match", "{bar}", lit("foobarbequebaz"), lit("ba.")),
		ok("regexp_match", "{bar,beque}", lit("foobarbequebaz"), lit("(bar)(beque)")),
		ok("regexp_match", "NULL", lit("abc"), lit("x")),
		ok("regexp_match", "{NULL}", lit("abc"), lit("(x)?b")),
		fails("regexp_match", pgerr.InvalidParameterValue, lit("abc"), lit("b"), lit("g")),
		ok("regexp_split_to_array", "{hello,world}", lit("hello world"), lit(`\s+`)),
		ok("regexp_split_to_array", "{a,b,c}", lit("abc"), lit("")),
		ok("regexp_split_to_array", `{"",a,""}`, lit(",a,"), lit(",")),
		ok("string_to_array", `{a,b,"",c}`, lit("a,b,,c"), lit(",")),
		ok("string_to_array", "{a,b,c}", lit("abc"), null()),
		ok("string_to_array", "{}", lit(""), lit(",")),
		ok("string_to_array", "{a,NULL,c}", lit("a,*,c"), lit(","), lit("*")),
		ok("string_to_array", `{"a b"}`, lit("a b"), lit(",")),
		ok("array_to_string", "a-c", arr("{a,NULL,c}"), lit("-")),
		ok("array_to_string", "a-N-c", arr("{a,NULL,c}"), lit("-"), lit("N")),
		ok("array_length", "2", arr("{a,b}"), i4(1)),
		ok("array_length", "NULL", arr("{}"), i4(1)),
		ok("cardinality", "0", arr("{}")),
		ok("cardinality", "3", arr(`{a,"b,c",d}`)),
	})
}
