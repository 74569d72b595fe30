package expr

import (
	"math"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Expected values are PostgreSQL 15's.
func TestJSONBuild(t *testing.T) {
	runCases(t, []fcase{
		ok("json_build_object", `{"a" : 1, "b" : "x", "c" : null, "d" : true, "e" : 1.50, "f" : {"z": 1}}`,
			lit("a"), i4(1), lit("b"), lit("x"), lit("c"), null(), lit("d"), types.BoolDatum(true), lit("e"), num("1.50"), lit("f"), js(`{"z": 1}`)),
		ok("jsonb_build_object", `{"a": "x\"y", "b": 1}`, lit("b"), i4(1), lit("a"), lit(`x"y`)),
		ok("json_build_object", `{"1" : 2}`, i4(1), i4(2)),
		ok("json_build_object", `{}`),
		fails("json_build_object", pgerr.InvalidParameterValue, lit("a")),
		fails("json_build_object", "22004", null(), i4(1)),
		ok("json_build_array", `[1, "a", null]`, i4(1), lit("a"), null()),
		ok("jsonb_build_array", `[]`),
		ok("to_json", `"x"`, lit("x")),
		ok("to_jsonb", `1.50`, num("1.50")),
		ok("to_json", `"NaN"`, f8(nan())),
		ok("to_json", `1e+20`, f8(1e20)),
		ok("to_json", "NULL", types.NullOf(types.TText)),
		ok("to_json", `"2020-01-01T10:00:00+00:00"`, types.Int(types.TTimestampTZ, 1577872800000000)),
		ok("overlay", "Thomas", lit("Txxxxas"), lit("hom"), i4(2), i4(4)),
		ok("overlay", "aXc", lit("abc"), lit("X"), i4(2)),
		ok("overlay", "abcXY", lit("abc"), lit("XY"), i4(5)),
		fails("overlay", "22011", lit("abc"), lit("X"), i4(0), i4(1)),
	})
}

func nan() float64 { return math.NaN() }
