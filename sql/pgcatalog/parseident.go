package pgcatalog

import (
	"strings"

	"github.com/loamdb/loam/pgerr"
)

// parseIdent splits a qualified SQL identifier as parse_ident does:
// unquoted parts are lower-cased, quoted ones kept with "" undoubled. Not
// strict, text after the last identifier is ignored.
func parseIdent(s string, strict bool) ([]string, error) {
	bad := func(detail string) error {
		e := pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
		e.Detail = detail
		return e
	}
	var parts []string
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		if i >= len(s) {
			if len(parts) == 0 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
			}
			return nil, bad("No valid identifier after \".\".")
		}
		if s[i] == '"' {
			var b strings.Builder
			i++
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, bad("String has unclosed double quotes.")
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			if b.Len() == 0 {
				return nil, bad("Quoted identifier must not be empty.")
			}
			parts = append(parts, b.String())
		} else {
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' && j > i || s[j] >= 0x80) {
				j++
			}
			if j == i {
				if len(parts) == 0 {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
				}
				return nil, bad("No valid identifier after \".\".")
			}
			parts = append(parts, strings.ToLower(s[i:j]))
			i = j
		}
		skip()
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		if i < len(s) && strict {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
		}
		return parts, nil
	}
}
