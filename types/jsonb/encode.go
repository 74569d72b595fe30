// Package jsonb holds jsonb's binary form: a value parsed once into bytes
// whose containers carry offset tables, so that a key lookup is a binary
// search and an element lookup an index, with nothing decoded on the way.
//
// A value is a tag byte, then:
//
//	null, false, true   nothing
//	string, number      uvarint length, bytes (a string decoded, a number
//	                    as jsonb prints it, so precision is the text's)
//	array               uvarint n, n uint32 element ends, elements
//	object              uvarint n, n uint32 key ends, n uint32 value ends,
//	                    keys, values
//
// Ends are little-endian and relative to the start of their area. Object
// keys are unique and sorted as jsonb stores them (by length, then bytes),
// so the form is jsonb's normal form and prints as jsonb does.
package jsonb

import (
	"encoding/binary"
	"errors"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/loamdb/loam/types"
)

// Tags of the value kinds.
const (
	Null byte = iota
	False
	True
	String
	Number
	Array
	Object
)

// maxDepth bounds nesting as the text parser does.
const maxDepth = 6400

var errSyntax = errors.New("invalid json")

// Encode parses JSON text into the binary form, appending to dst. It
// fails where types.ParseJSON fails.
func Encode(dst []byte, s string) ([]byte, error) {
	e := encoder{s: s}
	e.ws()
	out, ok := e.value(dst, 0)
	if !ok {
		return dst, errSyntax
	}
	e.ws()
	if e.i != len(s) {
		return dst, errSyntax
	}
	return out, nil
}

type encoder struct {
	s string
	i int
}

func (e *encoder) ws() {
	for e.i < len(e.s) {
		switch e.s[e.i] {
		case ' ', '\t', '\n', '\r':
			e.i++
		default:
			return
		}
	}
}

func (e *encoder) lit(word string) bool {
	if len(e.s)-e.i >= len(word) && e.s[e.i:e.i+len(word)] == word {
		e.i += len(word)
		return true
	}
	return false
}

func (e *encoder) value(dst []byte, depth int) ([]byte, bool) {
	if e.i >= len(e.s) || depth > maxDepth {
		return dst, false
	}
	switch c := e.s[e.i]; {
	case c == '{':
		return e.object(dst, depth)
	case c == '[':
		return e.array(dst, depth)
	case c == '"':
		start := len(dst)
		dst = append(dst, String)
		str, ok := e.str(nil)
		if !ok {
			return dst[:start], false
		}
		return appendBytes(dst, str), true
	case c == '-' || c >= '0' && c <= '9':
		start := e.i
		if !e.number() {
			return dst, false
		}
		return appendNumber(dst, e.s[start:e.i])
	case e.lit("true"):
		return append(dst, True), true
	case e.lit("false"):
		return append(dst, False), true
	case e.lit("null"):
		return append(dst, Null), true
	}
	return dst, false
}

// appendNumber stores a number as jsonb prints it: numeric's text, which
// keeps every digit and the scale (1.0 stays 1.0, 1e2 becomes 100).
func appendNumber(dst []byte, raw string) ([]byte, bool) {
	if isPlainInt(raw) {
		dst = append(dst, Number)
		return appendBytes(dst, raw), true
	}
	dst = append(dst, Number)
	d, err := types.ParseDec(raw)
	if err != nil {
		// Beyond numeric's range: kept as written, as the text path does.
		return appendBytes(dst, raw), true
	}
	return appendBytes(dst, d.String()), true
}

// isPlainInt reports an integer already in numeric's output form, the
// common case, which needs no decimal arithmetic.
func isPlainInt(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
		if s == "0" {
			return false // -0 prints as 0
		}
	}
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func appendBytes[T string | []byte](dst []byte, b T) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func (e *encoder) array(dst []byte, depth int) ([]byte, bool) {
	e.i++
	var elems []byte
	var ends []uint32
	e.ws()
	if e.i < len(e.s) && e.s[e.i] == ']' {
		e.i++
	} else {
		for {
			e.ws()
			var ok bool
			if elems, ok = e.value(elems, depth+1); !ok {
				return dst, false
			}
			ends = append(ends, uint32(len(elems)))
			e.ws()
			if e.i >= len(e.s) {
				return dst, false
			}
			if e.s[e.i] == ']' {
				e.i++
				break
			}
			if e.s[e.i] != ',' {
				return dst, false
			}
			e.i++
		}
	}
	dst = append(dst, Array)
	dst = binary.AppendUvarint(dst, uint64(len(ends)))
	for _, end := range ends {
		dst = binary.LittleEndian.AppendUint32(dst, end)
	}
	return append(dst, elems...), true
}

// member is one parsed object member: its key, and its value's span in
// the scratch area.
type member struct {
	key        string
	start, end int
}

func (e *encoder) object(dst []byte, depth int) ([]byte, bool) {
	e.i++
	var vals []byte
	var ms []member
	e.ws()
	if e.i < len(e.s) && e.s[e.i] == '}' {
		e.i++
	} else {
		for {
			e.ws()
			if e.i >= len(e.s) || e.s[e.i] != '"' {
				return dst, false
			}
			k, ok := e.str(nil)
			if !ok {
				return dst, false
			}
			e.ws()
			if e.i >= len(e.s) || e.s[e.i] != ':' {
				return dst, false
			}
			e.i++
			e.ws()
			start := len(vals)
			if vals, ok = e.value(vals, depth+1); !ok {
				return dst, false
			}
			ms = append(ms, member{string(k), start, len(vals)})
			e.ws()
			if e.i >= len(e.s) {
				return dst, false
			}
			if e.s[e.i] == '}' {
				e.i++
				break
			}
			if e.s[e.i] != ',' {
				return dst, false
			}
			e.i++
		}
	}
	ms = normalMembers(ms)
	dst = append(dst, Object)
	dst = binary.AppendUvarint(dst, uint64(len(ms)))
	var end uint32
	for _, m := range ms {
		end += uint32(len(m.key))
		dst = binary.LittleEndian.AppendUint32(dst, end)
	}
	end = 0
	for _, m := range ms {
		end += uint32(m.end - m.start)
		dst = binary.LittleEndian.AppendUint32(dst, end)
	}
	for _, m := range ms {
		dst = append(dst, m.key...)
	}
	for _, m := range ms {
		dst = append(dst, vals[m.start:m.end]...)
	}
	return dst, true
}

// normalMembers sorts members as jsonb stores them, keeping the last of
// duplicate keys (a stable sort keeps duplicates in input order).
func normalMembers(ms []member) []member {
	sort.SliceStable(ms, func(a, b int) bool { return KeyLess(ms[a].key, ms[b].key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue
		}
		out = append(out, m)
	}
	return out
}

// KeyLess is jsonb's key order: shorter keys first, then bytewise.
func KeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

func (e *encoder) number() bool {
	s, i := e.s, e.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	e.i = i
	return true
}

// str reads the quoted string at e.i, decoding escapes into buf as
// types.ParseJSON does.
func (e *encoder) str(buf []byte) ([]byte, bool) {
	s := e.s
	i := e.i + 1
	// The common string has no escape: take it whole.
	j := i
	for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20 {
		j++
	}
	if j < len(s) && s[j] == '"' {
		e.i = j + 1
		return append(buf, s[i:j]...), true
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			e.i = i + 1
			return buf, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return nil, false
		}
		i++
		switch s[i] {
		case '"', '\\', '/':
			buf = append(buf, s[i])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			if i+5 > len(s) {
				return nil, false
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return nil, false
			}
			i += 4
			if utf16.IsSurrogate(rune(r)) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, err := strconv.ParseUint(s[i+3:i+7], 16, 32); err == nil {
					r = uint64(utf16.DecodeRune(rune(r), rune(r2)))
					i += 6
				}
			}
			buf = utf8.AppendRune(buf, rune(r))
		default:
			return nil, false
		}
		i++
	}
	return nil, false
}
