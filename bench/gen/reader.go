package gen

import "io"

// Format is a COPY data format.
type Format int

// The COPY formats a Reader can produce.
const (
	Text Format = iota
	CSV
	Binary
)

// String is the format's name as COPY's FORMAT option spells it.
func (f Format) String() string {
	switch f {
	case Text:
		return "text"
	case CSV:
		return "csv"
	case Binary:
		return "binary"
	}
	return "unknown"
}

// readerChunk is about how many bytes a Reader renders at a time.
const readerChunk = 64 << 10

// Reader is an io.Reader of COPY data for rows [from, to) of a data set,
// rendered as they are read: memory stays at one chunk whatever the row
// count. For Binary it includes the header and trailer.
type Reader struct {
	g      *Gen
	format Format
	left   uint64 // rows still to render
	buf    []byte
	off    int // read position in buf
	header bool
	done   bool
	bytes  int64 // bytes handed out so far
}

// NewReader returns a Reader of rows [from, to) of the data set of seed.
func NewReader(seed, from, to uint64, format Format) *Reader {
	return &Reader{
		g:      NewAt(seed, from),
		format: format,
		left:   to - from,
		buf:    make([]byte, 0, readerChunk+512),
	}
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.done {
			return 0, io.EOF
		}
		r.fill()
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	r.bytes += int64(n)
	return n, nil
}

// Bytes is the number of bytes read so far.
func (r *Reader) Bytes() int64 { return r.bytes }

// fill renders the next chunk into buf.
func (r *Reader) fill() {
	b := r.buf[:0]
	if r.format == Binary && !r.header {
		b = AppendBinaryHeader(b)
		r.header = true
	}
	for r.left > 0 && len(b) < readerChunk {
		row := r.g.Next()
		r.left--
		switch r.format {
		case Text:
			b = AppendText(b, row)
		case CSV:
			b = AppendCSV(b, row)
		case Binary:
			b = AppendBinary(b, row)
		}
	}
	if r.left == 0 {
		if r.format == Binary {
			b = AppendBinaryTrailer(b)
		}
		r.done = true
	}
	r.buf, r.off = b, 0
}

// TextBytes is the size of rows [from, to) of the data set of seed in COPY
// text format: the data volume MB/s figures are measured against.
func TextBytes(seed, from, to uint64) int64 {
	g := NewAt(seed, from)
	var buf []byte
	var n int64
	for i := from; i < to; i++ {
		buf = AppendText(buf[:0], g.Next())
		n += int64(len(buf))
	}
	return n
}
