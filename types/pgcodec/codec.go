// Package pgcodec is PostgreSQL's external formats of Loam's values: the
// text format (typinput/typoutput) and the binary format
// (typreceive/typsend). It is the one codec that the wire protocol (result
// rows, Bind parameters) and COPY (exec/copyfmt) both use, so a value has
// the same bytes on every path.
//
// Encoders work a column at a time over Arrow arrays: they pick one
// function per column and the row loop calls it without type switches.
// Decoders read one value into a types.Datum, or (BinaryAppender) straight
// into an Arrow builder for COPY FROM.
package pgcodec

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// The format codes of the protocol (Bind, RowDescription, COPY).
const (
	Text   int16 = 0
	Binary int16 = 1
)

// AppendFunc appends row i of a column to buf. The row loop calls it only
// for non-null rows.
type AppendFunc func(buf []byte, i int) []byte

// Encoder picks the encoder of a column in the given format. Values the
// binary format cannot encode (malformed numeric or uuid text from the
// engine) are reported through *errp, which the caller checks once per
// batch chunk.
func Encoder(t types.T, format int16, arr arrow.Array, loc *time.Location, errp *error) (AppendFunc, error) {
	if format == Binary {
		return BinaryEncoder(t, arr, errp)
	}
	return TextEncoder(t, arr, loc)
}

// TextEncoder picks the text-format encoder of a column: PostgreSQL's
// output function, loc being the session TimeZone for timestamptz.
func TextEncoder(t types.T, arr arrow.Array, loc *time.Location) (AppendFunc, error) {
	if err := checkArrow(t, arr); err != nil {
		return nil, err
	}
	return types.TextWriter(t, arr, loc), nil
}

// checkArrow verifies that arr carries t the way types.T.Arrow says, so an
// encoder's type assertions cannot fail.
func checkArrow(t types.T, arr arrow.Array) error {
	if got, want := arr.DataType().ID(), t.Arrow().ID(); got != want {
		return pgerr.New(pgerr.InternalError, "result column of type %s arrived as Arrow %s, want %s", t, arr.DataType(), t.Arrow())
	}
	return nil
}

// Decode reads one value of type t in the given format (a Bind parameter);
// b is nil for NULL. An unknown type reads as text.
func Decode(t types.T, format int16, b []byte, loc *time.Location) (types.Datum, error) {
	if b == nil {
		if t.Kind == types.Unknown {
			t = types.TText
		}
		return types.NullOf(t), nil
	}
	if format == Text {
		return DecodeText(t, b, loc)
	}
	return DecodeBinary(t, b, loc)
}

// DecodeText reads a text-format value as PostgreSQL's input function for
// t would, after checking that it is valid UTF-8 (the server encoding).
func DecodeText(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	if err := checkUTF8(b); err != nil {
		return types.Datum{T: t}, err
	}
	return types.ParseText(t, string(b), loc)
}
