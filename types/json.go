package types

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/loamdb/loam/pgerr"
)

// JSONValue is a parsed json/jsonb value that remembers its source text,
// since json operators return the original text and jsonb its normal form.
type JSONValue struct {
	Kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	Raw  string // the value's text as written
	Str  string // decoded string, for 's'
	Keys []string
	Vals []*JSONValue // object members (parallel to Keys) or array elements
}

func badJSON(s string) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type json")
}

// ParseJSON parses JSON text; the error is PostgreSQL's for bad json input.
func ParseJSON(s string) (*JSONValue, error) {
	p := jsonParser{s: s}
	p.ws()
	v, ok := p.value(0)
	if !ok {
		return nil, badJSON(s)
	}
	p.ws()
	if p.i != len(s) {
		return nil, badJSON(s)
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*JSONValue, bool) {
	if p.i >= len(p.s) || depth > 6400 {
		return nil, false
	}
	start := p.i
	v := &JSONValue{}
	switch c := p.s[p.i]; {
	case c == '{':
		v.Kind = 'o'
		p.i++
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			break
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, false
			}
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, false
			}
			p.i++
			p.ws()
			m, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			v.Keys, v.Vals = append(v.Keys, k), append(v.Vals, m)
			p.ws()
			if p.i >= len(p.s) {
				return nil, false
			}
			if p.s[p.i] == '}' {
				p.i++
				break
			}
			if p.s[p.i] != ',' {
				return nil, false
			}
			p.i++
		}
	case c == '[':
		v.Kind = 'a'
		p.i++
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			break
		}
		for {
			p.ws()
			m, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			v.Vals = append(v.Vals, m)
			p.ws()
			if p.i >= len(p.s) {
				return nil, false
			}
			if p.s[p.i] == ']' {
				p.i++
				break
			}
			if p.s[p.i] != ',' {
				return nil, false
			}
			p.i++
		}
	case c == '"':
		v.Kind = 's'
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		v.Str = s
	case c == '-' || c >= '0' && c <= '9':
		v.Kind = 'n'
		if !p.number() {
			return nil, false
		}
	case strings.HasPrefix(p.s[p.i:], "true"):
		v.Kind = 't'
		p.i += 4
	case strings.HasPrefix(p.s[p.i:], "false"):
		v.Kind = 'f'
		p.i += 5
	case strings.HasPrefix(p.s[p.i:], "null"):
		v.Kind = 'z'
		p.i += 4
	default:
		return nil, false
	}
	v.Raw = p.s[start:p.i]
	return v, true
}

func (p *jsonParser) number() bool {
	end, ok := JSONNumberEnd(p.s, p.i)
	if ok {
		p.i = end
	}
	return ok
}

// JSONNumberEnd is the end of the JSON number at s[i:], or false when
// none starts there.
func JSONNumberEnd(s string, i int) (int, bool) {
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
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	return i, true
}

// str reads a quoted string at p.i, decoding escapes.
func (p *jsonParser) str() (string, bool) {
	buf, end, ok := AppendJSONUnquoted(nil, p.s, p.i+1)
	if !ok {
		return "", false
	}
	p.i = end
	// buf is this string's own: no copy needed.
	return unsafe.String(unsafe.SliceData(buf), len(buf)), true
}

// AppendJSONUnquoted appends to buf the JSON string whose text (after its
// opening quote) starts at s[i:], escapes decoded, and returns where it
// ends (after its closing quote); false when it is not a valid string.
func AppendJSONUnquoted(buf []byte, s string, i int) ([]byte, int, bool) {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return buf, i + 1, true
		case c < 0x20:
			return buf, 0, false
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return buf, 0, false
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
				return buf, 0, false
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return buf, 0, false
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
			return buf, 0, false
		}
		i++
	}
	return buf, 0, false
}

// AppendJSONString appends s quoted and escaped as PostgreSQL's
// escape_json does.
func AppendJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
}

// Normalize turns a parsed value into jsonb's form: duplicate keys keep
// the last value, keys sort by length then bytes, numbers are numeric.
func (v *JSONValue) Normalize() {
	switch v.Kind {
	case 'o':
		last := map[string]int{}
		for i, k := range v.Keys {
			last[k] = i
		}
		keys, vals := v.Keys[:0:0], v.Vals[:0:0]
		for i, k := range v.Keys {
			if last[k] == i {
				v.Vals[i].Normalize()
				keys, vals = append(keys, k), append(vals, v.Vals[i])
			}
		}
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ka, kb := keys[idx[a]], keys[idx[b]]
			if len(ka) != len(kb) {
				return len(ka) < len(kb)
			}
			return ka < kb
		})
		v.Keys, v.Vals = make([]string, len(idx)), make([]*JSONValue, len(idx))
		for i, j := range idx {
			v.Keys[i], v.Vals[i] = keys[j], vals[j]
		}
	case 'a':
		for _, m := range v.Vals {
			m.Normalize()
		}
	}
}

// JSONB prints a normalized value as jsonb's output function does.
func (v *JSONValue) JSONB() string {
	var b strings.Builder
	v.appendJSONB(&b)
	return b.String()
}

func (v *JSONValue) appendJSONB(b *strings.Builder) {
	switch v.Kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			AppendJSONString(b, k)
			b.WriteString(": ")
			v.Vals[i].appendJSONB(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, m := range v.Vals {
			if i > 0 {
				b.WriteString(", ")
			}
			m.appendJSONB(b)
		}
		b.WriteByte(']')
	case 's':
		AppendJSONString(b, v.Str)
	case 'n':
		d, err := ParseDec(v.Raw)
		if err != nil {
			b.WriteString(v.Raw)
			return
		}
		b.WriteString(d.String())
	default:
		b.WriteString(v.Raw)
	}
}

// NormalizeJSONB parses json text and returns jsonb's output text for it.
func NormalizeJSONB(s string) (string, error) {
	v, err := ParseJSON(s)
	if err != nil {
		return "", err
	}
	v.Normalize()
	return v.JSONB(), nil
}

// skipJSON returns the end of the value starting at s[i] (after leading
// blanks), for text already known to be valid JSON.
func skipJSON(s string, i int) int {
	i = skipBlanks(s, i)
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = skipString(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(s) && !strings.ContainsRune(",}] \t\n\r", rune(s[i])) {
		i++
	}
	return i
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func skipString(s string, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// JSONMember finds the value of the last member named key in the
// top-level object of valid JSON text s without parsing the rest: the
// fast path of -> and ->>. ok is false when s is no object or lacks key.
func JSONMember(s, key string) (raw string, ok bool) {
	i := skipBlanks(s, 0)
	if i >= len(s) || s[i] != '{' {
		return "", false
	}
	i++
	for {
		i = skipBlanks(s, i)
		if i >= len(s) || s[i] != '"' {
			return raw, ok
		}
		kend := skipString(s, i)
		k := s[i+1 : kend-1]
		if strings.IndexByte(k, '\\') >= 0 {
			p := jsonParser{s: s, i: i}
			k, _ = p.str()
		}
		i = skipBlanks(s, kend)
		i = skipBlanks(s, i+1) // the colon
		vend := skipJSON(s, i)
		if k == key {
			raw, ok = s[i:vend], true
		}
		i = skipBlanks(s, vend)
		if i >= len(s) || s[i] != ',' {
			return raw, ok
		}
		i++
	}
}

// JSONElement finds element n (negative counts from the end) of the
// top-level array of valid JSON text s.
func JSONElement(s string, n int64) (raw string, ok bool) {
	i := skipBlanks(s, 0)
	if i >= len(s) || s[i] != '[' {
		return "", false
	}
	var spans [][2]int
	i = skipBlanks(s, i+1)
	if i < len(s) && s[i] == ']' {
		return "", false
	}
	for i < len(s) {
		i = skipBlanks(s, i)
		end := skipJSON(s, i)
		if n >= 0 && int64(len(spans)) == n {
			return s[i:end], true
		}
		spans = append(spans, [2]int{i, end})
		i = skipBlanks(s, end)
		if i >= len(s) || s[i] != ',' {
			break
		}
		i++
	}
	if n < 0 && -n <= int64(len(spans)) {
		sp := spans[int64(len(spans))+n]
		return s[sp[0]:sp[1]], true
	}
	return "", false
}

// JSONScalarText is ->>'s text for a value's raw JSON: a string decoded,
// null as ok=false, anything else as written.
func JSONScalarText(raw string) (string, bool) {
	switch {
	case raw == "null":
		return "", false
	case len(raw) > 0 && raw[0] == '"':
		if strings.IndexByte(raw, '\\') < 0 {
			return raw[1 : len(raw)-1], true
		}
		p := jsonParser{s: raw}
		s, _ := p.str()
		return s, true
	}
	return raw, true
}
