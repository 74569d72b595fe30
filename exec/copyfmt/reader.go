package copyfmt

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	"github.com/loamdb/loam/types/pgcodec"
)

// BatchRows is how many rows a Reader puts in a batch.
const BatchRows = 64 << 10

// Column is one column the COPY data holds.
type Column struct {
	Name     string
	T        types.T
	Required bool // NOT NULL
}

// Reader parses COPY FROM data into Arrow batches of the columns' types.
type Reader struct {
	r       *bufio.Reader
	opts    Options
	cols    []Column
	table   string
	loc     *time.Location
	line    int64
	started bool
	done    bool

	sawEnd bool      // the text end marker \. was read
	par    *parallel // set when text input is parsed on several cores

	builders []array.Builder
	appends  []func(b []byte) error
	binary   []func(b []byte) error // per column, for the binary format
	fields   [][]byte
	quoted   []bool
	scratch  []byte
	ends     []int // CSV field ends in scratch
	rowBuf   []byte
	// raw is the text or CSV line (record) being parsed, which error
	// context quotes as PostgreSQL does; nil for binary.
	raw []byte
	// nullCol is the first NOT NULL column the row being parsed has a
	// null for, else -1: the error comes once the whole row is parsed, as
	// PostgreSQL checks constraints on the parsed row (a later field's
	// syntax error wins) and describes it.
	nullCol int
}

// NewReader reads COPY data in the given options from r. table names the
// target in error context lines.
func NewReader(r io.Reader, opts Options, table string, cols []Column, loc *time.Location) *Reader {
	rd := &Reader{r: newBufReader(r), opts: opts, cols: cols, table: table, loc: loc}
	rd.reset()
	if (opts.Format == Text || opts.Format == Binary) && runtime.GOMAXPROCS(0) > 1 {
		rd.startParallel()
	}
	return rd
}

func newBufReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 256<<10) }

// Next returns the next batch of rows, nil at the end of the data. The
// caller must Close the reader when done with it.
func (rd *Reader) Next() (arrow.RecordBatch, error) {
	if rd.par != nil {
		return rd.nextParallel()
	}
	return rd.nextSequential()
}

// Line is the number of input lines (rows, for binary) read so far.
func (rd *Reader) Line() int64 { return rd.line }

func (rd *Reader) reset() {
	rd.nullCol = -1
	rd.builders = make([]array.Builder, len(rd.cols))
	rd.appends = make([]func([]byte) error, len(rd.cols))
	for i, c := range rd.cols {
		b := array.NewBuilder(memory.DefaultAllocator, c.T.Arrow())
		b.Reserve(BatchRows)
		rd.builders[i] = b
		rd.appends[i] = pgcodec.TextAppender(c.T, b, rd.loc)
	}
	if rd.opts.Format == Binary {
		rd.binary = make([]func([]byte) error, len(rd.cols))
		for i, c := range rd.cols {
			rd.binary[i] = pgcodec.BinaryAppender(c.T, rd.builders[i], rd.loc)
		}
	}
}

// errAt wraps a value error with the COPY context PostgreSQL reports:
// the column, and for text and CSV the value (nil for binary).
func (rd *Reader) errAt(err error, col int, value []byte) error {
	pe := *pgerr.From(err)
	where := fmt.Sprintf("COPY %s, line %d", rd.table, rd.line)
	if col >= 0 {
		where += fmt.Sprintf(", column %s", rd.cols[col].Name)
		if value != nil {
			where += fmt.Sprintf(`: "%s"`, printout(value))
		}
	}
	pe.Where = where
	return &pe
}

func (rd *Reader) formatErr(code, format string, args ...any) error {
	e := pgerr.New(code, format, args...)
	e.Where = rd.lineWhere()
	return e
}

// lineWhere is the context of an error about a whole line: for text and
// CSV it quotes the line.
func (rd *Reader) lineWhere() string {
	if rd.raw != nil && rd.opts.Format != Binary {
		return fmt.Sprintf(`COPY %s, line %d: "%s"`, rd.table, rd.line, printout(rd.raw))
	}
	return fmt.Sprintf("COPY %s, line %d", rd.table, rd.line)
}

// printout cuts a value or line to PostgreSQL's 100 bytes (on a UTF-8
// character boundary) plus "...", as its COPY error context does.
func printout(b []byte) string {
	const max = 100
	if len(b) <= max {
		return string(b)
	}
	n := max
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "..."
}

func (rd *Reader) nextSequential() (arrow.RecordBatch, error) {
	if rd.done {
		return nil, nil
	}
	rows := 0
	for rows < BatchRows {
		ok, err := rd.readRow()
		if err != nil {
			return nil, err
		}
		if !ok {
			rd.done = true
			// Read to the end of the stream even after an end marker: a
			// client's CopyFail may still follow, and must abort the COPY.
			if _, err := io.Copy(io.Discard, rd.r); err != nil {
				return nil, err
			}
			break
		}
		rows++
	}
	if rows == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, len(rd.builders))
	fields := make([]arrow.Field, len(rd.builders))
	for i, b := range rd.builders {
		cols[i] = b.NewArray()
		fields[i] = arrow.Field{Name: rd.cols[i].Name, Type: cols[i].DataType(), Nullable: true}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

func (rd *Reader) readRow() (bool, error) {
	switch rd.opts.Format {
	case Binary:
		return rd.readBinaryRow()
	case CSV:
		return rd.readCSVRow()
	}
	return rd.readTextRow()
}

// readLine returns the next line without its terminator; ok is false at
// the end of the data.
func (rd *Reader) readLine() ([]byte, bool, error) {
	line, err := rd.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		buf := append(rd.rowBuf[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = rd.r.ReadSlice('\n')
			buf = append(buf, line...)
		}
		rd.rowBuf = buf
		line = buf
	}
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if len(line) == 0 && err == io.EOF {
		return nil, false, nil
	}
	rd.line++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	rd.raw = line
	return line, true, nil
}

func (rd *Reader) readTextRow() (bool, error) {
	line, ok, err := rd.readLine()
	if err != nil || !ok {
		return false, err
	}
	if string(line) == `\.` {
		rd.sawEnd = true
		return false, nil
	}
	rd.fields = rd.fields[:0]
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++ // an escaped character never splits
		case rd.opts.Delimiter:
			rd.fields = append(rd.fields, line[start:i])
			start = i + 1
		}
	}
	rd.fields = append(rd.fields, line[start:])
	if len(rd.cols) == 0 && len(line) == 0 {
		return true, nil
	}
	if err := rd.checkCount(); err != nil {
		return false, err
	}
	for i, f := range rd.fields {
		if string(f) == rd.opts.Null {
			if err := rd.appendNull(i); err != nil {
				return false, err
			}
			continue
		}
		if bytes.IndexByte(f, '\\') >= 0 {
			var err error
			if f, err = rd.unescape(f); err != nil {
				return false, rd.errAt(err, i, f)
			}
		}
		if err := rd.appends[i](f); err != nil {
			return false, rd.errAt(err, i, f)
		}
	}
	return true, rd.checkNotNull()
}

func (rd *Reader) checkCount() error {
	if len(rd.fields) > len(rd.cols) {
		return rd.formatErr(pgerr.BadCopyFileFormat, "extra data after last expected column")
	}
	if len(rd.fields) < len(rd.cols) {
		return rd.formatErr(pgerr.BadCopyFileFormat, "missing data for column %q", rd.cols[len(rd.fields)].Name)
	}
	return nil
}

func (rd *Reader) appendNull(i int) error {
	if rd.cols[i].Required && rd.nullCol < 0 {
		rd.nullCol = i
	}
	rd.builders[i].AppendNull()
	return nil
}

// checkNotNull raises the NOT NULL violation of the row just parsed, with
// PostgreSQL's detail "Failing row contains (…)." and the line as context.
func (rd *Reader) checkNotNull() error {
	i := rd.nullCol
	if i < 0 {
		return nil
	}
	rd.nullCol = -1
	// The reader is done after this error: its builders give the row.
	cols := make([]arrow.Array, len(rd.builders))
	fields := make([]arrow.Field, len(rd.builders))
	ts := make([]types.T, len(rd.cols))
	for k, b := range rd.builders {
		cols[k] = b.NewArray()
		defer cols[k].Release()
		fields[k] = arrow.Field{Name: rd.cols[k].Name, Type: cols[k].DataType(), Nullable: true}
		ts[k] = rd.cols[k].T
	}
	row := cols[0].Len() - 1
	var detail string
	if rd.opts.Describe != nil {
		rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(cols[0].Len()))
		detail = rd.opts.Describe(rec, row)
		rec.Release()
	} else {
		detail = types.DescribeRow(ts, cols, row, rd.loc)
	}
	return &pgerr.Error{Code: pgerr.NotNullViolation,
		Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", rd.cols[i].Name, rd.table),
		Detail:  "Failing row contains " + detail + ".",
		Where:   rd.lineWhere()}
}

// unescape decodes the text format's backslash escapes.
func (rd *Reader) unescape(f []byte) ([]byte, error) {
	out := rd.scratch[:0]
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '\\' || i+1 >= len(f) {
			out = append(out, c)
			continue
		}
		i++
		switch c = f[i]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'v':
			out = append(out, '\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(f) && isHex(f[i+1]) {
				v = v*16 + hexVal(f[i+1])
				i++
				n++
			}
			if n == 0 {
				out = append(out, 'x')
			} else {
				out = append(out, byte(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for n := 0; n < 2 && i+1 < len(f) && f[i+1] >= '0' && f[i+1] <= '7'; n++ {
				v = v*8 + int(f[i+1]-'0')
				i++
			}
			out = append(out, byte(v))
		default:
			out = append(out, c)
		}
	}
	rd.scratch = out
	if !utf8.Valid(out) {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid byte sequence for encoding \"UTF8\"")
	}
	return out, nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// readCSVRow reads one CSV record, which quoted fields may stretch over
// several lines.
func (rd *Reader) readCSVRow() (bool, error) {
	for {
		line, ok, err := rd.readLine()
		if err != nil || !ok {
			if err == nil && rd.started {
				return false, nil
			}
			return false, err
		}
		if string(line) == `\.` {
			return false, nil
		}
		if rd.opts.Header && !rd.started {
			rd.started = true
			continue
		}
		rd.started = true
		return rd.parseCSV(line)
	}
}

func (rd *Reader) parseCSV(line []byte) (bool, error) {
	q, esc, delim := rd.opts.Quote, rd.opts.Escape, rd.opts.Delimiter
	rd.quoted = rd.quoted[:0]
	if bytes.IndexByte(line, q) < 0 {
		// No quotes: the fields are the line's pieces, as in text.
		rd.fields = rd.fields[:0]
		start := 0
		for i, c := range line {
			if c == delim {
				rd.fields = append(rd.fields, line[start:i])
				rd.quoted = append(rd.quoted, false)
				start = i + 1
			}
		}
		rd.fields = append(rd.fields, line[start:])
		rd.quoted = append(rd.quoted, false)
		return rd.appendCSVFields()
	}
	buf := rd.scratch[:0]
	ends := rd.ends[:0]
	inQuotes, fieldQuoted := false, false
	for i := 0; ; {
		if i >= len(line) {
			if !inQuotes {
				ends = append(ends, len(buf))
				rd.quoted = append(rd.quoted, fieldQuoted)
				break
			}
			// A quoted field goes on over the next line.
			prev := append([]byte(nil), rd.raw...)
			next, ok, err := rd.readLine()
			if err != nil {
				return false, err
			}
			if !ok {
				return false, rd.formatErr(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
			}
			buf = append(buf, '\n')
			rd.raw = append(append(prev, '\n'), next...)
			rd.line-- // PostgreSQL counts a record as one line however many it spans
			line, i = next, 0
			continue
		}
		c := line[i]
		switch {
		case inQuotes && c == esc && i+1 < len(line) && (line[i+1] == q || line[i+1] == esc):
			// The escape character quotes the quote and itself (ESCAPE
			// '\' reads 'a\\b' as a\b, as PostgreSQL does).
			buf = append(buf, line[i+1])
			i += 2
		case inQuotes && c == q:
			inQuotes = false
			i++
		case inQuotes:
			buf = append(buf, c)
			i++
		case c == q:
			inQuotes, fieldQuoted = true, true
			i++
		case c == delim:
			ends = append(ends, len(buf))
			rd.quoted = append(rd.quoted, fieldQuoted)
			fieldQuoted = false
			i++
		default:
			buf = append(buf, c)
			i++
		}
	}
	rd.scratch, rd.ends = buf, ends
	rd.fields = rd.fields[:0]
	from := 0
	for _, e := range ends {
		rd.fields = append(rd.fields, buf[from:e])
		from = e
	}
	return rd.appendCSVFields()
}

// appendCSVFields appends the CSV record split into rd.fields.
func (rd *Reader) appendCSVFields() (bool, error) {
	if err := rd.checkCount(); err != nil {
		return false, err
	}
	for k, f := range rd.fields {
		// NULL is the null string unquoted; a quoted empty string is "".
		if string(f) == rd.opts.Null && !rd.quoted[k] {
			if err := rd.appendNull(k); err != nil {
				return false, err
			}
			continue
		}
		if err := rd.appends[k](f); err != nil {
			return false, rd.errAt(err, k, f)
		}
	}
	return true, rd.checkNotNull()
}

// readBinaryHeader reads the binary format's signature, flags and header
// extension.
func (rd *Reader) readBinaryHeader() error {
	var hdr [19]byte
	if _, err := io.ReadFull(rd.r, hdr[:]); err != nil {
		if !isEOF(err) {
			return err
		}
		return rd.formatErr(pgerr.BadCopyFileFormat, "COPY file signature not recognized")
	}
	if string(hdr[:11]) != "PGCOPY\n\xff\r\n\x00" {
		return rd.formatErr(pgerr.BadCopyFileFormat, "COPY file signature not recognized")
	}
	if flags := binary.BigEndian.Uint32(hdr[11:15]); flags&(1<<16) != 0 {
		return rd.formatErr(pgerr.BadCopyFileFormat, "COPY with OIDs is not supported")
	}
	ext := binary.BigEndian.Uint32(hdr[15:19])
	if _, err := rd.r.Discard(int(ext)); err != nil {
		return rd.formatErr(pgerr.BadCopyFileFormat, "invalid COPY file header (wrong length)")
	}
	return nil
}

func (rd *Reader) readBinaryRow() (bool, error) {
	if !rd.started {
		rd.started = true
		if err := rd.readBinaryHeader(); err != nil {
			return false, err
		}
	}
	var cnt [2]byte
	if _, err := io.ReadFull(rd.r, cnt[:]); err != nil {
		if err == io.EOF {
			return false, nil // the trailer is optional (pgx sends none)
		}
		if isEOF(err) {
			return false, rd.formatErr(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
		}
		return false, err
	}
	n := int16(binary.BigEndian.Uint16(cnt[:]))
	if n == -1 {
		return false, nil
	}
	rd.line++
	if int(n) != len(rd.cols) {
		return false, rd.formatErr(pgerr.BadCopyFileFormat, "row field count is %d, expected %d", n, len(rd.cols))
	}
	for i := range rd.cols {
		var l [4]byte
		if _, err := io.ReadFull(rd.r, l[:]); err != nil {
			if !isEOF(err) {
				return false, err
			}
			return false, rd.formatErr(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
		}
		size := int32(binary.BigEndian.Uint32(l[:]))
		if size == -1 {
			if err := rd.appendNull(i); err != nil {
				return false, err
			}
			continue
		}
		if size < 0 {
			return false, rd.formatErr(pgerr.BadCopyFileFormat, "invalid field size")
		}
		if size > maxFieldSize {
			e := rd.formatErr(pgerr.ProgramLimitExceeded, "out of memory").(*pgerr.Error)
			e.Detail = fmt.Sprintf("Cannot enlarge string buffer containing 0 bytes by %d more bytes.", size)
			return false, e
		}
		b, err := readField(rd.r, rd.scratch[:0], int(size))
		rd.scratch = b[:0]
		if err != nil {
			if !isEOF(err) {
				return false, err
			}
			return false, rd.formatErr(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
		}
		if err := rd.binary[i](b); err != nil {
			return false, rd.errAt(err, i, nil)
		}
	}
	return true, rd.checkNotNull()
}

// maxFieldSize is the largest binary field PostgreSQL takes (its
// MaxAllocSize, 1 GB less a byte).
const maxFieldSize = 1<<30 - 1

// readField reads a binary field of n bytes into buf, growing it as the
// bytes arrive: the length is the client's word, and a field that claims
// a gigabyte and ends after a few bytes must not allocate the gigabyte.
func readField(r io.Reader, buf []byte, n int) ([]byte, error) {
	const step = 1 << 20
	for len(buf) < n {
		k := min(n-len(buf), step)
		if cap(buf)-len(buf) < k {
			buf = append(buf[:cap(buf)], make([]byte, k-(cap(buf)-len(buf)))...)[:len(buf)]
		}
		m, err := io.ReadFull(r, buf[len(buf):len(buf)+k])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func isEOF(err error) bool { return err == io.EOF || err == io.ErrUnexpectedEOF }
