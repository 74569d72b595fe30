package jsonb

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// Value is one encoded value, exactly its bytes. The accessors trust the
// bytes to be well formed: Encode's output, or bytes Check accepted.
type Value []byte

// Kind is the value's tag.
func (v Value) Kind() byte { return v[0] }

// Payload is a string's decoded bytes or a number's text.
func (v Value) Payload() []byte {
	n, w := binary.Uvarint(v[1:])
	return v[1+w : 1+w+int(n)]
}

// count is a container's number of elements or members.
func (v Value) count() int { return int(binary.LittleEndian.Uint32(v[1:])) }

// Len is the number of elements or members of a container, 0 otherwise.
func (v Value) Len() int {
	if k := v.Kind(); k != Array && k != Object {
		return 0
	}
	return v.count()
}

// base is where a container's elements or values start.
const base = 5

func end(v Value, table, i int) int {
	if i < 0 {
		return 0
	}
	return int(binary.LittleEndian.Uint32(v[table+4*i:]))
}

// Elem is array element i (0 ≤ i < Len).
func (v Value) Elem(i int) Value {
	table := len(v) - 4*v.count()
	return v[base+end(v, table, i-1) : base+end(v, table, i)]
}

// objectTables locates an object's key ends, value ends and key area.
func (v Value) objectTables(n int) (kt, vt, keys int) {
	vt = len(v) - 4*n
	kt = vt - 4*n
	return kt, vt, kt - end(v, kt, n-1)
}

// Member is object member i in storage order: its key and value.
func (v Value) Member(i int) ([]byte, Value) {
	kt, vt, keys := v.objectTables(v.count())
	return v[keys+end(v, kt, i-1) : keys+end(v, kt, i)], v[base+end(v, vt, i-1) : base+end(v, vt, i)]
}

// Key finds an object's member named k by binary search over the sorted
// keys; ok is false for a non-object or a missing key.
func (v Value) Key(k string) (Value, bool) {
	if v.Kind() != Object {
		return nil, false
	}
	n := v.count()
	kt, vt, keys := v.objectTables(n)
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		mk := v[keys+end(v, kt, m-1) : keys+end(v, kt, m)]
		if keyCmp(mk, k) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < n && string(v[keys+end(v, kt, lo-1):keys+end(v, kt, lo)]) == k {
		return v[base+end(v, vt, lo-1) : base+end(v, vt, lo)], true
	}
	return nil, false
}

func keyCmp(a []byte, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	switch s := string(a); {
	case s < b:
		return -1
	case s > b:
		return 1
	}
	return 0
}

// Index is an array's element i, negative counting from the end.
func (v Value) Index(i int64) (Value, bool) {
	if v.Kind() != Array {
		return nil, false
	}
	n := int64(v.Len())
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil, false
	}
	return v.Elem(int(i)), true
}

// Step follows one #> path step: a key of an object, or an integer
// (surrounding blanks allowed) indexing an array.
func (v Value) Step(p string) (Value, bool) {
	switch v.Kind() {
	case Object:
		return v.Key(p)
	case Array:
		n, err := strconv.ParseInt(trimBlanks(p), 10, 64)
		if err != nil {
			return nil, false
		}
		return v.Index(n)
	}
	return nil, false
}

func trimBlanks(s string) string {
	isBlank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	for len(s) > 0 && isBlank(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isBlank(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// TypeName is jsonb_typeof's answer.
func (v Value) TypeName() string {
	return [...]string{"null", "boolean", "boolean", "string", "number", "array", "object"}[v.Kind()]
}

// AppendText appends the value as jsonb's output function prints it.
func (v Value) AppendText(dst []byte) []byte {
	switch v.Kind() {
	case Null:
		return append(dst, "null"...)
	case False:
		return append(dst, "false"...)
	case True:
		return append(dst, "true"...)
	case String:
		return AppendQuoted(dst, v.Payload())
	case Number:
		return append(dst, v.Payload()...)
	case Array:
		dst = append(dst, '[')
		for i, n := 0, v.Len(); i < n; i++ {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = v.Elem(i).AppendText(dst)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, n := 0, v.Len(); i < n; i++ {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		k, m := v.Member(i)
		dst = AppendQuoted(dst, k)
		dst = append(dst, ": "...)
		dst = m.AppendText(dst)
	}
	return append(dst, '}')
}

// AppendScalarText appends ->>'s text of a value: a string unquoted,
// anything else as jsonb prints it; null is ok=false (SQL NULL).
func (v Value) AppendScalarText(dst []byte) ([]byte, bool) {
	switch v.Kind() {
	case Null:
		return dst, false
	case String:
		return append(dst, v.Payload()...), true
	}
	return v.AppendText(dst), true
}

// AppendQuoted appends s quoted and escaped as PostgreSQL's escape_json
// does (types.AppendJSONString on bytes).
func AppendQuoted(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		switch {
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\b':
			dst = append(dst, `\b`...)
		case r == '\f':
			dst = append(dst, `\f`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20:
			dst = append(dst, `\u00`...)
			dst = append(dst, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}
