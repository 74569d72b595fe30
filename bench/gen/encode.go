package gen

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"
)

// tsLayout renders a timestamptz the way PostgreSQL prints one in UTC.
const tsLayout = "2006-01-02 15:04:05.000-07"

// pgEpochMicros is 2000-01-01 00:00:00 UTC in microseconds since the Unix
// epoch: binary timestamps count from there.
const pgEpochMicros = 946684800 * 1_000_000

// AppendText appends r as one line of PostgreSQL COPY text format (the
// default format of COPY … FROM STDIN): tab-separated fields, backslash
// escapes, a newline at the end.
func AppendText(dst []byte, r Row) []byte {
	dst = r.TS.UTC().AppendFormat(dst, tsLayout)
	dst = append(dst, '\t')
	dst = appendTextString(dst, r.Tenant)
	dst = append(dst, '\t')
	dst = appendTextString(dst, r.Model)
	dst = append(dst, '\t')
	dst = appendNumbers(dst, r, '\t')
	return append(dst, '\n')
}

// appendNumbers appends the four numeric fields separated by sep.
func appendNumbers(dst []byte, r Row, sep byte) []byte {
	dst = strconv.AppendInt(dst, int64(r.PromptTokens), 10)
	dst = append(dst, sep)
	dst = strconv.AppendInt(dst, int64(r.CompletionTokens), 10)
	dst = append(dst, sep)
	dst = strconv.AppendFloat(dst, r.CostUSD, 'g', -1, 64)
	dst = append(dst, sep)
	return strconv.AppendInt(dst, int64(r.LatencyMS), 10)
}

// appendTextString appends s escaped for COPY text format.
func appendTextString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// AppendCSV appends r as one line of CSV (COPY … WITH (FORMAT csv)): comma
// separated, strings quoted when they need it (and when empty, so they are
// not read as NULL), a newline at the end.
func AppendCSV(dst []byte, r Row) []byte {
	dst = r.TS.UTC().AppendFormat(dst, tsLayout)
	dst = append(dst, ',')
	dst = appendCSVString(dst, r.Tenant)
	dst = append(dst, ',')
	dst = appendCSVString(dst, r.Model)
	dst = append(dst, ',')
	dst = appendNumbers(dst, r, ',')
	return append(dst, '\n')
}

// appendCSVString appends s as a CSV field.
func appendCSVString(dst []byte, s string) []byte {
	quote := s == ""
	for i := 0; i < len(s) && !quote; i++ {
		switch s[i] {
		case ',', '"', '\n', '\r', '\\':
			quote = true
		}
	}
	if !quote {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// Binary COPY format (PostgreSQL docs, "COPY", "Binary Format"):
//
//	header:  11-byte signature "PGCOPY\n\377\r\n\0"
//	         int32 flags (0: no OIDs)
//	         int32 header extension length (0), then that many bytes
//	tuple:   int16 field count, then per field int32 byte length (-1 is
//	         NULL, no bytes follow) and the value in the type's binary
//	         send format
//	trailer: int16 -1
//
// All integers are big-endian. Values here: timestamptz is int64
// microseconds since 2000-01-01 UTC, int4 is int32, float8 is the IEEE 754
// bits as uint64, text is its UTF-8 bytes.

// binarySignature starts every binary COPY stream.
const binarySignature = "PGCOPY\n\377\r\n\x00"

// AppendBinaryHeader appends the binary COPY header.
func AppendBinaryHeader(dst []byte) []byte {
	dst = append(dst, binarySignature...)
	dst = binary.BigEndian.AppendUint32(dst, 0)  // flags
	return binary.BigEndian.AppendUint32(dst, 0) // header extension length
}

// AppendBinaryTrailer appends the binary COPY trailer.
func AppendBinaryTrailer(dst []byte) []byte {
	return binary.BigEndian.AppendUint16(dst, 0xffff)
}

// AppendBinary appends r as one binary COPY tuple.
func AppendBinary(dst []byte, r Row) []byte {
	be := binary.BigEndian
	dst = be.AppendUint16(dst, uint16(len(Columns)))
	dst = be.AppendUint32(dst, 8)
	dst = be.AppendUint64(dst, uint64(TimestampMicros(r.TS)))
	dst = be.AppendUint32(dst, uint32(len(r.Tenant)))
	dst = append(dst, r.Tenant...)
	dst = be.AppendUint32(dst, uint32(len(r.Model)))
	dst = append(dst, r.Model...)
	dst = be.AppendUint32(dst, 4)
	dst = be.AppendUint32(dst, uint32(r.PromptTokens))
	dst = be.AppendUint32(dst, 4)
	dst = be.AppendUint32(dst, uint32(r.CompletionTokens))
	dst = be.AppendUint32(dst, 8)
	dst = be.AppendUint64(dst, math.Float64bits(r.CostUSD))
	dst = be.AppendUint32(dst, 4)
	return be.AppendUint32(dst, uint32(r.LatencyMS))
}

// TimestampMicros is t in PostgreSQL's binary timestamp unit: microseconds
// since 2000-01-01 00:00:00 UTC.
func TimestampMicros(t time.Time) int64 { return t.UnixMicro() - pgEpochMicros }

// AppendArgs appends r's column values, in table order, as arguments for a
// parameterised INSERT (pgx encodes them as timestamptz, text, int4 and
// float8).
func AppendArgs(dst []any, r Row) []any {
	return append(dst, r.TS, r.Tenant, r.Model, r.PromptTokens, r.CompletionTokens, r.CostUSD, r.LatencyMS)
}
