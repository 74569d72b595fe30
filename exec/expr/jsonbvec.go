package expr

import (
	"bytes"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
	"github.com/loamdb/loam/types/jsonb"
)

// The column paths of the jsonb operators read each row's binary form
// (types/jsonb), parsed once per buffer, instead of the text; json keeps
// the row path, since its operators answer with the text as written.
// Each returns a nil array to leave a batch to the row path: a jsonb
// argument that is a constant, a non-constant key or path, a NULL
// constant, or text that is no JSON (the row path reports the error).

// jsonbArg is the binary view of a jsonb first argument.
func jsonbArg(args []Expr, vals []arrow.Array) (jsonb.View, bool) {
	if vals[0] == nil || args[0].Type().Kind != types.JSONB {
		return jsonb.View{}, false
	}
	v, ok := jsonb.ViewOf(vals[0])
	if !ok || v.Bad() {
		return jsonb.View{}, false
	}
	return v, true
}

// constArgs are the values of args[from:], each a non-NULL constant.
func constArgs(args []Expr, from int) ([]types.Datum, bool) {
	out := make([]types.Datum, 0, len(args)-from)
	for _, a := range args[from:] {
		d, ok := IsConst(a)
		if !ok || d.Null {
			return nil, false
		}
		out = append(out, d)
	}
	return out, true
}

// mapJSONB builds a text or jsonb column from each non-NULL row's value:
// f appends the result to dst, or says ok=false for NULL.
func mapJSONB(v jsonb.View, f func(m jsonb.Value, dst []byte) ([]byte, bool)) arrow.Array {
	n := v.Len()
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	bld.Reserve(n)
	var buf []byte
	for i := 0; i < n; i++ {
		m, ok := v.Row(i)
		if !ok {
			bld.AppendNull()
			continue
		}
		out, ok := f(m, buf[:0])
		if !ok {
			bld.AppendNull()
			continue
		}
		bld.BinaryBuilder.Append(out)
		buf = out
	}
	return bld.NewArray()
}

// testJSONB builds a boolean column of a test on each non-NULL row.
func testJSONB(v jsonb.View, f func(m jsonb.Value) bool) arrow.Array {
	n := v.Len()
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		if m, ok := v.Row(i); ok {
			bld.UnsafeAppend(f(m))
		} else {
			bld.UnsafeAppendBoolToBitmap(false)
		}
	}
	return bld.NewArray()
}

// found writes a located member as -> (the jsonb value) or ->> (its text).
func found(m jsonb.Value, ok bool, dst []byte, asText bool) ([]byte, bool) {
	switch {
	case !ok:
		return dst, false
	case asText:
		return m.AppendScalarText(dst)
	}
	return m.AppendText(dst), true
}

// jsonbArrowVec is -> / ->> on jsonb with a constant key or index.
func jsonbArrowVec(asText, byIndex bool) VecFunc {
	return func(_ *Ctx, args []Expr, vals []arrow.Array, _ int) (arrow.Array, error) {
		v, ok := jsonbArg(args, vals)
		c, cok := constArgs(args, 1)
		if !ok || !cok {
			return nil, nil
		}
		key, idx := c[0].S, c[0].I
		return mapJSONB(v, func(m jsonb.Value, dst []byte) ([]byte, bool) {
			if !byIndex {
				m, ok := m.Key(key)
				return found(m, ok, dst, asText)
			}
			// A jsonb scalar indexes as a one-element array.
			if k := m.Kind(); k != jsonb.Array && k != jsonb.Object {
				return found(m, idx == 0 || idx == -1, dst, asText)
			}
			e, ok := m.Index(idx)
			return found(e, ok, dst, asText)
		}), nil
	}
}

// jsonbPathVec follows a constant path (NULL steps find nothing).
func jsonbPathVec(v jsonb.View, path []*string, asText bool) arrow.Array {
	return mapJSONB(v, func(m jsonb.Value, dst []byte) ([]byte, bool) {
		for _, p := range path {
			if p == nil {
				return dst, false
			}
			var ok bool
			if m, ok = m.Step(*p); !ok {
				return dst, false
			}
		}
		return found(m, true, dst, asText)
	})
}

// jsonbPathOpVec is #> / #>> with a constant text[] path.
func jsonbPathOpVec(asText bool) VecFunc {
	return func(_ *Ctx, args []Expr, vals []arrow.Array, _ int) (arrow.Array, error) {
		v, ok := jsonbArg(args, vals)
		c, cok := constArgs(args, 1)
		if !ok || !cok {
			return nil, nil
		}
		path, err := ParseTextArray(c[0].S)
		if err != nil {
			return nil, err
		}
		return jsonbPathVec(v, path, asText), nil
	}
}

// jsonbExtractPathVec is jsonb_extract_path(_text) with constant steps.
func jsonbExtractPathVec(asText bool) VecFunc {
	return func(_ *Ctx, args []Expr, vals []arrow.Array, _ int) (arrow.Array, error) {
		v, ok := jsonbArg(args, vals)
		if !ok {
			return nil, nil
		}
		path := make([]*string, 0, len(args)-1)
		for _, a := range args[1:] {
			d, ok := IsConst(a)
			if !ok {
				return nil, nil
			}
			if d.Null {
				path = append(path, nil)
				continue
			}
			s := d.S
			path = append(path, &s)
		}
		return jsonbPathVec(v, path, asText), nil
	}
}

// jsonbHasKey is ?'s test on the binary form (see hasKey).
func jsonbHasKey(m jsonb.Value, k string) bool {
	switch m.Kind() {
	case jsonb.Object:
		_, ok := m.Key(k)
		return ok
	case jsonb.Array:
		for i, n := 0, m.Len(); i < n; i++ {
			if e := m.Elem(i); e.Kind() == jsonb.String && string(e.Payload()) == k {
				return true
			}
		}
		return false
	case jsonb.String:
		return string(m.Payload()) == k
	}
	return false
}

// jsonbExistsVec is ? with a constant key.
func jsonbExistsVec(_ *Ctx, args []Expr, vals []arrow.Array, _ int) (arrow.Array, error) {
	v, ok := jsonbArg(args, vals)
	c, cok := constArgs(args, 1)
	if !ok || !cok {
		return nil, nil
	}
	return testJSONB(v, func(m jsonb.Value) bool { return jsonbHasKey(m, c[0].S) }), nil
}

// jsonbExistsAnyAllVec is ?| / ?& with a constant key array.
func jsonbExistsAnyAllVec(all bool) VecFunc {
	return func(_ *Ctx, args []Expr, vals []arrow.Array, _ int) (arrow.Array, error) {
		v, ok := jsonbArg(args, vals)
		c, cok := constArgs(args, 1)
		if !ok || !cok {
			return nil, nil
		}
		keys, err := ParseTextArray(c[0].S)
		if err != nil {
			return nil, err
		}
		return testJSONB(v, func(m jsonb.Value) bool {
			for _, k := range keys {
				if k != nil && jsonbHasKey(m, *k) != all {
					return !all
				}
			}
			return all
		}), nil
	}
}

// jsonbContainsVec is @> (or, flipped, <@) with one side a jsonb column
// and the other a constant, encoded once.
func jsonbContainsVec(flip bool) VecFunc {
	return func(_ *Ctx, args []Expr, vals []arrow.Array, _ int) (arrow.Array, error) {
		v, ok := jsonbArg(args, vals)
		c, cok := constArgs(args, 1)
		if !ok || !cok || args[1].Type().Kind != types.JSONB {
			return nil, nil
		}
		b, err := jsonb.Encode(nil, c[0].S)
		if err != nil {
			return nil, nil
		}
		other := jsonb.Value(b)
		return testJSONB(v, func(m jsonb.Value) bool {
			if flip {
				return jsonbContains(other, m, true)
			}
			return jsonbContains(m, other, true)
		}), nil
	}
}

func isContainer(v jsonb.Value) bool { k := v.Kind(); return k == jsonb.Object || k == jsonb.Array }

// jsonbContains is jsonContains on the binary form.
func jsonbContains(a, b jsonb.Value, top bool) bool {
	ak, bk := a.Kind(), b.Kind()
	switch {
	case ak == jsonb.Object && bk == jsonb.Object:
		for i, n := 0, b.Len(); i < n; i++ {
			k, bv := b.Member(i)
			m, ok := a.Key(string(k))
			if !ok || !jsonbContains(m, bv, false) {
				return false
			}
		}
		return true
	case ak == jsonb.Array && bk == jsonb.Array:
		for i, n := 0, b.Len(); i < n; i++ {
			bv := b.Elem(i)
			found := false
			for j, an := 0, a.Len(); j < an && !found; j++ {
				av := a.Elem(j)
				found = isContainer(av) == isContainer(bv) && jsonbContains(av, bv, false)
			}
			if !found {
				return false
			}
		}
		return true
	case ak == jsonb.Array && top && !isContainer(b):
		for j, an := 0, a.Len(); j < an; j++ {
			if jsonbContains(a.Elem(j), b, false) {
				return true
			}
		}
		return false
	case ak != bk:
		return false
	case ak == jsonb.String:
		return bytes.Equal(a.Payload(), b.Payload())
	case ak == jsonb.Number:
		return compareJSONBNumbers(a, b) == 0
	case isContainer(a):
		return false
	}
	return true
}

// compareJSONBNumbers compares two numbers; equal text is equal value.
func compareJSONBNumbers(a, b jsonb.Value) int {
	x, y := a.Payload(), b.Payload()
	if bytes.Equal(x, y) {
		return 0
	}
	return CompareNumericText(string(x), string(y))
}

func jsonbTypeofVec(_ *Ctx, args []Expr, vals []arrow.Array, _ int) (arrow.Array, error) {
	v, ok := jsonbArg(args, vals)
	if !ok {
		return nil, nil
	}
	return mapJSONB(v, func(m jsonb.Value, dst []byte) ([]byte, bool) {
		return append(dst, m.TypeName()...), true
	}), nil
}

// jsonbKindRank orders kinds as jsonbRank does.
var jsonbKindRank = [...]int{jsonb.Null: 0, jsonb.String: 1, jsonb.Number: 2, jsonb.False: 3, jsonb.True: 3, jsonb.Array: 4, jsonb.Object: 5}

// CompareJSONBBinary orders two top-level values as CompareJSONBValues.
func CompareJSONBBinary(x, y jsonb.Value) int {
	ex, ey := x.Kind() == jsonb.Array && x.Len() == 0, y.Kind() == jsonb.Array && y.Len() == 0
	if ex != ey {
		if ex {
			return -1
		}
		return 1
	}
	return compareJSONBBinary(x, y)
}

func compareJSONBBinary(x, y jsonb.Value) int {
	xk, yk := x.Kind(), y.Kind()
	if rx, ry := jsonbKindRank[xk], jsonbKindRank[yk]; rx != ry {
		return cmpInt(rx, ry)
	}
	switch xk {
	case jsonb.String:
		return bytes.Compare(x.Payload(), y.Payload())
	case jsonb.Number:
		return compareJSONBNumbers(x, y)
	case jsonb.True, jsonb.False:
		return cmpInt(int(xk), int(yk))
	case jsonb.Array, jsonb.Object:
		n := x.Len()
		if m := y.Len(); n != m {
			return cmpInt(n, m)
		}
		for i := 0; i < n; i++ {
			var xv, yv jsonb.Value
			if xk == jsonb.Object {
				var xkey, ykey []byte
				xkey, xv = x.Member(i)
				ykey, yv = y.Member(i)
				if c := strings.Compare(string(xkey), string(ykey)); c != 0 {
					return c
				}
			} else {
				xv, yv = x.Elem(i), y.Elem(i)
			}
			if c := compareJSONBBinary(xv, yv); c != 0 {
				return c
			}
		}
	}
	return 0
}

// compareJSONBArrays compares two jsonb columns row by row through their
// binary forms; ok is false when either is not viewable.
func compareJSONBArrays(op CmpOp, l, r arrow.Array, out []bool) bool {
	lv, ok1 := jsonb.ViewOf(l)
	rv, ok2 := jsonb.ViewOf(r)
	if !ok1 || !ok2 || lv.Bad() || rv.Bad() {
		return false
	}
	for i := range out {
		x, ok1 := lv.Row(i)
		y, ok2 := rv.Row(i)
		if ok1 && ok2 {
			out[i] = op.holds(CompareJSONBBinary(x, y))
		}
	}
	return true
}
