package expr

import (
	"strings"

	"github.com/loamdb/loam/types"
)

// jsonbRank orders jsonb kinds as PostgreSQL's btree does:
// null < string < number < boolean < array < object.
var jsonbRank = map[byte]int{'z': 0, 's': 1, 'n': 2, 'f': 3, 't': 3, 'a': 4, 'o': 5}

// CompareJSONB orders two jsonb texts as PostgreSQL's jsonb btree opclass
// does: by kind, then containers by size and members in storage order,
// numbers by value, strings by bytes, false before true.
func CompareJSONB(a, b string) int {
	x, err1 := types.ParseJSON(a)
	y, err2 := types.ParseJSON(b)
	if err1 != nil || err2 != nil {
		return strings.Compare(a, b)
	}
	return CompareJSONBValues(x, y)
}

// CompareJSONBValues orders two parsed top-level jsonb values.
func CompareJSONBValues(x, y *types.JSONValue) int {
	// A top-level empty array sorts below everything, null included: a
	// quirk of how PostgreSQL stores top-level scalars (as one-element
	// arrays), which its documentation states.
	ex, ey := x.Kind == 'a' && len(x.Vals) == 0, y.Kind == 'a' && len(y.Vals) == 0
	if ex != ey {
		if ex {
			return -1
		}
		return 1
	}
	return CompareJSONValues(x, y)
}

// CompareJSONValues orders two parsed jsonb values as CompareJSONB does.
func CompareJSONValues(x, y *types.JSONValue) int {
	rx, ry := jsonbRank[x.Kind], jsonbRank[y.Kind]
	if rx != ry {
		return cmpInt(rx, ry)
	}
	switch x.Kind {
	case 's':
		return strings.Compare(x.Str, y.Str)
	case 'n':
		return CompareNumericText(x.Raw, y.Raw)
	case 't', 'f':
		return cmpInt(int(x.Kind-'f'), int(y.Kind-'f'))
	case 'a', 'o':
		if len(x.Vals) != len(y.Vals) {
			return cmpInt(len(x.Vals), len(y.Vals))
		}
		for i := range x.Vals {
			if x.Kind == 'o' {
				if c := strings.Compare(x.Keys[i], y.Keys[i]); c != 0 {
					return c
				}
			}
			if c := CompareJSONValues(x.Vals[i], y.Vals[i]); c != 0 {
				return c
			}
		}
	}
	return 0
}

// JSONBKey is jsonb text made canonical for hashing: values the jsonb
// order finds equal (1.0 and 1, [1.50] and [1.5]) get one key, as
// PostgreSQL's jsonb hash gives them one hash. Only a fraction can differ
// so, and jsonb text without a point is its own key.
func JSONBKey(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	v, err := types.ParseJSON(s)
	if err != nil {
		return s
	}
	var b strings.Builder
	appendJSONBKey(&b, v)
	return b.String()
}

// appendJSONBKey prints v as jsonb prints it, but with each fraction's
// trailing zeros dropped, so that the text of a value without any is its
// own key.
func appendJSONBKey(b *strings.Builder, v *types.JSONValue) {
	switch v.Kind {
	case 'o', 'a':
		open, end := byte('['), byte(']')
		if v.Kind == 'o' {
			open, end = '{', '}'
		}
		b.WriteByte(open)
		for i, m := range v.Vals {
			if i > 0 {
				b.WriteString(", ")
			}
			if v.Kind == 'o' {
				types.AppendJSONString(b, v.Keys[i])
				b.WriteString(": ")
			}
			appendJSONBKey(b, m)
		}
		b.WriteByte(end)
	case 'n':
		raw := v.Raw
		if strings.Contains(raw, ".") && !strings.ContainsAny(raw, "eE") {
			raw = strings.TrimRight(strings.TrimRight(raw, "0"), ".")
			if raw == "-0" {
				raw = "0"
			}
		}
		b.WriteString(raw)
	default:
		b.WriteString(v.JSONB())
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
