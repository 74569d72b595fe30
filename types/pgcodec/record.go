package pgcodec

import (
	"encoding/binary"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// appendRecord encodes a record from its text form in record_send's
// format: the field count, then each field's type OID and length-prefixed
// binary value.
func appendRecord(buf []byte, t types.T, text string) ([]byte, error) {
	fields := types.RecordFields(t)
	if fields == nil {
		return buf, pgerr.New(pgerr.FeatureNotSupported, "binary output of an anonymous record is not supported")
	}
	vals, null, err := types.SplitRecordText(text)
	if err != nil {
		return buf, err
	}
	if len(vals) != len(fields) {
		return buf, pgerr.New(pgerr.InternalError, "record %q does not have %d fields", text, len(fields))
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(fields)))
	for k, f := range fields {
		buf = binary.BigEndian.AppendUint32(buf, f.T.OID())
		if null[k] {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		d, err := types.ParseText(f.T, vals[k], time.UTC)
		if err != nil {
			return buf, err
		}
		if buf, err = appendField(buf, d); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// decodeRecord reads record_recv's format into the record's text form, for
// a record type whose fields Loam knows; the field OIDs must match them,
// as record_recv checks against the composite type.
func decodeRecord(t types.T, b []byte, loc *time.Location) (types.Datum, error) {
	d := types.Datum{T: t}
	fields := types.RecordFields(t)
	if fields == nil {
		return d, pgerr.New(pgerr.FeatureNotSupported, "input of anonymous composite types is not implemented")
	}
	if len(b) < 4 {
		return d, badBinary("record header too short")
	}
	if n := int32(binary.BigEndian.Uint32(b)); n != int32(len(fields)) {
		return d, pgerr.New(pgerr.DatatypeMismatch, "wrong number of columns: %d, expected %d", n, len(fields))
	}
	b = b[4:]
	vals := make([]string, len(fields))
	null := make([]bool, len(fields))
	for k, f := range fields {
		if len(b) < 4 {
			return d, badBinary("record field type missing")
		}
		if oid := binary.BigEndian.Uint32(b); oid != f.T.OID() {
			return d, pgerr.New(pgerr.DatatypeMismatch, "binary data has type %d (%s) instead of expected %d (%s) in record column %d",
				oid, typeName(oid), f.T.OID(), f.T, k+1)
		}
		v, rest, isNull, err := readField(b[4:])
		if err != nil {
			return d, err
		}
		b = rest
		if null[k] = isNull; isNull {
			continue
		}
		fd, err := DecodeBinary(f.T, v, loc)
		if err != nil {
			return d, err
		}
		vals[k] = types.FormatText(fd, loc)
	}
	if len(b) != 0 {
		return d, badBinary("trailing bytes after the record")
	}
	d.S = types.FormatRecord(vals, null)
	return d, nil
}

func typeName(oid uint32) string {
	if t, ok := types.FromOID(oid); ok {
		return t.String()
	}
	return "unknown"
}
