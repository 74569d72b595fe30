package wire

import (
	"encoding/binary"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types/pgcodec"
)

// rowEncoder writes DataRow messages from Arrow batches. For each batch it
// picks one encoder per column (text or binary, by the column's format code)
// and then appends rows into the connection's output buffer: no per-value
// interface values or type switches.
type rowEncoder struct {
	cols    []engine.Column
	formats []int16 // one per column
	loc     *time.Location
	encs    []colEncoder
	err     error // set by an encoder that met a value it cannot encode
}

type colEncoder struct {
	arr   arrow.Array
	nulls bool
	put   pgcodec.AppendFunc
}

func newRowEncoder(cols []engine.Column, formats []int16, loc *time.Location) *rowEncoder {
	return &rowEncoder{cols: cols, formats: formats, loc: loc, encs: make([]colEncoder, len(cols))}
}

// reset prepares the encoders for a new batch.
func (e *rowEncoder) reset(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != len(e.cols) {
		return pgerr.New(pgerr.InternalError, "result batch has %d columns, expected %d", rec.NumCols(), len(e.cols))
	}
	e.err = nil
	for j := range e.cols {
		arr := rec.Column(j)
		put, err := pgcodec.Encoder(e.cols[j].Type, e.format(j), arr, e.loc, &e.err)
		if err != nil {
			return err
		}
		e.encs[j] = colEncoder{arr: arr, nulls: arr.NullN() > 0, put: put}
	}
	return nil
}

func (e *rowEncoder) format(j int) int16 {
	if j < len(e.formats) {
		return e.formats[j]
	}
	return 0
}

// appendRow appends row i of the current batch as a DataRow.
func (e *rowEncoder) appendRow(buf []byte, i int) []byte {
	start := len(buf)
	buf = append(buf, 'D', 0, 0, 0, 0)
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(e.encs)))
	for j := range e.encs {
		ce := &e.encs[j]
		if ce.nulls && ce.arr.IsNull(i) {
			buf = append(buf, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		lp := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		buf = ce.put(buf, i)
		binary.BigEndian.PutUint32(buf[lp:], uint32(len(buf)-lp-4))
	}
	binary.BigEndian.PutUint32(buf[start+1:], uint32(len(buf)-start-1))
	return buf
}
