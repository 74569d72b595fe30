// Package jsonb holds jsonb's binary form: a value parsed once into bytes
// whose containers carry offset tables, so that a key lookup is a binary
// search and an element lookup an index, with nothing decoded on the way.
//
// A value is a tag byte, then:
//
//	null, false, true   nothing
//	string, number      uvarint length, bytes (a string decoded, a number
//	                    as jsonb prints it, so precision is the text's)
//	array               uint32 n, elements, n uint32 element ends
//	object              uint32 n, values, keys, n uint32 key ends,
//	                    n uint32 value ends
//
// Numbers are little-endian; ends are relative to the start of their area
// (values and elements start after n, keys after the values). The tables
// come last so that a container is written as it is parsed, its members
// straight into place. Object keys are unique and sorted as jsonb stores
// them (by length, then bytes), so the form is jsonb's normal form and
// prints as jsonb does.
package jsonb

import (
	"encoding/binary"
	"errors"
	"slices"
	"unsafe"

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
	var e Encoder
	return e.Encode(dst, s)
}

// Encoder is Encode with scratch kept from one value to the next: encode
// many rows through one.
type Encoder struct{ e encoder }

// Encode is the package's Encode.
func (x *Encoder) Encode(dst []byte, s string) ([]byte, error) {
	e := &x.e
	e.s, e.i = s, 0
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
	// Scratch of each nesting level, kept between containers so that
	// encoding a row allocates little.
	areas [][]byte
	ends  [][]uint32
	mems  [][]member
	// strbuf holds the last string with escapes, decoded.
	strbuf []byte
}

// scratch returns level depth's buffers, emptied.
func (e *encoder) scratch(depth int) ([]byte, []uint32, []member) {
	for len(e.areas) <= depth {
		e.areas, e.ends, e.mems = append(e.areas, nil), append(e.ends, nil), append(e.mems, nil)
	}
	return e.areas[depth][:0], e.ends[depth][:0], e.mems[depth][:0]
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
		str, ok := e.str(false)
		if !ok {
			return dst, false
		}
		return appendBytes(append(dst, String), str), true
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
	if isPlain(raw) {
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

// isPlain reports a number (valid JSON) already in numeric's output
// form, the common case, which needs no decimal arithmetic: no exponent,
// and no minus sign on a zero (-0.0 prints as 0.0).
func isPlain(s string) bool {
	nonzero := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			nonzero = true
		}
	}
	return nonzero || s[0] != '-'
}

func appendBytes[T string | []byte](dst []byte, b T) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func (e *encoder) array(dst []byte, depth int) ([]byte, bool) {
	e.i++
	_, ends, _ := e.scratch(depth)
	defer func() { e.ends[depth] = ends }()
	start := len(dst)
	dst = append(dst, Array, 0, 0, 0, 0)
	base := len(dst)
	e.ws()
	if e.i < len(e.s) && e.s[e.i] == ']' {
		e.i++
	} else {
		for {
			e.ws()
			var ok bool
			if dst, ok = e.value(dst, depth+1); !ok {
				return dst[:start], false
			}
			ends = append(ends, uint32(len(dst)-base))
			e.ws()
			if e.i >= len(e.s) {
				return dst[:start], false
			}
			if e.s[e.i] == ']' {
				e.i++
				break
			}
			if e.s[e.i] != ',' {
				return dst[:start], false
			}
			e.i++
		}
	}
	binary.LittleEndian.PutUint32(dst[start+1:], uint32(len(ends)))
	for _, end := range ends {
		dst = binary.LittleEndian.AppendUint32(dst, end)
	}
	return dst, true
}

// member is one parsed object member: its key, and its value's span in
// the value area.
type member struct {
	key        string
	start, end int
}

func (e *encoder) object(dst []byte, depth int) ([]byte, bool) {
	e.i++
	_, _, ms := e.scratch(depth)
	defer func() { e.mems[depth] = ms }()
	start := len(dst)
	dst = append(dst, Object, 0, 0, 0, 0)
	base := len(dst)
	e.ws()
	if e.i < len(e.s) && e.s[e.i] == '}' {
		e.i++
	} else {
		for {
			e.ws()
			if e.i >= len(e.s) || e.s[e.i] != '"' {
				return dst[:start], false
			}
			k, ok := e.str(true)
			if !ok {
				return dst[:start], false
			}
			e.ws()
			if e.i >= len(e.s) || e.s[e.i] != ':' {
				return dst[:start], false
			}
			e.i++
			e.ws()
			vstart := len(dst) - base
			if dst, ok = e.value(dst, depth+1); !ok {
				return dst[:start], false
			}
			ms = append(ms, member{k, vstart, len(dst) - base})
			e.ws()
			if e.i >= len(e.s) {
				return dst[:start], false
			}
			if e.s[e.i] == '}' {
				e.i++
				break
			}
			if e.s[e.i] != ',' {
				return dst[:start], false
			}
			e.i++
		}
	}
	var sorted bool
	if ms, sorted = normalMembers(ms); !sorted {
		dst = e.reorder(dst, base, ms, depth)
	}
	binary.LittleEndian.PutUint32(dst[start+1:], uint32(len(ms)))
	for _, m := range ms {
		dst = append(dst, m.key...)
	}
	var end uint32
	for _, m := range ms {
		end += uint32(len(m.key))
		dst = binary.LittleEndian.AppendUint32(dst, end)
	}
	for _, m := range ms {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(m.end))
	}
	return dst, true
}

// reorder rewrites the value area after base in the members' order (the
// text's keys were out of jsonb's order or repeated) and re-points them.
func (e *encoder) reorder(dst []byte, base int, ms []member, depth int) []byte {
	area, _, _ := e.scratch(depth)
	area = append(area, dst[base:]...)
	e.areas[depth] = area
	dst = dst[:base]
	for i, m := range ms {
		at := len(dst) - base
		dst = append(dst, area[m.start:m.end]...)
		ms[i].start, ms[i].end = at, len(dst)-base
	}
	return dst
}

// normalMembers sorts members as jsonb stores them, keeping the last of
// duplicate keys (a stable sort keeps duplicates in input order); sorted
// reports members that were in order already, as stored jsonb text is.
func normalMembers(ms []member) (_ []member, sorted bool) {
	sorted = true
	for i := 1; i < len(ms) && sorted; i++ {
		sorted = KeyLess(ms[i-1].key, ms[i].key)
	}
	if sorted {
		return ms, true
	}
	slices.SortStableFunc(ms, func(a, b member) int {
		switch {
		case KeyLess(a.key, b.key):
			return -1
		case KeyLess(b.key, a.key):
			return 1
		}
		return 0
	})
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue
		}
		out = append(out, m)
	}
	return out, false
}

// KeyLess is jsonb's key order: shorter keys first, then bytewise.
func KeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

func (e *encoder) number() bool {
	end, ok := types.JSONNumberEnd(e.s, e.i)
	if ok {
		e.i = end
	}
	return ok
}

// str reads the quoted string at e.i, decoding escapes as
// types.ParseJSON does. A decoded string lives in the encoder's scratch
// until the next call unless keep asks for a copy of its own.
func (e *encoder) str(keep bool) (string, bool) {
	s := e.s
	i := e.i + 1
	// The common string has no escape: take it whole.
	j := i
	for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20 {
		j++
	}
	if j < len(s) && s[j] == '"' {
		e.i = j + 1
		return s[i:j], true
	}
	buf, end, ok := types.AppendJSONUnquoted(e.strbuf[:0], s, i)
	e.strbuf = buf
	if !ok {
		return "", false
	}
	e.i = end
	if keep {
		return string(buf), true
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf)), true
}
