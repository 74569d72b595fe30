package types

import "strings"

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
