package expr

import (
	"math"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

const codeNullNotAllowed = "22004"

// appendToJSON writes a value as to_json does: numbers and booleans bare,
// json as is, timestamps in ISO 8601, everything else as a JSON string.
func appendToJSON(b *strings.Builder, c *Ctx, d types.Datum) {
	if d.Null {
		b.WriteString("null")
		return
	}
	switch d.T.Kind {
	case types.Bool:
		if d.I != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case types.Int2, types.Int4, types.Int8, types.Numeric:
		b.WriteString(types.FormatText(d, c.Loc))
	case types.Float4, types.Float8:
		s := types.FormatText(d, c.Loc)
		if math.IsNaN(d.F) || math.IsInf(d.F, 0) {
			types.AppendJSONString(b, s)
		} else {
			b.WriteString(s)
		}
	case types.JSON, types.JSONB:
		b.WriteString(d.S)
	case types.Array:
		appendArrayJSON(b, c, d)
	case types.Record:
		appendRecordJSON(b, c, d)
	case types.Timestamp, types.TimestampTZ:
		s := strings.Replace(types.FormatText(d, c.Loc), " ", "T", 1)
		if d.T.Kind == types.TimestampTZ {
			// The zone as ±hh:mm, XML Schema's form.
			if i := strings.LastIndexAny(s, "+-"); i > 10 && len(s)-i == 3 {
				s += ":00"
			}
		}
		types.AppendJSONString(b, s)
	default:
		types.AppendJSONString(b, textOf(c, d))
	}
}

// appendArrayJSON writes an array as to_json does: a JSON array of its
// elements, each converted as to_json converts it, with no blanks.
func appendArrayJSON(b *strings.Builder, c *Ctx, d types.Datum) {
	elems, null, err := types.SplitArrayText(d.S)
	if err != nil {
		types.AppendJSONString(b, d.S)
		return
	}
	et := types.Of(d.T.Elem)
	b.WriteByte('[')
	for i, s := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if null[i] {
			b.WriteString("null")
			continue
		}
		e, err := types.ParseText(et, s, c.Loc)
		if err != nil {
			types.AppendJSONString(b, s)
			continue
		}
		appendToJSON(b, c, e)
	}
	b.WriteByte(']')
}

// appendRecordJSON writes a row as to_json does: an object of its fields
// by name, with no blanks. A row of unknown shape is its text, quoted.
func appendRecordJSON(b *strings.Builder, c *Ctx, d types.Datum) {
	fields := types.RecordFields(d.T)
	vals, null, err := types.SplitRecordText(d.S)
	if fields == nil || err != nil || len(vals) != len(fields) {
		types.AppendJSONString(b, d.S)
		return
	}
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		types.AppendJSONString(b, f.Name)
		b.WriteByte(':')
		if null[i] {
			b.WriteString("null")
			continue
		}
		e, err := types.ParseText(f.T, vals[i], c.Loc)
		if err != nil {
			types.AppendJSONString(b, vals[i])
			continue
		}
		appendToJSON(b, c, e)
	}
	b.WriteByte('}')
}

func buildObject(c *Ctx, a []types.Datum, jsonb bool, name string) (types.Datum, error) {
	if len(a)%2 != 0 {
		return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
			WithHint("The arguments of " + name + "() must consist of alternating keys and values.")
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(a); i += 2 {
		if a[i].Null {
			return types.Datum{}, pgerr.New(codeNullNotAllowed, "argument %d cannot be null", i+1).WithHint("Object keys should be text.")
		}
		if i > 0 {
			b.WriteString(", ")
		}
		types.AppendJSONString(&b, textOf(c, a[i]))
		b.WriteString(" : ")
		appendToJSON(&b, c, a[i+1])
	}
	b.WriteByte('}')
	return jsonResult(b.String(), jsonb)
}

func buildArray(c *Ctx, a []types.Datum, jsonb bool) (types.Datum, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range a {
		if i > 0 {
			b.WriteString(", ")
		}
		appendToJSON(&b, c, d)
	}
	b.WriteByte(']')
	return jsonResult(b.String(), jsonb)
}

// jsonResult types built json text, normalizing it for jsonb.
func jsonResult(s string, jsonb bool) (types.Datum, error) {
	if !jsonb {
		return types.Datum{T: types.TJSON, S: s}, nil
	}
	n, err := types.NormalizeJSONB(s)
	return types.Datum{T: types.TJSONB, S: n}, err
}

func init() {
	for _, jsonb := range []bool{false, true} {
		jsonb := jsonb
		prefix, ret := "json", types.TJSON
		if jsonb {
			prefix, ret = "jsonb", types.TJSONB
		}
		objFn := func(c *Ctx, a []types.Datum) (types.Datum, error) {
			return buildObject(c, a, jsonb, prefix+"_build_object")
		}
		register([]Overload{{Args: nil, Ret: ret, Fn: objFn}, {Args: []types.Kind{Any}, Variadic: true, Ret: ret, Fn: objFn}}, prefix+"_build_object")
		arrFn := func(c *Ctx, a []types.Datum) (types.Datum, error) { return buildArray(c, a, jsonb) }
		register([]Overload{{Args: nil, Ret: ret, Fn: arrFn}, {Args: []types.Kind{Any}, Variadic: true, Ret: ret, Fn: arrFn}}, prefix+"_build_array")
		register([]Overload{{Args: []types.Kind{Any}, Ret: ret, Strict: true, Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			var b strings.Builder
			appendToJSON(&b, c, a[0])
			return jsonResult(b.String(), jsonb)
		}}}, "to_"+prefix)
	}
	register([]Overload{{Args: []types.Kind{types.Record}, Ret: types.TJSON, Strict: true, Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
		var b strings.Builder
		appendRecordJSON(&b, c, a[0])
		return types.Datum{T: types.TJSON, S: b.String()}, nil
	}}}, "row_to_json")
	overlay := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		count := int64(runeLen(a[1].S))
		if len(a) > 3 {
			count = a[3].I
		}
		head, err := substr(a[0].S, 1, a[2].I-1, true)
		if err != nil {
			return types.Datum{}, err
		}
		if a[2].I+count < a[2].I {
			return types.Datum{}, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
		}
		tail, _ := substr(a[0].S, a[2].I+count, 0, false)
		return types.TextDatum(head + a[1].S + tail), nil
	}
	register([]Overload{sig(text, overlay, text, text, int4), sig(text, overlay, text, text, int4, int4)}, "overlay")
}

// AppendToJSON writes d as to_json does, for the json aggregates.
func AppendToJSON(b *strings.Builder, c *Ctx, d types.Datum) { appendToJSON(b, c, d) }

// JSONKeyText is a json object key made of d: its text.
func JSONKeyText(c *Ctx, d types.Datum) string { return textOf(c, d) }
