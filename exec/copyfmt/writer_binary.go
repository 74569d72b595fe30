package copyfmt

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types/pgcodec"
)

// PostgreSQL's binary COPY file: the signature, a flags word (no OIDs) and
// an empty header extension; then each row as its field count and each
// field as a length (-1 for NULL) and its binary (typsend) form; then a
// field count of -1.
var binarySignature = []byte("PGCOPY\n\xff\r\n\x00")

func appendBinaryHeader(buf []byte) []byte {
	buf = append(buf, binarySignature...)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	return binary.BigEndian.AppendUint32(buf, 0)
}

func appendBinaryTrailer(buf []byte) []byte {
	return binary.BigEndian.AppendUint16(buf, 0xFFFF)
}

// writeBinary renders one batch in the binary format with the codec's
// column encoders, the same bytes binary result rows carry.
func (wr *Writer) writeBinary(rec arrow.RecordBatch) error {
	var encErr error
	encs := make([]pgcodec.AppendFunc, len(wr.types))
	cols := make([]arrow.Array, len(wr.types))
	for c := range encs {
		cols[c] = rec.Column(c)
		enc, err := pgcodec.BinaryEncoder(wr.types[c], cols[c], &encErr)
		if err != nil {
			return err
		}
		encs[c] = enc
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		wr.buf = binary.BigEndian.AppendUint16(wr.buf, uint16(len(encs)))
		for c, enc := range encs {
			if cols[c].IsNull(r) {
				wr.buf = binary.BigEndian.AppendUint32(wr.buf, 0xFFFFFFFF)
				continue
			}
			at := len(wr.buf)
			wr.buf = binary.BigEndian.AppendUint32(wr.buf, 0)
			wr.buf = enc(wr.buf, r)
			binary.BigEndian.PutUint32(wr.buf[at:], uint32(len(wr.buf)-at-4))
		}
		if encErr != nil {
			return encErr
		}
		if err := wr.endRow(); err != nil {
			return err
		}
	}
	return nil
}
