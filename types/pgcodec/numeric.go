package pgcodec

import (
	"encoding/binary"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// PostgreSQL's binary numeric (numeric_send/numeric_recv):
//
//	int16  ndigits  number of base-10000 digits that follow
//	int16  weight   exponent of the first digit: value = Σ digit[i] × 10000^(weight-i)
//	uint16 sign     0x0000 positive, 0x4000 negative, 0xC000 NaN, 0xD000 +Inf, 0xF000 -Inf
//	int16  dscale   digits shown after the decimal point
//	int16  digit[ndigits], each 0..9999
const (
	numericPos        = 0x0000
	numericNeg        = 0x4000
	numericNaN        = 0xC000
	numericPInf       = 0xD000
	numericNInf       = 0xF000
	numericDscaleMask = 0x3FFF
)

func badNumeric(s string) error {
	return pgerr.New(pgerr.InternalError, "invalid numeric value %q in result", s)
}

// appendNumeric encodes the decimal text of a numeric value in binary.
func appendNumeric(buf []byte, s string) ([]byte, error) {
	special := func(sign uint16) []byte {
		return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16(buf, 0), uint32(sign)), 0)
	}
	switch s {
	case "NaN":
		return special(numericNaN), nil
	case "Infinity":
		return special(numericPInf), nil
	case "-Infinity":
		return special(numericNInf), nil
	}
	if strings.ContainsAny(s, "eE") {
		d, err := types.ParseDec(s)
		if err != nil {
			return buf, badNumeric(s)
		}
		s = d.String()
	}
	orig := s
	sign := uint16(numericPos)
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			sign = numericNeg
		}
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" && frac == "" {
		return buf, badNumeric(orig)
	}
	for _, p := range [2]string{intPart, frac} {
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return buf, badNumeric(orig)
			}
		}
	}
	dscale := len(frac)
	intPart = strings.TrimLeft(intPart, "0")
	lead := (4 - len(intPart)%4) % 4
	trail := (4 - len(frac)%4) % 4
	total := lead + len(intPart) + len(frac) + trail
	weight := (lead+len(intPart))/4 - 1
	// digit j of the zero-padded string intPart+frac
	digit := func(j int) int {
		j -= lead
		switch {
		case j < 0:
			return 0
		case j < len(intPart):
			return int(intPart[j] - '0')
		case j < len(intPart)+len(frac):
			return int(frac[j-len(intPart)] - '0')
		}
		return 0
	}
	ngroups := total / 4
	group := func(g int) uint16 {
		j := g * 4
		return uint16(digit(j)*1000 + digit(j+1)*100 + digit(j+2)*10 + digit(j+3))
	}
	first, last := 0, ngroups
	for first < last && group(first) == 0 {
		first++
	}
	for last > first && group(last-1) == 0 {
		last--
	}
	weight -= first
	if first == last {
		weight, sign = 0, numericPos
	}
	if last-first > 0x7fff || weight > 0x7fff || weight < -0x8000 || dscale > numericDscaleMask {
		return buf, pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(last-first))
	buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
	buf = binary.BigEndian.AppendUint16(buf, sign)
	buf = binary.BigEndian.AppendUint16(buf, uint16(dscale))
	for g := first; g < last; g++ {
		buf = binary.BigEndian.AppendUint16(buf, group(g))
	}
	return buf, nil
}

// numericText decodes a binary numeric into its decimal text, with exactly
// dscale fractional digits.
func numericText(b []byte) (string, error) {
	bad := pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid external \"numeric\" value")
	if len(b) < 8 {
		return "", bad
	}
	ndigits := int(int16(binary.BigEndian.Uint16(b)))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	dscale := int(binary.BigEndian.Uint16(b[6:]))
	if ndigits < 0 || len(b) != 8+2*ndigits {
		return "", bad
	}
	switch sign {
	case numericNaN:
		return "NaN", nil
	case numericPInf:
		return "Infinity", nil
	case numericNInf:
		return "-Infinity", nil
	case numericPos, numericNeg:
	default:
		return "", pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid sign in external \"numeric\" value")
	}
	if dscale&numericDscaleMask != dscale {
		return "", pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid scale in external \"numeric\" value")
	}
	digits := make([]byte, 0, 4*ndigits)
	for i := 0; i < ndigits; i++ {
		d := binary.BigEndian.Uint16(b[8+2*i:])
		if d > 9999 {
			return "", pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid digit in external \"numeric\" value")
		}
		digits = append(digits, byte('0'+d/1000), byte('0'+d/100%10), byte('0'+d/10%10), byte('0'+d%10))
	}
	point := (weight + 1) * 4
	if point < 0 {
		digits = append(make([]byte, -point, -point+len(digits)), digits...)
		for i := 0; i < -point; i++ {
			digits[i] = '0'
		}
		point = 0
	}
	for len(digits) < point {
		digits = append(digits, '0')
	}
	intPart := strings.TrimLeft(string(digits[:point]), "0")
	if intPart == "" {
		intPart = "0"
	}
	frac := digits[point:]
	if len(frac) > dscale {
		frac = frac[:dscale]
	}
	var sb strings.Builder
	if sign == numericNeg && (strings.Trim(intPart, "0") != "" || strings.Trim(string(frac), "0") != "") {
		sb.WriteByte('-')
	}
	sb.WriteString(intPart)
	if dscale > 0 {
		sb.WriteByte('.')
		sb.Write(frac)
		for i := len(frac); i < dscale; i++ {
			sb.WriteByte('0')
		}
	}
	return sb.String(), nil
}
