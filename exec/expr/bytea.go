package expr

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Binary string functions: encode/decode between bytea and its text
// encodings, and the digests, as PostgreSQL 15 has them.

func byteaDatum(b []byte) types.Datum { return types.Datum{T: types.TBytea, B: b} }

// encodeBytea is encode(bytes, format).
func encodeBytea(b []byte, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		return hex.EncodeToString(b), nil
	case "base64":
		// PostgreSQL breaks base64 output into lines of 76 characters.
		s := base64.StdEncoding.EncodeToString(b)
		var out strings.Builder
		for len(s) > 76 {
			out.WriteString(s[:76])
			out.WriteByte('\n')
			s = s[76:]
		}
		out.WriteString(s)
		return out.String(), nil
	case "escape":
		var out strings.Builder
		for _, c := range b {
			switch {
			case c == 0 || c >= 0x80:
				out.WriteByte('\\')
				out.WriteByte('0' + c>>6)
				out.WriteByte('0' + c>>3&7)
				out.WriteByte('0' + c&7)
			case c == '\\':
				out.WriteString(`\\`)
			default:
				out.WriteByte(c)
			}
		}
		return out.String(), nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: %q", format)
}

// decodeBytea is decode(text, format).
func decodeBytea(s, format string) ([]byte, error) {
	switch strings.ToLower(format) {
	case "hex":
		out := make([]byte, 0, len(s)/2)
		for i := 0; i < len(s); {
			if c := s[i]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				i++
				continue
			}
			hi, ok := hexDigit(s[i])
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: %q", string(s[i]))
			}
			if i+1 >= len(s) {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := hexDigit(s[i+1])
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: %q", string(s[i+1]))
			}
			out = append(out, hi<<4|lo)
			i += 2
		}
		return out, nil
	case "base64":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		for _, r := range clean {
			if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=') {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid symbol %q found while decoding base64 sequence", string(r))
			}
		}
		out, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid base64 end sequence").WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
		}
		return out, nil
	case "escape":
		var out []byte
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' {
				out = append(out, s[i])
				continue
			}
			switch {
			case i+1 < len(s) && s[i+1] == '\\':
				out = append(out, '\\')
				i++
			case i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) && s[i+1] <= '3':
				out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
				i += 3
			default:
				return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
			}
		}
		return out, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: %q", format)
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// digest is a hash function over bytes, as a bytea function.
func digest(sum func([]byte) []byte) Overload {
	return sig(types.Bytea, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return byteaDatum(sum(a[0].B)), nil
	}, types.Bytea)
}

func init() {
	register([]Overload{sig(text, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, err := encodeBytea(a[0].B, a[1].S)
		return types.TextDatum(s), err
	}, types.Bytea, text)}, "encode")
	register([]Overload{sig(types.Bytea, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		b, err := decodeBytea(a[0].S, a[1].S)
		return byteaDatum(b), err
	}, text, text)}, "decode")
	register([]Overload{digest(func(b []byte) []byte { h := sha256.Sum224(b); return h[:] })}, "sha224")
	register([]Overload{digest(func(b []byte) []byte { h := sha256.Sum256(b); return h[:] })}, "sha256")
	register([]Overload{digest(func(b []byte) []byte { h := sha512.Sum384(b); return h[:] })}, "sha384")
	register([]Overload{digest(func(b []byte) []byte { h := sha512.Sum512(b); return h[:] })}, "sha512")
}

// md5Bytea is md5 of bytea, registered with md5 of text.
var md5Bytea = sig(text, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
	h := md5.Sum(a[0].B)
	return types.TextDatum(hex.EncodeToString(h[:])), nil
}, types.Bytea)
