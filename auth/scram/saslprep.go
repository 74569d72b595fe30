package scram

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// saslprep normalizes a password as PostgreSQL's pg_saslprep does (RFC
// 4013's SASLprep profile of stringprep) before it is hashed, so that a
// verifier made here checks the password a client's libpq prepared the
// same way, and a verifier moved from PostgreSQL checks what was typed.
// As in PostgreSQL, a password that SASLprep refuses (invalid UTF-8, a
// prohibited character, a bidirectional mix, nothing left) is used as
// given, and a pure-ASCII one is always used as given.
//
// Unassigned code points are judged by Go's Unicode tables, not Unicode
// 3.2's as RFC 3454 says: passwords with newer characters that
// normalization changes may be prepared where PostgreSQL keeps them raw.
func saslprep(password string) string {
	ascii := true
	for i := 0; i < len(password); i++ {
		if password[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || !utf8.ValidString(password) {
		return password
	}
	mapped := make([]rune, 0, len(password))
	for _, r := range password {
		switch {
		case inRanges(r, nonASCIISpace):
			mapped = append(mapped, ' ')
		case inRanges(r, mappedToNothing):
		default:
			mapped = append(mapped, r)
		}
	}
	out := norm.NFKC.String(string(mapped))
	if out == "" {
		return password
	}
	var randAL, l bool
	for _, r := range out {
		if inRanges(r, prohibited) || inRanges(r, nonASCIISpace) || !assigned(r) {
			return password
		}
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.R, bidi.AL:
			randAL = true
		case bidi.L:
			l = true
		}
	}
	if randAL {
		// RFC 3454 section 6: no L with R/AL, and R/AL first and last.
		first, _ := utf8.DecodeRuneInString(out)
		last, _ := utf8.DecodeLastRuneInString(out)
		if l || !isRandAL(first) || !isRandAL(last) {
			return password
		}
	}
	return out
}

func isRandAL(r rune) bool {
	p, _ := bidi.LookupRune(r)
	return p.Class() == bidi.R || p.Class() == bidi.AL
}

// assigned: the rune has a general category (unicode.C holds Cc, Cf, Co
// and Cs, never the unassigned Cn).
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C)
}

type runeRange struct{ lo, hi rune }

func inRanges(r rune, rs []runeRange) bool {
	for _, x := range rs {
		if r >= x.lo && r <= x.hi {
			return true
		}
	}
	return false
}

// RFC 3454 C.1.2, as PostgreSQL's non_ascii_space_ranges.
var nonASCIISpace = []runeRange{{0x00A0, 0x00A0}, {0x1680, 0x1680}, {0x2000, 0x200B}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}}

// RFC 3454 B.1: commonly mapped to nothing.
var mappedToNothing = []runeRange{{0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x1806, 0x1806}, {0x180B, 0x180D}, {0x200B, 0x200D}, {0x2060, 0x2060}, {0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF}}

// RFC 3454 C.2.1 through C.9: control characters, private use,
// noncharacters, surrogates, characters inappropriate for plain text or
// canonical representation, change display properties, tagging.
var prohibited = []runeRange{
	{0x0000, 0x001F}, {0x007F, 0x007F}, // C.2.1
	{0x0080, 0x009F}, {0x06DD, 0x06DD}, {0x070F, 0x070F}, {0x180E, 0x180E}, {0x200C, 0x200D}, {0x2028, 0x2029}, {0x2060, 0x2063}, {0x206A, 0x206F}, {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFC}, {0x1D173, 0x1D17A}, // C.2.2
	{0xE000, 0xF8FF}, {0xF0000, 0xFFFFD}, {0x100000, 0x10FFFD}, // C.3
	{0xFDD0, 0xFDEF}, {0xFFFE, 0xFFFF}, {0x1FFFE, 0x1FFFF}, {0x2FFFE, 0x2FFFF}, {0x3FFFE, 0x3FFFF}, {0x4FFFE, 0x4FFFF}, {0x5FFFE, 0x5FFFF}, {0x6FFFE, 0x6FFFF}, {0x7FFFE, 0x7FFFF}, {0x8FFFE, 0x8FFFF}, {0x9FFFE, 0x9FFFF}, {0xAFFFE, 0xAFFFF}, {0xBFFFE, 0xBFFFF}, {0xCFFFE, 0xCFFFF}, {0xDFFFE, 0xDFFFF}, {0xEFFFE, 0xEFFFF}, {0xFFFFE, 0xFFFFF}, {0x10FFFE, 0x10FFFF}, // C.4
	{0xD800, 0xDFFF},                                     // C.5
	{0xFFF9, 0xFFFD},                                     // C.6
	{0x2FF0, 0x2FFB},                                     // C.7
	{0x0340, 0x0341}, {0x200E, 0x200F}, {0x202A, 0x202E}, // C.8
	{0xE0001, 0xE0001}, {0xE0020, 0xE007F}, // C.9
}
