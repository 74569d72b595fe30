package pgcodec

import (
	"encoding/binary"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// appendArray encodes a one-dimensional array from its text form (how
// batches carry arrays) in array_send's format: ndim, has-null flag,
// element OID, length and lower bound, then each element as a
// length-prefixed binary value (-1 for NULL). An empty array has no
// dimensions.
func appendArray(buf []byte, t types.T, text string) ([]byte, error) {
	elemT := types.Of(t.Elem)
	elems, null, err := types.SplitArrayText(text)
	if err != nil {
		return buf, err
	}
	if len(elems) == 0 {
		buf = binary.BigEndian.AppendUint32(buf, 0)
		buf = binary.BigEndian.AppendUint32(buf, 0)
		return binary.BigEndian.AppendUint32(buf, elemT.OID()), nil
	}
	hasNull := uint32(0)
	for _, n := range null {
		if n {
			hasNull = 1
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, elemT.OID())
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(elems)))
	buf = binary.BigEndian.AppendUint32(buf, 1)
	for i, s := range elems {
		if null[i] {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		d, err := types.ParseText(elemT, s, time.UTC)
		if err != nil {
			return buf, err
		}
		if buf, err = appendField(buf, d); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// appendField appends a value with its int32 length in front.
func appendField(buf []byte, d types.Datum) ([]byte, error) {
	at := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	buf, err := AppendBinary(buf, d)
	binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	return buf, err
}

// decodeArray reads array_send's format into the array's text form, which
// is how Loam carries arrays. Loam's arrays are one-dimensional from 1.
func decodeArray(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	d := types.Datum{T: t}
	if len(b) < 12 {
		return d, badBinary("array header too short")
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
			return d, badBinary("trailing bytes after an empty array")
		}
		d.S = "{}"
		return d, nil
	case ndim != 1:
		return d, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	case len(b) < 8:
		return d, badBinary("array dimensions too short")
	}
	n := int32(binary.BigEndian.Uint32(b))
	if lb := int32(binary.BigEndian.Uint32(b[4:])); lb != 1 {
		return d, pgerr.New(pgerr.FeatureNotSupported, "arrays with a lower bound other than 1 are not supported")
	}
	b = b[8:]
	if n < 0 || int(n) > len(b)/4 {
		return d, badBinary("array length out of range")
	}
	buf := []byte{'{'}
	for i := range int(n) {
		v, rest, null, err := readField(b)
		if err != nil {
			return d, err
		}
		b = rest
		if i > 0 {
			buf = append(buf, ',')
		}
		if null {
			buf = append(buf, "NULL"...)
			continue
		}
		e, err := DecodeBinary(elemT, v, loc)
		if err != nil {
			return d, err
		}
		buf = types.AppendArrayElem(buf, types.FormatText(e, loc))
	}
	if len(b) != 0 {
		return d, badBinary("trailing bytes after the array")
	}
	d.S = string(append(buf, '}'))
	return d, nil
}

// readField reads one length-prefixed value (-1 is NULL) off b.
func readField(b []byte) (v, rest []byte, null bool, err error) {
	if len(b) < 4 {
		return nil, b, false, badBinary("value length missing")
	}
	l := int32(binary.BigEndian.Uint32(b))
	b = b[4:]
	if l == -1 {
		return nil, b, true, nil
	}
	if l < 0 || int(l) > len(b) {
		return nil, b, false, badBinary("value length out of range")
	}
	return b[:l], b[l:], false, nil
}

func badBinary(why string) error {
	return pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format: %s", why)
}
