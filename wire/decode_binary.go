package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// decodeParam turns one Bind parameter into a Datum of type t. format is
// 0 (text) or 1 (binary); b is nil for NULL.
func decodeParam(t types.T, format int16, b []byte, loc *time.Location) (types.Datum, error) {
	if b == nil {
		if t.Kind == types.Unknown {
			t = types.TText
		}
		return types.NullOf(t), nil
	}
	if format == 0 {
		if !utf8.Valid(b) {
			return types.Datum{}, pgerr.New("22021", "invalid byte sequence for encoding \"UTF8\"")
		}
		return types.ParseText(t, string(b), loc)
	}
	return decodeBinary(t, b, loc)
}

func binaryLen(t types.T, b []byte, want int) error {
	if len(b) != want {
		return pgerr.New(pgerr.InvalidBinaryRepresentation,
			"incorrect binary data format: %s needs %d bytes, got %d", t, want, len(b))
	}
	return nil
}

// decodeBinary reads a binary-format value as PostgreSQL's typreceive
// function for t would.
func decodeBinary(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	d := types.Datum{T: t}
	switch t.Kind {
	case types.Bool:
		if err := binaryLen(t, b, 1); err != nil {
			return d, err
		}
		if b[0] != 0 {
			d.I = 1
		}
	case types.Int2:
		if err := binaryLen(t, b, 2); err != nil {
			return d, err
		}
		d.I = int64(int16(binary.BigEndian.Uint16(b)))
	case types.OID:
		if err := binaryLen(t, b, 4); err != nil {
			return d, err
		}
		d.I = int64(binary.BigEndian.Uint32(b))
	case types.Int4:
		if err := binaryLen(t, b, 4); err != nil {
			return d, err
		}
		d.I = int64(int32(binary.BigEndian.Uint32(b)))
	case types.Int8:
		if err := binaryLen(t, b, 8); err != nil {
			return d, err
		}
		d.I = int64(binary.BigEndian.Uint64(b))
	case types.Float4:
		if err := binaryLen(t, b, 4); err != nil {
			return d, err
		}
		d.F = float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case types.Float8:
		if err := binaryLen(t, b, 8); err != nil {
			return d, err
		}
		d.F = math.Float64frombits(binary.BigEndian.Uint64(b))
	case types.Date:
		if err := binaryLen(t, b, 4); err != nil {
			return d, err
		}
		v := int32(binary.BigEndian.Uint32(b))
		if v == math.MaxInt32 || v == math.MinInt32 {
			d.I = int64(v)
		} else {
			d.I = int64(v) + pgEpochDays
		}
	case types.Time:
		if err := binaryLen(t, b, 8); err != nil {
			return d, err
		}
		d.I = int64(binary.BigEndian.Uint64(b))
		if d.I < 0 || d.I > 24*3600*1_000_000 {
			return d, pgerr.New(pgerr.InvalidBinaryRepresentation, "time out of range")
		}
		d.I = types.RoundMicros(d.I, t.Width)
	case types.Timestamp, types.TimestampTZ:
		if err := binaryLen(t, b, 8); err != nil {
			return d, err
		}
		v := int64(binary.BigEndian.Uint64(b))
		if v == math.MaxInt64 || v == math.MinInt64 {
			d.I = v
		} else {
			d.I = types.RoundMicros(v+pgEpochMicros, t.Width)
		}
	case types.Bytea:
		d.B = append([]byte{}, b...)
	case types.UUID:
		if err := binaryLen(t, b, 16); err != nil {
			return d, err
		}
		d.S = fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	case types.Numeric:
		s, err := numericText(b)
		if err != nil {
			return d, err
		}
		if t.Width < 0 {
			d.S = s
			return d, nil
		}
		return types.ParseText(t, s, loc) // applies numeric(p,s)
	case types.JSONB:
		if len(b) == 0 || b[0] != 1 {
			return d, pgerr.New(pgerr.InvalidBinaryRepresentation, "unsupported jsonb version number")
		}
		return textual(t, b[1:], loc)
	case types.Interval:
		if err := binaryLen(t, b, 16); err != nil {
			return d, err
		}
		d.I = int64(binary.BigEndian.Uint64(b))
		if d.I > types.MaxIntervalMicros || d.I < -types.MaxIntervalMicros {
			return d, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
		}
		d.Days = int32(binary.BigEndian.Uint32(b[8:]))
		d.Months = int32(binary.BigEndian.Uint32(b[12:]))
	case types.Array:
		return decodeArrayBinary(t, b, loc)
	default:
		// text, varchar, char, json, unknown: binary is the UTF-8 text.
		return textual(t, b, loc)
	}
	return d, nil
}

// decodeArrayBinary reads array_send's format (ndim, has-null flag,
// element OID, each dimension's length and lower bound, then each element
// length-prefixed, -1 for NULL) into the array's text form, which is how
// Loam carries arrays. Loam's arrays are one-dimensional from 1.
func decodeArrayBinary(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	d := types.Datum{T: t}
	bad := func(why string) (types.Datum, error) {
		return d, pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format: %s", why)
	}
	if len(b) < 12 {
		return bad("array header too short")
	}
	ndim := int32(binary.BigEndian.Uint32(b))
	elemT := types.Of(t.Elem)
	if oid := binary.BigEndian.Uint32(b[8:]); oid != elemT.OID() {
		return d, pgerr.New(pgerr.DatatypeMismatch, "binary data has array element type %d instead of expected %d", oid, elemT.OID())
	}
	b = b[12:]
	switch {
	case ndim == 0:
		if len(b) != 0 {
			return bad("trailing bytes after an empty array")
		}
		d.S = "{}"
		return d, nil
	case ndim != 1:
		return d, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	case len(b) < 8:
		return bad("array dimensions too short")
	}
	n := int32(binary.BigEndian.Uint32(b))
	if lb := int32(binary.BigEndian.Uint32(b[4:])); lb != 1 {
		return d, pgerr.New(pgerr.FeatureNotSupported, "arrays with a lower bound other than 1 are not supported")
	}
	b = b[8:]
	if n < 0 || int(n) > len(b)/4 {
		return bad("array length out of range")
	}
	buf := []byte{'{'}
	for i := range int(n) {
		if len(b) < 4 {
			return bad("array element length missing")
		}
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if i > 0 {
			buf = append(buf, ',')
		}
		if l == -1 {
			buf = append(buf, "NULL"...)
			continue
		}
		if l < 0 || int(l) > len(b) {
			return bad("array element length out of range")
		}
		e, err := decodeBinary(elemT, b[:l], loc)
		if err != nil {
			return d, err
		}
		b = b[l:]
		buf = types.AppendArrayElem(buf, types.FormatText(e, loc))
	}
	if len(b) != 0 {
		return bad("trailing bytes after the array")
	}
	d.S = string(append(buf, '}'))
	return d, nil
}

// textual checks the encoding and reads b through the text input function
// (which validates json and applies varchar(n)/char(n)).
func textual(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	if !utf8.Valid(b) {
		return types.Datum{T: t}, pgerr.New("22021", "invalid byte sequence for encoding \"UTF8\"")
	}
	return types.ParseText(t, string(b), loc)
}

// DecodeBinary reads one value in PostgreSQL's binary format (a typreceive
// function), for binary COPY data as well as Bind parameters.
func DecodeBinary(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	return decodeBinary(t, b, loc)
}
