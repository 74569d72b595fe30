package copyfmt

import (
	"bytes"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
	"github.com/loamdb/loam/types/pgcodec"
)

// Writer renders batches as COPY TO data in the text, CSV or binary format.
type Writer struct {
	w     io.Writer
	opts  Options
	types []types.T
	names []string
	loc   *time.Location
	buf   []byte
	ends  []int // where each buffered row (or the CSV header) ends in buf
	val   []byte
	rows  int64
}

// NewWriter writes rows of the given column types to w.
func NewWriter(w io.Writer, opts Options, names []string, ts []types.T, loc *time.Location) (*Writer, error) {
	wr := &Writer{w: w, opts: opts, types: ts, names: names, loc: loc}
	if opts.Format == Binary {
		// The header goes out with the first row (or the trailer), as
		// PostgreSQL sends it.
		wr.buf = appendBinaryHeader(wr.buf)
	}
	if opts.Format == CSV && opts.Header {
		for i, n := range names {
			if i > 0 {
				wr.buf = append(wr.buf, opts.Delimiter)
			}
			wr.buf = wr.csvField(wr.buf, []byte(n))
		}
		wr.buf = append(wr.buf, '\n')
		wr.ends = append(wr.ends, len(wr.buf))
	}
	return wr, nil
}

// Rows is the number of rows written.
func (wr *Writer) Rows() int64 { return wr.rows }

// Write renders one batch; output goes to the underlying writer once about
// 64 KiB are buffered, one Write per row: the wire layer sends each Write as
// a CopyData message, and the protocol (and psycopg's Copy.rows) wants one
// row per message.
func (wr *Writer) Write(rec arrow.RecordBatch) error {
	if wr.opts.Format == Binary {
		return wr.writeBinary(rec)
	}
	n := int(rec.NumRows())
	fmts := make([]pgcodec.AppendFunc, len(wr.types))
	for c := range fmts {
		f, err := pgcodec.TextEncoder(wr.types[c], rec.Column(c), wr.loc)
		if err != nil {
			return err
		}
		fmts[c] = f
	}
	for r := 0; r < n; r++ {
		for c := range fmts {
			if c > 0 {
				wr.buf = append(wr.buf, wr.opts.Delimiter)
			}
			if rec.Column(c).IsNull(r) {
				wr.buf = append(wr.buf, wr.opts.Null...)
				continue
			}
			wr.val = fmts[c](wr.val[:0], r)
			if wr.opts.Format == CSV {
				wr.buf = wr.csvField(wr.buf, wr.val)
			} else {
				wr.buf = wr.textField(wr.buf, wr.val)
			}
		}
		wr.buf = append(wr.buf, '\n')
		if err := wr.endRow(); err != nil {
			return err
		}
	}
	return nil
}

// endRow marks the end of a row in buf, and writes out what is buffered
// once that is about 64 KiB.
func (wr *Writer) endRow() error {
	wr.ends = append(wr.ends, len(wr.buf))
	wr.rows++
	if len(wr.buf) >= 64<<10 {
		return wr.Flush()
	}
	return nil
}

// Finish ends the data (the binary format's trailer) and writes out what
// is buffered.
func (wr *Writer) Finish() error {
	if wr.opts.Format == Binary {
		wr.buf = appendBinaryTrailer(wr.buf)
		wr.ends = append(wr.ends, len(wr.buf))
	}
	return wr.Flush()
}

// Flush writes out what is buffered.
func (wr *Writer) Flush() error {
	if len(wr.buf) == 0 {
		return nil
	}
	start := 0
	for _, end := range wr.ends {
		if _, err := wr.w.Write(wr.buf[start:end]); err != nil {
			return err
		}
		start = end
	}
	wr.buf, wr.ends = wr.buf[:0], wr.ends[:0]
	return nil
}

func (wr *Writer) textField(buf, v []byte) []byte {
	for _, c := range v {
		switch c {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\v':
			buf = append(buf, '\\', 'v')
		default:
			if c == wr.opts.Delimiter {
				buf = append(buf, '\\')
			}
			buf = append(buf, c)
		}
	}
	return buf
}

// csvField quotes a value when it holds the delimiter, a quote, a line
// break, or reads like the NULL string.
func (wr *Writer) csvField(buf, v []byte) []byte {
	q := wr.opts.Quote
	need := string(v) == wr.opts.Null || bytes.IndexByte(v, wr.opts.Delimiter) >= 0 ||
		bytes.IndexByte(v, q) >= 0 || bytes.IndexAny(v, "\r\n") >= 0 || string(v) == `\.`
	if !need {
		return append(buf, v...)
	}
	buf = append(buf, q)
	for _, c := range v {
		if c == q || c == wr.opts.Escape {
			buf = append(buf, wr.opts.Escape)
		}
		buf = append(buf, c)
	}
	return append(buf, q)
}
