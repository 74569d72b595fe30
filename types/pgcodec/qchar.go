package pgcodec

import "github.com/loamdb/loam/types"

// "char" (charsend/charrecv) is one byte on the wire, though batches carry
// it as text: the empty string is the zero byte, and a byte with the high
// bit set is carried as PostgreSQL 15's charout prints it, \ooo in octal
// (it is not UTF-8 on its own).
func appendQChar(buf []byte, s string) []byte {
	switch {
	case s == "":
		return append(buf, 0)
	case len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]):
		return append(buf, (s[1]-'0')<<6|(s[2]-'0')<<3|(s[3]-'0'))
	}
	return append(buf, s[0])
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func qcharDatum(t types.T, c byte) types.Datum {
	d := types.Datum{T: t}
	switch {
	case c == 0:
	case c >= 0x80:
		d.S = string([]byte{'\\', '0' + c>>6, '0' + c>>3&7, '0' + c&7})
	default:
		d.S = string(rune(c))
	}
	return d
}
