package expr

import (
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// jsonOf parses a json/jsonb datum; jsonb text is already normal.
func jsonOf(d types.Datum) (*types.JSONValue, error) {
	return types.ParseJSON(d.S)
}

// jsonOut is v as a value of type t: json keeps the source text, jsonb
// prints the normal form.
func jsonOut(v *types.JSONValue, t types.T) types.Datum {
	if t.Kind == types.JSONB {
		return types.Datum{T: t, S: v.JSONB()}
	}
	return types.Datum{T: t, S: v.Raw}
}

// jsonText is v as ->> and #>> return it: strings unquoted, null as NULL.
func jsonText(v *types.JSONValue, t types.T) types.Datum {
	switch v.Kind {
	case 's':
		return types.TextDatum(v.Str)
	case 'z':
		return types.NullOf(types.TText)
	}
	d := jsonOut(v, t)
	d.T = types.TText
	return d
}

// field finds an object member (the last of duplicate keys, as json's
// operators do) or an array element; nil when there is none.
func field(v *types.JSONValue, key string) *types.JSONValue {
	if v.Kind != 'o' {
		return nil
	}
	for i := len(v.Keys) - 1; i >= 0; i-- {
		if v.Keys[i] == key {
			return v.Vals[i]
		}
	}
	return nil
}

func element(v *types.JSONValue, i int64) *types.JSONValue {
	if v.Kind != 'a' {
		return nil
	}
	if i < 0 {
		i += int64(len(v.Vals))
	}
	if i < 0 || i >= int64(len(v.Vals)) {
		return nil
	}
	return v.Vals[i]
}

// ParseTextArray reads a one-dimensional text[] literal such as '{a,"b c"}';
// a NULL element is reported as nil.
func ParseTextArray(s string) ([]*string, error) {
	bad := func() error {
		return pgerr.New(pgerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", s)
	}
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, bad()
	}
	body := t[1 : len(t)-1]
	var out []*string
	if strings.TrimSpace(body) == "" {
		return out, nil
	}
	i := 0
	for {
		for i < len(body) && body[i] == ' ' {
			i++
		}
		var b strings.Builder
		quoted := false
		if i < len(body) && body[i] == '"' {
			quoted = true
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				b.WriteByte(body[i])
				i++
			}
			if i >= len(body) {
				return nil, bad()
			}
			i++
			for i < len(body) && body[i] == ' ' {
				i++
			}
		} else {
			for i < len(body) && body[i] != ',' {
				if body[i] == '{' || body[i] == '}' || body[i] == '"' {
					return nil, bad()
				}
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				b.WriteByte(body[i])
				i++
			}
		}
		el := b.String()
		if !quoted {
			el = strings.TrimRight(el, " ")
			if el == "" {
				return nil, bad()
			}
		}
		if !quoted && strings.EqualFold(el, "null") {
			out = append(out, nil)
		} else {
			out = append(out, &el)
		}
		if i >= len(body) {
			return out, nil
		}
		if body[i] != ',' {
			return nil, bad()
		}
		i++
	}
}

// jsonPath follows a #> path; nil when a step does not exist.
func jsonPath(v *types.JSONValue, path []*string) *types.JSONValue {
	for _, p := range path {
		if p == nil {
			return nil
		}
		switch v.Kind {
		case 'o':
			v = field(v, *p)
		case 'a':
			n, err := strconv.ParseInt(strings.TrimSpace(*p), 10, 64)
			if err != nil {
				return nil
			}
			v = element(v, n)
		default:
			return nil
		}
		if v == nil {
			return nil
		}
	}
	return v
}

// JSONArrow is `j -> k` / `j ->> k` with k an int (array index) or text
// (object key); asText is ->>.
func JSONArrow(l, r Expr, asText bool) Expr {
	lt := l.Type()
	rt := lt
	name := "->"
	if asText {
		rt, name = types.TText, "->>"
	}
	byIndex := r.Type().IsInteger()
	return &Func{Name: name, Args: []Expr{l, r}, T: rt, Strict: true, Vec: jsonbArrowVec(asText, byIndex),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			// Stored json and jsonb text is valid, and a member of jsonb's
			// normal form is in normal form: find its span, parse nothing.
			var raw string
			var found bool
			if byIndex {
				raw, found = types.JSONElement(a[0].S, a[1].I)
				// A jsonb scalar indexes as a one-element array.
				if s := strings.TrimSpace(a[0].S); lt.Kind == types.JSONB && s != "" && s[0] != '[' && s[0] != '{' &&
					(a[1].I == 0 || a[1].I == -1) {
					raw, found = s, true
				}
			} else {
				raw, found = types.JSONMember(a[0].S, a[1].S)
			}
			if !found {
				return types.NullOf(rt), nil
			}
			if asText {
				s, notNull := types.JSONScalarText(raw)
				if !notNull {
					return types.NullOf(rt), nil
				}
				return types.TextDatum(s), nil
			}
			return types.Datum{T: lt, S: raw}, nil
		}}
}

// JSONPathOp is `j #> path` / `j #>> path` with path a text[] literal.
func JSONPathOp(l, r Expr, asText bool) Expr {
	lt := l.Type()
	rt := lt
	name := "#>"
	if asText {
		rt, name = types.TText, "#>>"
	}
	return &Func{Name: name, Args: []Expr{l, r}, T: rt, Strict: true, Vec: jsonbPathOpVec(asText),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			path, err := ParseTextArray(a[1].S)
			if err != nil {
				return types.Datum{}, err
			}
			return extractPath(a[0], path, lt, asText)
		}}
}

func extractPath(d types.Datum, path []*string, lt types.T, asText bool) (types.Datum, error) {
	v, err := jsonOf(d)
	if err != nil {
		return types.Datum{}, err
	}
	m := jsonPath(v, path)
	switch {
	case m == nil && asText:
		return types.NullOf(types.TText), nil
	case m == nil:
		return types.NullOf(lt), nil
	case asText:
		return jsonText(m, lt), nil
	}
	return jsonOut(m, lt), nil
}

// JSONExists is `jsonb ? key`.
func JSONExists(l, r Expr) Expr {
	return &Func{Name: "?", Args: []Expr{l, r}, T: types.TBool, Strict: true, Vec: jsonbExistsVec,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			v, err := jsonOf(a[0])
			if err != nil {
				return types.Datum{}, err
			}
			return types.BoolDatum(hasKey(v, a[1].S)), nil
		}}
}

// hasKey is ?'s test: an object's key, a string element of an array, or
// the string a scalar is (jsonb stores it as a one-element array).
func hasKey(v *types.JSONValue, k string) bool {
	switch v.Kind {
	case 'o':
		return field(v, k) != nil
	case 'a':
		for _, m := range v.Vals {
			if m.Kind == 's' && m.Str == k {
				return true
			}
		}
		return false
	case 's':
		return v.Str == k
	}
	return false
}

// JSONExistsAnyAll is `jsonb ?| text[]` (any key exists) or, with all,
// `jsonb ?& text[]` (every key exists). NULL keys are skipped, as
// PostgreSQL's jsonb_exists_any/_all do.
func JSONExistsAnyAll(l, r Expr, all bool) Expr {
	name := "?|"
	if all {
		name = "?&"
	}
	return &Func{Name: name, Args: []Expr{l, r}, T: types.TBool, Strict: true, Vec: jsonbExistsAnyAllVec(all),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			v, err := jsonOf(a[0])
			if err != nil {
				return types.Datum{}, err
			}
			keys, err := ParseTextArray(a[1].S)
			if err != nil {
				return types.Datum{}, err
			}
			for _, k := range keys {
				if k == nil {
					continue
				}
				if hasKey(v, *k) != all {
					return types.BoolDatum(!all), nil
				}
			}
			return types.BoolDatum(all), nil
		}}
}

// jsonContains is jsonb's @>: every member of b is in a.
func jsonContains(a, b *types.JSONValue, top bool) bool {
	switch {
	case a.Kind == 'o' && b.Kind == 'o':
		for i, k := range b.Keys {
			m := field(a, k)
			if m == nil || !jsonContains(m, b.Vals[i], false) {
				return false
			}
		}
		return true
	case a.Kind == 'a' && b.Kind == 'a':
		for _, bv := range b.Vals {
			found := false
			for _, av := range a.Vals {
				if (av.Kind == 'o' || av.Kind == 'a') != (bv.Kind == 'o' || bv.Kind == 'a') {
					continue
				}
				if jsonContains(av, bv, false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case a.Kind == 'a' && top && b.Kind != 'o' && b.Kind != 'a':
		// A top-level array contains a bare scalar it has as an element.
		for _, av := range a.Vals {
			if jsonContains(av, b, false) {
				return true
			}
		}
		return false
	case a.Kind != b.Kind:
		return false
	case a.Kind == 's':
		return a.Str == b.Str
	case a.Kind == 'n':
		x, err1 := types.ParseDec(a.Raw)
		y, err2 := types.ParseDec(b.Raw)
		return err1 == nil && err2 == nil && x.Cmp(&y) == 0
	case a.Kind == 'o' || a.Kind == 'a':
		return false
	}
	return true
}

// JSONContains is `a @> b` on jsonb (flip for <@).
func JSONContains(l, r Expr, flip bool) Expr {
	name := "@>"
	if flip {
		name = "<@"
	}
	return &Func{Name: name, Args: []Expr{l, r}, T: types.TBool, Strict: true, Vec: jsonbContainsVec(flip),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			x, err := jsonOf(a[0])
			if err != nil {
				return types.Datum{}, err
			}
			y, err := jsonOf(a[1])
			if err != nil {
				return types.Datum{}, err
			}
			if flip {
				x, y = y, x
			}
			return types.BoolDatum(jsonContains(x, y, true)), nil
		}}
}

// JSONConcat is jsonb || jsonb: objects merge (right wins), anything else
// concatenates as arrays.
func JSONConcat(l, r Expr) Expr {
	return &Func{Name: "||", Args: []Expr{l, r}, T: types.TJSONB, Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			x, err := jsonOf(a[0])
			if err != nil {
				return types.Datum{}, err
			}
			y, err := jsonOf(a[1])
			if err != nil {
				return types.Datum{}, err
			}
			out := &types.JSONValue{}
			if x.Kind == 'o' && y.Kind == 'o' {
				out.Kind = 'o'
				out.Keys = append(append(out.Keys, x.Keys...), y.Keys...)
				out.Vals = append(append(out.Vals, x.Vals...), y.Vals...)
			} else {
				out.Kind = 'a'
				for _, v := range []*types.JSONValue{x, y} {
					if v.Kind == 'a' {
						out.Vals = append(out.Vals, v.Vals...)
					} else {
						out.Vals = append(out.Vals, v)
					}
				}
			}
			out.Normalize()
			return types.Datum{T: types.TJSONB, S: out.JSONB()}, nil
		}}
}

func jsonTypeof(v *types.JSONValue) string {
	return map[byte]string{'o': "object", 'a': "array", 's': "string", 'n': "number", 't': "boolean", 'f': "boolean", 'z': "null"}[v.Kind]
}

func init() {
	typeofFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		v, err := jsonOf(a[0])
		if err != nil {
			return types.Datum{}, err
		}
		return types.TextDatum(jsonTypeof(v)), nil
	}
	typeofJSONB := sig(text, typeofFn, types.JSONB)
	typeofJSONB.Vec = jsonbTypeofVec
	register([]Overload{typeofJSONB}, "jsonb_typeof")
	register([]Overload{sig(text, typeofFn, types.JSON)}, "json_typeof")
	lenFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		v, err := jsonOf(a[0])
		if err != nil {
			return types.Datum{}, err
		}
		switch v.Kind {
		case 'a':
			return types.Int(types.TInt4, int64(len(v.Vals))), nil
		case 'o':
			return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
		}
		return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
	}
	register([]Overload{sig(int4, lenFn, types.JSONB)}, "jsonb_array_length")
	register([]Overload{sig(int4, lenFn, types.JSON)}, "json_array_length")
	for _, k := range []types.Kind{types.JSON, types.JSONB} {
		prefix := map[types.Kind]string{types.JSON: "json", types.JSONB: "jsonb"}[k]
		for _, asText := range []bool{false, true} {
			asText := asText
			ret := types.Of(k)
			name := prefix + "_extract_path"
			if asText {
				ret, name = types.TText, name+"_text"
			}
			// Not strict: a NULL path element makes the result NULL, but
			// PostgreSQL's variadic text[] call is strict only on the array.
			fn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				if a[0].Null {
					return types.NullOf(ret), nil
				}
				path := make([]*string, len(a)-1)
				for i, d := range a[1:] {
					if !d.Null {
						s := d.S
						path[i] = &s
					}
				}
				return extractPath(a[0], path, a[0].T, asText)
			}
			var vec VecFunc
			if k == types.JSONB {
				vec = jsonbExtractPathVec(asText)
			}
			register([]Overload{{Args: []types.Kind{k, text}, Variadic: true, Ret: ret, Fn: fn, Vec: vec}}, name)
		}
	}
}
