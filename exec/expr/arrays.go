package expr

import (
	"strings"

	"github.com/loamdb/loam/types"
)

// Arrays travel as their text form ({a,"b c",NULL}); these functions read
// and write that form.

func arrayText(elems []string, null []bool) string {
	buf := []byte{'{'}
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ',')
		}
		if null != nil && null[i] {
			buf = append(buf, "NULL"...)
			continue
		}
		buf = types.AppendArrayElem(buf, e)
	}
	return string(append(buf, '}'))
}

var textArray = types.ArrayOf(types.Text)

func textArrayDatum(elems []string, null []bool) types.Datum {
	return types.Datum{T: textArray, S: arrayText(elems, null)}
}

func stringToArray(s string, delim *string, nullStr *string) types.Datum {
	if s == "" {
		return textArrayDatum(nil, nil)
	}
	var parts []string
	switch {
	case delim == nil:
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case *delim == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, *delim)
	}
	null := make([]bool, len(parts))
	for i, p := range parts {
		null[i] = nullStr != nil && p == *nullStr
	}
	return textArrayDatum(parts, null)
}

func init() {
	joinFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Null || a[1].Null {
			return types.NullOf(types.TText), nil
		}
		elems, null, err := types.SplitArrayText(a[0].S)
		if err != nil {
			return types.Datum{}, err
		}
		var out []string
		for i, e := range elems {
			if null[i] {
				if len(a) > 2 && !a[2].Null {
					out = append(out, a[2].S)
				}
				continue
			}
			out = append(out, e)
		}
		return types.TextDatum(strings.Join(out, a[1].S)), nil
	}
	register([]Overload{{Args: []types.Kind{types.Array, text}, Ret: types.TText, Fn: joinFn},
		{Args: []types.Kind{types.Array, text, text}, Ret: types.TText, Fn: joinFn}}, "array_to_string")
	splitFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Null {
			return types.NullOf(textArray), nil
		}
		var delim, nullStr *string
		if !a[1].Null {
			delim = &a[1].S
		}
		if len(a) > 2 && !a[2].Null {
			nullStr = &a[2].S
		}
		return stringToArray(a[0].S, delim, nullStr), nil
	}
	register([]Overload{{Args: []types.Kind{text, text}, Ret: textArray, Fn: splitFn},
		{Args: []types.Kind{text, text, text}, Ret: textArray, Fn: splitFn}}, "string_to_array")
	lenFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		elems, _, err := types.SplitArrayText(a[0].S)
		if err != nil {
			return types.Datum{}, err
		}
		if len(elems) == 0 || len(a) > 1 && a[1].I != 1 {
			return types.NullOf(types.TInt4), nil
		}
		return types.Int(types.TInt4, int64(len(elems))), nil
	}
	register([]Overload{{Args: []types.Kind{types.Array, int4}, Ret: types.TInt4, Strict: true, Fn: lenFn}}, "array_length")
	// Loam's arrays are one-dimensional with lower bound 1: the upper bound
	// is the length.
	register([]Overload{{Args: []types.Kind{types.Array, int4}, Ret: types.TInt4, Strict: true, Fn: lenFn}}, "array_upper")
	register([]Overload{{Args: []types.Kind{types.Array, int4}, Ret: types.TInt4, Strict: true, Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
		d, err := lenFn(c, a)
		if d.Null || err != nil {
			return d, err
		}
		return types.Int(types.TInt4, 1), nil
	}}}, "array_lower")
	register([]Overload{{Args: []types.Kind{types.Array}, Ret: types.TInt4, Strict: true, Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
		d, err := lenFn(c, a)
		if d.Null && err == nil {
			return types.Int(types.TInt4, 0), nil
		}
		return d, err
	}}}, "cardinality")
	matchFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		flags := ""
		if len(a) > 2 {
			flags = a[2].S
		}
		fold, newline, global, err := reFlags(flags)
		if err == nil && global {
			err = errGlobalFlag("regexp_match")
		}
		if err != nil {
			return types.Datum{}, err
		}
		re, err := pgRegexp(a[1].S, fold, newline)
		if err != nil {
			return types.Datum{}, err
		}
		m := re.FindStringSubmatchIndex(a[0].S)
		if m == nil {
			return types.NullOf(textArray), nil
		}
		if len(m) == 2 {
			return textArrayDatum([]string{a[0].S[m[0]:m[1]]}, nil), nil
		}
		var elems []string
		var null []bool
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] < 0 {
				elems, null = append(elems, ""), append(null, true)
				continue
			}
			elems, null = append(elems, a[0].S[m[2*g]:m[2*g+1]]), append(null, false)
		}
		return textArrayDatum(elems, null), nil
	}
	register([]Overload{sig(types.Array, matchFn, text, text), sig(types.Array, matchFn, text, text, text)}, "regexp_match")
	splitRe := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		flags := ""
		if len(a) > 2 {
			flags = a[2].S
		}
		fold, newline, global, err := reFlags(flags)
		if err == nil && global {
			err = errGlobalFlag("regexp_split_to_array")
		}
		if err != nil {
			return types.Datum{}, err
		}
		re, err := pgRegexp(a[1].S, fold, newline)
		if err != nil {
			return types.Datum{}, err
		}
		return textArrayDatum(regexSplit(re.FindAllStringIndex(a[0].S, -1), a[0].S), nil), nil
	}
	register([]Overload{sig(types.Array, splitRe, text, text), sig(types.Array, splitRe, text, text, text)}, "regexp_split_to_array")
	for _, n := range []string{"regexp_match", "regexp_split_to_array"} {
		ovs := Builtins[n].Overloads
		for i := range ovs {
			ovs[i].Ret = textArray
		}
	}
}

// regexSplit cuts s at the matches, ignoring empty matches at the very
// start and end as PostgreSQL does.
func regexSplit(ms [][]int, s string) []string {
	var out []string
	last := 0
	for _, m := range ms {
		if m[0] == m[1] && (m[0] == 0 || m[0] == len(s)) {
			continue
		}
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:])
}
