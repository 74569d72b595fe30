package types

import (
	"strings"
	"sync"

	"github.com/loamdb/loam/pgerr"
)

// Field is one named field of a record type.
type Field struct {
	Name string
	T    T
}

// recordShapes interns the field lists of record types, so that a T (a
// comparable value) can name its fields by index in T.Width.
var recordShapes struct {
	sync.Mutex
	list  [][]Field
	index map[string]int
}

// RecordOf is the record type with these fields. Equal field lists give
// equal types.
func RecordOf(fields ...Field) T {
	var key strings.Builder
	for _, f := range fields {
		key.WriteString(f.Name)
		key.WriteByte(0)
		key.WriteString(f.T.String())
		key.WriteByte(0)
	}
	recordShapes.Lock()
	defer recordShapes.Unlock()
	if recordShapes.index == nil {
		recordShapes.index = map[string]int{}
	}
	i, ok := recordShapes.index[key.String()]
	if !ok {
		i = len(recordShapes.list)
		recordShapes.list = append(recordShapes.list, append([]Field(nil), fields...))
		recordShapes.index[key.String()] = i
	}
	return T{Kind: Record, Width: int32(i)}
}

// RecordFields are the fields of a record type; nil for an anonymous
// record (Width -1) or another type.
func RecordFields(t T) []Field {
	if t.Kind != Record || t.Width < 0 {
		return nil
	}
	recordShapes.Lock()
	defer recordShapes.Unlock()
	return recordShapes.list[t.Width]
}

// FormatRecord writes a record's text form as record_out does: NULL
// fields empty, and fields quoted when empty or holding parentheses,
// quotes, commas, backslashes or white space.
func FormatRecord(vals []string, null []bool) string {
	buf := []byte{'('}
	for i, s := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		if null[i] {
			continue
		}
		quote := s == ""
		for k := 0; k < len(s) && !quote; k++ {
			switch s[k] {
			case '(', ')', '"', ',', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
				quote = true
			}
		}
		if !quote {
			buf = append(buf, s...)
			continue
		}
		buf = append(buf, '"')
		for k := 0; k < len(s); k++ {
			if s[k] == '"' || s[k] == '\\' {
				buf = append(buf, s[k])
			}
			buf = append(buf, s[k])
		}
		buf = append(buf, '"')
	}
	return string(append(buf, ')'))
}

// SplitRecordText reads a record's text form back into its fields, as
// record_in does; null[i] marks an empty unquoted field.
func SplitRecordText(s string) (vals []string, null []bool, err error) {
	bad := func() ([]string, []bool, error) {
		return nil, nil, pgerr.New(pgerr.InvalidTextRepresentation, "malformed record literal: %q", s)
	}
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return bad()
	}
	in := s[1 : len(s)-1]
	for i := 0; ; {
		var cur []byte
		quotedAny := false
		for i < len(in) && in[i] != ',' {
			switch c := in[i]; {
			case c == '"':
				quotedAny = true
				i++
				for {
					if i >= len(in) {
						return bad()
					}
					if in[i] == '"' {
						if i+1 < len(in) && in[i+1] == '"' {
							cur = append(cur, '"')
							i += 2
							continue
						}
						i++
						break
					}
					if in[i] == '\\' && i+1 < len(in) {
						i++
					}
					cur = append(cur, in[i])
					i++
				}
			case c == '\\' && i+1 < len(in):
				cur = append(cur, in[i+1])
				i += 2
			default:
				cur = append(cur, c)
				i++
			}
		}
		vals = append(vals, string(cur))
		null = append(null, !quotedAny && len(cur) == 0)
		if i >= len(in) {
			return vals, null, nil
		}
		i++ // the comma
	}
}
