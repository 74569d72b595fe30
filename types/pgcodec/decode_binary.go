package pgcodec

import (
	"encoding/binary"
	"math"
	"time"
	"unicode/utf8"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// DecodeBinary reads one binary-format value as PostgreSQL's typreceive
// function for t would: Bind parameters and binary COPY data. It never
// keeps b.
func DecodeBinary(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	d := types.Datum{T: t}
	if n := fixedSize(t); n > 0 && len(b) != n {
		return d, pgerr.New(pgerr.InvalidBinaryRepresentation,
			"incorrect binary data format: %s needs %d bytes, got %d", t, n, len(b))
	}
	switch t.Kind {
	case types.Bool:
		if b[0] != 0 {
			d.I = 1
		}
	case types.Int2:
		d.I = int64(int16(binary.BigEndian.Uint16(b)))
	case types.OID:
		d.I = int64(binary.BigEndian.Uint32(b))
	case types.Int4:
		d.I = int64(int32(binary.BigEndian.Uint32(b)))
	case types.Int8:
		d.I = int64(binary.BigEndian.Uint64(b))
	case types.Float4:
		d.F = float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case types.Float8:
		d.F = math.Float64frombits(binary.BigEndian.Uint64(b))
	case types.Date:
		d.I = int64(dateFromPG(int32(binary.BigEndian.Uint32(b))))
	case types.Time:
		v, err := timeFromPG(b, t)
		if err != nil {
			return d, err
		}
		d.I = v
	case types.Timestamp, types.TimestampTZ:
		d.I = timestampFromPG(int64(binary.BigEndian.Uint64(b)), t)
	case types.QChar:
		return qcharDatum(t, b[0]), nil
	case types.Bytea:
		d.B = append([]byte{}, b...)
	case types.UUID:
		d.S = uuidText(b)
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
		return DecodeText(t, b[1:], loc)
	case types.Interval:
		iv, err := intervalFromPG(b)
		if err != nil {
			return d, err
		}
		return types.IntervalDatum(iv), nil
	case types.Array:
		return decodeArray(t, b, loc)
	case types.Record:
		return decodeRecord(t, b, loc)
	default:
		// text, varchar, char, json, name, unknown: binary is the UTF-8
		// text, read through the input function (which validates json and
		// applies varchar(n)/char(n)).
		return DecodeText(t, b, loc)
	}
	return d, nil
}

// fixedSize is the length of t's binary form when it is fixed, else 0.
func fixedSize(t types.T) int {
	switch t.Kind {
	case types.Bool, types.QChar:
		return 1
	case types.Int2:
		return 2
	case types.Int4, types.OID, types.Float4, types.Date:
		return 4
	case types.Int8, types.Float8, types.Time, types.Timestamp, types.TimestampTZ:
		return 8
	case types.UUID, types.Interval:
		return 16
	}
	return 0
}

// timeFromPG reads time_recv's microseconds since midnight, which must lie
// within the day (24:00:00 included).
func timeFromPG(b []byte, t types.T) (int64, error) {
	v := int64(binary.BigEndian.Uint64(b))
	if v < 0 || v > 24*3600*1_000_000 {
		return 0, pgerr.New(pgerr.InvalidBinaryRepresentation, "time out of range")
	}
	return types.RoundMicros(v, t.Width), nil
}

// intervalFromPG reads interval_recv's microseconds, days and months.
// Microseconds that Arrow's nanoseconds cannot hold are refused rather
// than wrapped around.
func intervalFromPG(b []byte) (types.IntervalValue, error) {
	us := int64(binary.BigEndian.Uint64(b))
	if us > types.MaxIntervalMicros || us < -types.MaxIntervalMicros {
		return types.IntervalValue{}, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	return types.IntervalValue{Micros: us, Days: int32(binary.BigEndian.Uint32(b[8:])), Months: int32(binary.BigEndian.Uint32(b[12:]))}, nil
}

func checkUTF8(b []byte) error {
	if !utf8.Valid(b) {
		return pgerr.New("22021", "invalid byte sequence for encoding \"UTF8\"")
	}
	return nil
}
