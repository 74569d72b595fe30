package wire

import (
	"encoding/binary"

	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// rowDescription describes result columns with their format codes.
func rowDescription(cols []engine.Column, formats []int16) *rowDesc {
	return &rowDesc{cols: cols, formats: formats}
}

// rowDesc encodes RowDescription straight from engine columns.
type rowDesc struct {
	cols    []engine.Column
	formats []int16
}

func (*rowDesc) Backend() {}

func (r *rowDesc) Decode([]byte) error { return nil }

func (r *rowDesc) Encode(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 'T', 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(r.cols)))
	for j, c := range r.cols {
		dst = append(dst, c.Name...)
		dst = append(dst, 0)
		dst = binary.BigEndian.AppendUint32(dst, c.TableOID)
		dst = binary.BigEndian.AppendUint16(dst, uint16(c.ColumnNum))
		dst = binary.BigEndian.AppendUint32(dst, c.Type.OID())
		dst = binary.BigEndian.AppendUint16(dst, uint16(c.Type.Size()))
		dst = binary.BigEndian.AppendUint32(dst, uint32(c.Type.Typmod()))
		var f int16
		if j < len(r.formats) {
			f = r.formats[j]
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(f))
	}
	binary.BigEndian.PutUint32(dst[start+1:], uint32(len(dst)-start-1))
	return dst, nil
}

// paramDescription lists parameter type OIDs.
func paramDescription(ts []types.T) []uint32 {
	oids := make([]uint32, len(ts))
	for i, t := range ts {
		oids[i] = t.OID()
	}
	return oids
}
