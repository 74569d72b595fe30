// Package jsonpath parses and runs SQL/JSON path expressions as
// PostgreSQL 15's jsonb_path_* functions and the @? and @@ operators do:
// lax and strict modes, member, element, wildcard and recursive
// accessors, filters with comparisons, && || !, exists, like_regex,
// starts with and is unknown, arithmetic, item methods and $variables.
package jsonpath

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loamdb/loam/pgerr"
)

// tokKind is the kind of a jsonpath token.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tPunct           // . [ ] ( ) { } , ? * ** + - / % ! == != <> < <= > >= && ||
	tIdent           // a bare word: key, keyword or method name
	tString          // "…", decoded
	tNumber          // numeric literal, its text
	tVar             // $name or $"name"
	tRoot            // $
	tCurrent         // @
)

type token struct {
	kind tokKind
	text string // punctuation, identifier, decoded string, number or variable name
	raw  string // as written, for error messages
	// follow is the character after a bare word, which PostgreSQL's
	// scanner names in a syntax error at that word ("" at the end).
	follow string
}

// lex splits a jsonpath into tokens.
func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f') {
			i++
		}
		if i >= len(s) {
			return append(out, token{kind: tEOF}), nil
		}
		start := i
		c := s[i]
		switch {
		case c == '"':
			str, n, err := lexString(s[i:])
			if err != nil {
				return nil, err
			}
			i += n
			out = append(out, token{kind: tString, text: str, raw: s[start:i]})
		case c == '$':
			i++
			switch {
			case i < len(s) && s[i] == '"':
				str, n, err := lexString(s[i:])
				if err != nil {
					return nil, err
				}
				i += n
				out = append(out, token{kind: tVar, text: str, raw: s[start:i]})
			case i < len(s) && isIdentStart(s[i:]):
				j := identEnd(s, i)
				out = append(out, token{kind: tVar, text: s[i:j], raw: s[start:j]})
				i = j
			default:
				out = append(out, token{kind: tRoot, text: "$", raw: "$"})
			}
		case c == '@':
			i++
			out = append(out, token{kind: tCurrent, text: "@", raw: "@"})
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					j = k
				}
			}
			out = append(out, token{kind: tNumber, text: s[i:j], raw: s[i:j]})
			i = j
		case isIdentStart(s[i:]):
			j := identEnd(s, i)
			_, n := utf8.DecodeRuneInString(s[j:])
			out = append(out, token{kind: tIdent, text: s[i:j], raw: s[i:j], follow: s[j : j+n]})
			i = j
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			switch two {
			case "**", "==", "!=", "<>", "<=", ">=", "&&", "||":
				out = append(out, token{kind: tPunct, text: two, raw: two})
				i += 2
				continue
			}
			if strings.IndexByte(".[](){},?*+-/%!<>", c) < 0 {
				_, n := utf8.DecodeRuneInString(s[i:])
				return nil, syntaxAt(s[i : i+n])
			}
			out = append(out, token{kind: tPunct, text: string(c), raw: string(c)})
			i++
		}
	}
}

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func identEnd(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += n
	}
	return i
}

// lexString decodes a double-quoted string at the start of s, with
// JSON's escapes and jsonpath's \v, \xNN and \u{N…}; n is its length.
func lexString(s string) (string, int, error) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, unterminated()
			}
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case 'x':
				if i+2 > len(s) {
					return "", 0, badEscape()
				}
				v, err := strconv.ParseUint(s[i:i+2], 16, 8)
				if err != nil || v == 0 {
					return "", 0, badEscape()
				}
				b.WriteRune(rune(v))
				i += 2
			case 'u':
				var v uint64
				var err error
				if i < len(s) && s[i] == '{' {
					end := strings.IndexByte(s[i:], '}')
					if end < 2 || end > 7 {
						return "", 0, badEscape()
					}
					v, err = strconv.ParseUint(s[i+1:i+end], 16, 32)
					i += end + 1
				} else {
					if i+4 > len(s) {
						return "", 0, badEscape()
					}
					v, err = strconv.ParseUint(s[i:i+4], 16, 32)
					i += 4
				}
				if err != nil || v == 0 || v > unicode.MaxRune {
					return "", 0, badEscape()
				}
				b.WriteRune(rune(v))
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, unterminated()
}

func unterminated() error {
	return pgerr.New(pgerr.SyntaxError, "unexpected end of quoted string at end of jsonpath input")
}

func syntaxEnd() error {
	return pgerr.New(pgerr.SyntaxError, "syntax error at end of jsonpath input")
}

func syntaxAt(tok string) error {
	return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\" of jsonpath input", tok)
}

func badEscape() error {
	return pgerr.New(pgerr.SyntaxError, "invalid Unicode escape sequence at or near \"\\u\" of jsonpath input")
}
