package wire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// fakeEngine stands in for the SQL engine. Its sessions understand a few
// commands, separated by ';':
//
//	ints N          one int4 column n = 1..N, in batches of 3
//	echo T1 T2 ...  parameters $1.. of the named types, returned as one row
//	fail            a syntax error at position 3
//	panic           panics in Execute, as an engine bug would
//	sleep           blocks until its context is canceled
//	begin / commit  transaction status
//	settz ZONE      changes TimeZone (reported as ParameterStatus)
//	notice          queues a NOTICE
//	COPY t FROM STDIN [opts] / COPY t TO STDOUT [opts]  see fakeCopyOpts
type fakeEngine struct{}

func (fakeEngine) NewSession(user, db string, params map[string]string) (Session, error) {
	if tz := params["TimeZone"]; tz == "bad" {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", tz)
	}
	return &fakeSession{tx: 'I', loc: time.UTC, user: user}, nil
}

type fakeSession struct {
	user    string
	tx      byte
	loc     *time.Location
	changed [][2]string
	notices []*pgerr.Error
	copies  *copyStats    // where CopyIn records what it read; may be nil
	pid     uint32        // SetBackendPID's
	timeout time.Duration // statement_timeout, 0 for none
	closed  bool
}

func (s *fakeSession) TakeNotices() []*pgerr.Error {
	n := s.notices
	s.notices = nil
	return n
}

func (s *fakeSession) ParameterStatus() [][2]string {
	return [][2]string{{"server_version", "15.8"}, {"client_encoding", "UTF8"}, {"TimeZone", s.loc.String()},
		{"integer_datetimes", "on"}, {"standard_conforming_strings", "on"}, {"session_authorization", s.user}}
}
func (s *fakeSession) TakeParameterChanges() [][2]string {
	c := s.changed
	s.changed = nil
	return c
}
func (s *fakeSession) TxStatus() byte           { return s.tx }
func (s *fakeSession) Finish() error            { return nil }
func (s *fakeSession) Location() *time.Location { return s.loc }
func (s *fakeSession) MarkFailed() {
	if s.tx == 'T' {
		s.tx = 'E'
	}
}

var fakeTypeNames = map[string]types.T{
	"bool": types.TBool, "int2": types.TInt2, "int4": types.TInt4, "int8": types.TInt8,
	"float4": types.TFloat4, "float8": types.TFloat8, "numeric": types.TNumeric, "text": types.TText,
	"varchar": types.Of(types.Varchar), "bytea": types.TBytea, "date": types.TDate, "time": types.TTime,
	"timestamp": types.TTimestamp, "timestamptz": types.TTimestampTZ, "uuid": types.TUUID,
	"json": types.TJSON, "jsonb": types.TJSONB,
}

func (s *fakeSession) Prepare(ctx context.Context, query string, oids []uint32) ([]*engine.Statement, error) {
	var out []*engine.Statement
	for _, q := range strings.Split(query, ";") {
		q = strings.TrimSpace(q)
		if q == "" || strings.HasPrefix(q, "--") {
			continue
		}
		f := strings.Fields(q)
		st := &engine.Statement{Query: q}
		if strings.EqualFold(f[0], "copy") {
			o, err := parseFakeCopy(f)
			if err != nil {
				return nil, err
			}
			st.Copy = &engine.CopyInfo{In: o.in, Binary: o.binary, Columns: o.cols}
			out = append(out, st)
			continue
		}
		switch f[0] {
		case "ints":
			st.Columns = []engine.Column{{Name: "n", Type: types.TInt4, TableOID: 16384, ColumnNum: 1}}
		case "echo":
			for i, name := range f[1:] {
				t, ok := fakeTypeNames[name]
				if !ok {
					return nil, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
				}
				if i < len(oids) && oids[i] != 0 {
					t, _ = types.FromOID(oids[i])
				}
				st.ParamTypes = append(st.ParamTypes, t)
				st.Columns = append(st.Columns, engine.Column{Name: fmt.Sprintf("c%d", i+1), Type: t})
			}
		case "sleep", "sleepwatch", "begin", "commit", "settz", "notice", "panic":
		case "fail":
			return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"fail\"").WithPosition(3)
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near %q", f[0]).WithPosition(1)
		}
		out = append(out, st)
	}
	return out, nil
}

func (s *fakeSession) Execute(ctx context.Context, st *engine.Statement, params []types.Datum) (Cursor, error) {
	f := strings.Fields(st.Query)
	switch f[0] {
	case "ints":
		n, _ := strconv.Atoi(f[1])
		return intsCursor(st.Columns, n), nil
	case "echo":
		cols := make([]arrow.Array, len(params))
		for i, d := range params {
			cols[i] = buildArray(st.Columns[i].Type, []types.Datum{d})
		}
		return &fakeCursor{cols: st.Columns, batches: []arrow.RecordBatch{makeBatch(st.Columns, cols, 1)}, tag: "SELECT 1"}, nil
	case "sleep":
		return &fakeCursor{tag: "SLEEP", block: true}, nil
	case "sleepwatch":
		return &fakeCursor{tag: "SLEEP", block: true, woke: sleepWoke}, nil
	case "panic":
		var a []int
		_ = a[len(f)] // an index out of range
		return nil, nil
	case "notice":
		n := pgerr.New(pgerr.SuccessfulCompletion, "relation \"x\" already exists, skipping")
		n.Severity = "NOTICE"
		s.notices = append(s.notices, n)
		return &fakeCursor{tag: "CREATE TABLE"}, nil
	case "begin":
		s.tx = 'T'
		return &fakeCursor{tag: "BEGIN"}, nil
	case "commit":
		s.tx = 'I'
		return &fakeCursor{tag: "COMMIT"}, nil
	case "settz":
		loc, err := time.LoadLocation(f[1])
		if err != nil {
			return nil, err
		}
		s.loc = loc
		s.changed = append(s.changed, [2]string{"TimeZone", f[1]})
		return &fakeCursor{tag: "SET"}, nil
	}
	return nil, fmt.Errorf("unexpected statement %q", st.Query)
}

func intsCursor(cols []engine.Column, n int) *fakeCursor {
	c := &fakeCursor{cols: cols, tag: fmt.Sprintf("SELECT %d", n)}
	for lo := 1; lo <= n; lo += 3 {
		var ds []types.Datum
		for v := lo; v <= n && v < lo+3; v++ {
			ds = append(ds, types.Int(types.TInt4, int64(v)))
		}
		c.batches = append(c.batches, makeBatch(cols, []arrow.Array{buildArray(types.TInt4, ds)}, int64(len(ds))))
	}
	return c
}

type fakeCursor struct {
	cols    []engine.Column
	batches []arrow.RecordBatch
	tag     string
	block   bool
	closed  bool
	woke    chan error // a blocked Next sends why it woke
}

func (c *fakeCursor) Columns() []engine.Column { return c.cols }
func (c *fakeCursor) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if c.block {
		<-ctx.Done()
		if c.woke != nil {
			c.woke <- context.Cause(ctx)
		}
		return nil, fmt.Errorf("sleep interrupted: %w", ctx.Err())
	}
	if len(c.batches) == 0 {
		return nil, nil
	}
	b := c.batches[0]
	c.batches = c.batches[1:]
	return b, nil
}
func (c *fakeCursor) Tag() string { return c.tag }
func (c *fakeCursor) Close()      { c.closed = true }

func makeBatch(cols []engine.Column, arrs []arrow.Array, n int64) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, n)
}

// buildArray builds the Arrow array that carries ds, as the engine would.
func buildArray(t types.T, ds []types.Datum) arrow.Array {
	b := expr.NewBuilder(t, len(ds))
	for _, d := range ds {
		b.Append(d)
	}
	return b.Finish()
}

// fakeCopyOpts are the options of the fake's COPY, words after
// "COPY t FROM STDIN" or "COPY t TO STDOUT":
//
//	binary      binary format
//	cols=N      N columns (default 2)
//	failat=N    CopyIn fails (22P04) once it has read N bytes or more
//	errnow      CopyIn/CopyOut fail (42501) before touching the data
//	noread      CopyIn succeeds without reading ("COPY 0")
//	rows=N      CopyOut writes N rows "i<TAB>row i\n", one Write each
//	failafter=N CopyOut fails (22012) after writing N rows
type fakeCopyOpts struct {
	in, binary, errnow, noread    bool
	cols, failat, rows, failafter int
}

func parseFakeCopy(f []string) (fakeCopyOpts, error) {
	o := fakeCopyOpts{cols: 2, failat: -1, failafter: -1}
	if len(f) < 4 {
		return o, pgerr.New(pgerr.SyntaxError, "syntax error at end of input")
	}
	switch strings.ToLower(f[2] + " " + f[3]) {
	case "from stdin":
		o.in = true
	case "to stdout":
	default:
		return o, pgerr.New(pgerr.FeatureNotSupported, "COPY %s %s is not supported", f[2], f[3])
	}
	for _, w := range f[4:] {
		k, v, _ := strings.Cut(strings.ToLower(w), "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "binary":
			o.binary = true
		case "errnow":
			o.errnow = true
		case "noread":
			o.noread = true
		case "cols":
			o.cols = n
		case "failat":
			o.failat = n
		case "rows":
			o.rows = n
		case "failafter":
			o.failafter = n
		default:
			return o, pgerr.New(pgerr.SyntaxError, "option %q not recognized", w)
		}
	}
	return o, nil
}

// copyStats is what the fake's CopyIn saw; the server's goroutine writes
// it while the test reads it.
type copyStats struct {
	mu      sync.Mutex
	reads   int
	maxRead int   // largest n a Read returned
	bytes   int64 // total bytes read
	err     error // the last error Read returned (io.EOF at a clean end)
}

func (cs *copyStats) get() copyStats {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return copyStats{reads: cs.reads, maxRead: cs.maxRead, bytes: cs.bytes, err: cs.err}
}

func (s *fakeSession) CopyIn(ctx context.Context, st *engine.Statement, r io.Reader) (string, error) {
	o, _ := parseFakeCopy(strings.Fields(st.Query))
	if o.errnow {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied for table t")
	}
	if o.noread {
		return "COPY 0", nil
	}
	cs := s.copies
	if cs == nil {
		cs = &copyStats{}
	}
	// A buffer much larger than any CopyData message, so a reader that
	// joined messages would show.
	buf := make([]byte, 1<<20)
	var total int64
	lines := 0
	for {
		n, err := r.Read(buf)
		total += int64(n)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		cs.mu.Lock()
		cs.reads++
		cs.maxRead = max(cs.maxRead, n)
		cs.bytes += int64(n)
		cs.err = err
		cs.mu.Unlock()
		if o.failat >= 0 && total >= int64(o.failat) {
			return "", pgerr.New(pgerr.BadCopyFileFormat, "missing data for column \"b\"")
		}
		if err == io.EOF {
			return fmt.Sprintf("COPY %d", lines), nil
		}
		if err != nil {
			return "", fmt.Errorf("fake copy: %w", err)
		}
	}
}

func (s *fakeSession) CopyOut(ctx context.Context, st *engine.Statement, w io.Writer) (string, error) {
	o, _ := parseFakeCopy(strings.Fields(st.Query))
	if o.errnow {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied for table t")
	}
	for i := 1; i <= o.rows; i++ {
		if i-1 == o.failafter {
			return "", pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if _, err := fmt.Fprintf(w, "%d\trow %d\n", i, i); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("COPY %d", o.rows), nil
}
