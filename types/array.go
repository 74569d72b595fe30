package types

import (
	"strings"

	"github.com/loamdb/loam/pgerr"
)

// AppendArrayElem appends one element of an array's text form, quoted as
// array_out quotes: when empty, "NULL", or holding braces, quotes, commas,
// backslashes or white space.
func AppendArrayElem(buf []byte, s string) []byte {
	quote := s == "" || strings.EqualFold(s, "NULL")
	for i := 0; i < len(s) && !quote; i++ {
		switch s[i] {
		case '{', '}', '"', ',', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
			quote = true
		}
	}
	if !quote {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			buf = append(buf, '\\')
		}
		buf = append(buf, s[i])
	}
	return append(buf, '"')
}

// SplitArrayText reads a one-dimensional array's text form ({a,"b c",NULL})
// back into its elements; null[i] marks an unquoted NULL.
func SplitArrayText(s string) (elems []string, null []bool, err error) {
	bad := func() ([]string, []bool, error) {
		return nil, nil, pgerr.New(pgerr.InvalidTextRepresentation, "malformed array literal: %q", s)
	}
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return bad()
	}
	in := s[1 : len(s)-1]
	if strings.TrimSpace(in) == "" {
		return nil, nil, nil
	}
	var cur []byte
	for i := 0; ; {
		for i < len(in) && in[i] == ' ' {
			i++
		}
		cur = cur[:0]
		quoted := i < len(in) && in[i] == '"'
		if quoted {
			i++
			for ; i < len(in) && in[i] != '"'; i++ {
				if in[i] == '\\' && i+1 < len(in) {
					i++
				}
				cur = append(cur, in[i])
			}
			if i >= len(in) {
				return bad()
			}
			i++ // closing quote
			for i < len(in) && in[i] == ' ' {
				i++
			}
		} else {
			for ; i < len(in) && in[i] != ','; i++ {
				if in[i] == '\\' && i+1 < len(in) {
					i++
				}
				cur = append(cur, in[i])
			}
			cur = []byte(strings.TrimRight(string(cur), " "))
		}
		elems = append(elems, string(cur))
		null = append(null, !quoted && strings.EqualFold(string(cur), "NULL"))
		if i >= len(in) {
			return elems, null, nil
		}
		if in[i] != ',' {
			return bad()
		}
		i++
	}
}
