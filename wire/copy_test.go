package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

// statsEngine is the fake engine with its sessions' CopyIn recording into
// stats.
type statsEngine struct {
	fakeEngine
	stats *copyStats
}

func (e statsEngine) NewSession(user, db string, params map[string]string) (Session, error) {
	s, err := e.fakeEngine.NewSession(user, db, params)
	if err == nil {
		s.(*fakeSession).copies = e.stats
	}
	return s, err
}

func startCopyServer(t *testing.T) (*testServer, *copyStats) {
	stats := &copyStats{}
	return startServer(t, Config{Engine: statsEngine{stats: stats}}), stats
}

// lines returns n lines of COPY text, "i<TAB>line i\n".
func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\tline %d\n", i, i)
	}
	return b.String()
}

// errAfterReader returns its data, then err.
type errAfterReader struct {
	r   io.Reader
	err error
}

func (r *errAfterReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF {
		return n, r.err
	}
	return n, err
}

func TestCopyInPgx(t *testing.T) {
	ts, stats := startCopyServer(t)
	c := ts.connect(t, "")
	ctx := testCtx(t)
	data := lines(1000)
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY t FROM STDIN")
	if err != nil {
		t.Fatal(err)
	}
	if tag.String() != "COPY 1000" {
		t.Errorf("tag %q", tag)
	}
	if got := stats.get(); got.bytes != int64(len(data)) || got.err != io.EOF {
		t.Errorf("engine read %d bytes (last error %v), want %d and EOF", got.bytes, got.err, len(data))
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCopyInFailPgx(t *testing.T) {
	ts, _ := startCopyServer(t)
	c := ts.connect(t, "")
	ctx := testCtx(t)
	// pgx sends CopyFail with the reader's error.
	r := &errAfterReader{r: strings.NewReader(lines(100)), err: errors.New("disk on fire")}
	_, err := c.PgConn().CopyFrom(ctx, r, "COPY t FROM STDIN")
	pe := wantPgError(t, err, pgerr.QueryCanceled)
	if pe.Message != "COPY from stdin failed: disk on fire" {
		t.Errorf("message %q", pe.Message)
	}
	if c.PgConn().TxStatus() != 'I' {
		t.Errorf("tx status %q", c.PgConn().TxStatus())
	}
	var n int32
	if err := c.QueryRow(ctx, "ints 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after CopyFail: %d %v", n, err)
	}
}

func TestCopyInEngineErrorPgx(t *testing.T) {
	ts, stats := startCopyServer(t)
	c := ts.connect(t, "")
	ctx := testCtx(t)
	data := lines(200000) // ~3 MB; the engine gives up after 100 kB
	_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY t FROM STDIN failat=100000")
	wantPgError(t, err, pgerr.BadCopyFileFormat)
	if got := stats.get(); got.bytes >= int64(len(data)) {
		t.Errorf("engine read all %d bytes", got.bytes)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	// Failing before the data: no copy mode at all, and the data pgx sends
	// regardless is ignored.
	_, err = c.PgConn().CopyFrom(ctx, strings.NewReader(lines(10)), "COPY t FROM STDIN errnow")
	wantPgError(t, err, pgerr.InsufficientPrivilege)
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(lines(3)), "COPY t FROM STDIN")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("after errors: %q %v", tag, err)
	}
}

func TestCopyOutPgx(t *testing.T) {
	ts, _ := startCopyServer(t)
	c := ts.connect(t, "")
	ctx := testCtx(t)
	var buf bytes.Buffer
	tag, err := c.PgConn().CopyTo(ctx, &buf, "COPY t TO STDOUT rows=3")
	if err != nil {
		t.Fatal(err)
	}
	if tag.String() != "COPY 3" || buf.String() != "1\trow 1\n2\trow 2\n3\trow 3\n" {
		t.Errorf("tag %q data %q", tag, buf.String())
	}
	buf.Reset()
	tag, err = c.PgConn().CopyTo(ctx, &buf, "COPY t TO STDOUT rows=0")
	if err != nil || tag.String() != "COPY 0" || buf.Len() != 0 {
		t.Errorf("empty: tag %q data %q err %v", tag, buf.String(), err)
	}
	// Enough rows to pass the flush threshold before the error.
	buf.Reset()
	_, err = c.PgConn().CopyTo(ctx, &buf, "COPY t TO STDOUT rows=100000 failafter=50000")
	wantPgError(t, err, pgerr.DivisionByZero)
	if !strings.HasSuffix(buf.String(), "50000\trow 50000\n") {
		t.Errorf("data before the error ends %q", buf.String()[max(0, buf.Len()-30):])
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// copyMsgs returns the CopyData messages carrying data, in pieces of size.
func copyMsgs(data string, size int) []pgproto3.FrontendMessage {
	var out []pgproto3.FrontendMessage
	for len(data) > 0 {
		n := min(size, len(data))
		out = append(out, &pgproto3.CopyData{Data: []byte(data[:n])})
		data = data[n:]
	}
	return out
}

func msgsThen(ms []pgproto3.FrontendMessage, more ...pgproto3.FrontendMessage) []pgproto3.FrontendMessage {
	return append(append([]pgproto3.FrontendMessage(nil), ms...), more...)
}

func findMsg[T pgproto3.BackendMessage](t *testing.T, ms []pgproto3.BackendMessage) T {
	t.Helper()
	for _, m := range ms {
		if v, ok := m.(T); ok {
			return v
		}
	}
	var zero T
	t.Fatalf("no %T in %s", zero, describe(ms))
	return zero
}

// TestCopyInRaw checks the exact message sequences, as psql and libpq see
// them.
func TestCopyInRaw(t *testing.T) {
	ts, stats := startCopyServer(t)
	r := dialRaw(t, ts.addr)
	r.startup(t)

	t.Run("text", func(t *testing.T) {
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN cols=3"})
		ms := r.until(t, 'G')
		if g := ms[len(ms)-1].(*pgproto3.CopyInResponse); g.OverallFormat != 0 || fmt.Sprint(g.ColumnFormatCodes) != "[0 0 0]" {
			t.Errorf("CopyInResponse %+v", g)
		}
		// Flush and Sync in the stream are ignored.
		r.send(t, &pgproto3.CopyData{Data: []byte("1\ta\n2\t")}, &pgproto3.Flush{}, &pgproto3.Sync{},
			&pgproto3.CopyData{Data: []byte("b\n")}, &pgproto3.CopyData{}, &pgproto3.CopyDone{})
		ms = r.until(t, 'Z')
		if got := kinds(ms); got != "CZ" {
			t.Fatalf("messages %q", got)
		}
		if tag := string(ms[0].(*pgproto3.CommandComplete).CommandTag); tag != "COPY 2" {
			t.Errorf("tag %q", tag)
		}
	})
	t.Run("binary", func(t *testing.T) {
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN binary cols=2"})
		ms := r.until(t, 'G')
		if g := ms[len(ms)-1].(*pgproto3.CopyInResponse); g.OverallFormat != 1 || fmt.Sprint(g.ColumnFormatCodes) != "[1 1]" {
			t.Errorf("CopyInResponse %+v", g)
		}
		r.send(t, &pgproto3.CopyData{Data: []byte("PGCOPY\n\xff\r\n\x00")}, &pgproto3.CopyDone{})
		if got := kinds(r.until(t, 'Z')); got != "CZ" {
			t.Fatalf("messages %q", got)
		}
	})
	t.Run("copy fail in a transaction", func(t *testing.T) {
		r.send(t, &pgproto3.Query{String: "begin"})
		r.until(t, 'Z')
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN"})
		r.until(t, 'G')
		r.send(t, &pgproto3.CopyData{Data: []byte("1\ta\n")}, &pgproto3.CopyFail{Message: "no more"})
		ms := r.until(t, 'Z')
		if got := kinds(ms); got != "EZ" {
			t.Fatalf("messages %q", got)
		}
		if e := ms[0].(*pgproto3.ErrorResponse); e.Code != pgerr.QueryCanceled || e.Message != "COPY from stdin failed: no more" || e.Severity != "ERROR" {
			t.Errorf("error %+v", e)
		}
		if z := ms[1].(*pgproto3.ReadyForQuery); z.TxStatus != 'E' {
			t.Errorf("tx status %q", z.TxStatus)
		}
		r.send(t, &pgproto3.Query{String: "commit"})
		r.until(t, 'Z')
	})
	t.Run("engine error before the end", func(t *testing.T) {
		data := lines(20000)
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN failat=1000"})
		r.until(t, 'G')
		// The whole stream goes out before the answer is read: the server
		// must consume it all, answering only after CopyDone.
		r.send(t, msgsThen(copyMsgs(data, 8000), &pgproto3.CopyDone{})...)
		ms := r.until(t, 'Z')
		if got := kinds(ms); got != "EZ" {
			t.Fatalf("messages %q", got)
		}
		if e := ms[0].(*pgproto3.ErrorResponse); e.Code != pgerr.BadCopyFileFormat {
			t.Errorf("error %+v", e)
		}
		if got := stats.get(); got.bytes >= int64(len(data)) {
			t.Errorf("engine read %d bytes of %d", got.bytes, len(data))
		}
		r.send(t, &pgproto3.Query{String: "ints 2"})
		if got := kinds(r.until(t, 'Z')); got != "TDDCZ" {
			t.Fatalf("after: %q", got)
		}
	})
	t.Run("engine error then CopyFail", func(t *testing.T) {
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN failat=1"})
		r.until(t, 'G')
		r.send(t, &pgproto3.CopyData{Data: []byte("x\n")}, &pgproto3.CopyData{Data: []byte("y\n")}, &pgproto3.CopyFail{Message: "bye"})
		ms := r.until(t, 'Z')
		if e := findMsg[*pgproto3.ErrorResponse](t, ms); e.Code != pgerr.BadCopyFileFormat {
			t.Errorf("error %+v", e)
		}
	})
	t.Run("engine succeeds without reading", func(t *testing.T) {
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN noread"})
		r.until(t, 'G')
		r.send(t, &pgproto3.CopyData{Data: []byte("x\n")}, &pgproto3.CopyDone{})
		if got := kinds(r.until(t, 'Z')); got != "CZ" {
			t.Fatalf("messages %q", got)
		}
		// A CopyFail instead still fails the COPY.
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN noread"})
		r.until(t, 'G')
		r.send(t, &pgproto3.CopyData{Data: []byte("x\n")}, &pgproto3.CopyFail{Message: "stop"})
		ms := r.until(t, 'Z')
		if e := findMsg[*pgproto3.ErrorResponse](t, ms); e.Code != pgerr.QueryCanceled {
			t.Errorf("error %+v", e)
		}
	})
	t.Run("error before the copy starts", func(t *testing.T) {
		r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN errnow"})
		if got := kinds(r.until(t, 'Z')); got != "EZ" {
			t.Fatalf("messages %q", got)
		}
		// Copy messages outside COPY are ignored.
		r.send(t, &pgproto3.CopyData{Data: []byte("x\n")}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "ints 1"})
		if got := kinds(r.until(t, 'Z')); got != "TDCZ" {
			t.Fatalf("after: %q", got)
		}
	})
	t.Run("copy among other statements", func(t *testing.T) {
		r.send(t, &pgproto3.Query{String: "ints 1; COPY t FROM STDIN; ints 2"})
		if got := kinds(r.until(t, 'G')); got != "TDCG" {
			t.Fatalf("messages %q", got)
		}
		r.send(t, &pgproto3.CopyData{Data: []byte("1\tx\n")}, &pgproto3.CopyDone{})
		if got := kinds(r.until(t, 'Z')); got != "CTDDCZ" {
			t.Fatalf("messages %q", got)
		}
	})
}

func TestCopyOutRaw(t *testing.T) {
	ts, _ := startCopyServer(t)
	r := dialRaw(t, ts.addr)
	r.startup(t)
	r.send(t, &pgproto3.Query{String: "COPY t TO STDOUT rows=2 cols=4"})
	ms := r.until(t, 'Z')
	// H=CopyOutResponse d=CopyData c=CopyDone C=CommandComplete
	if got := kinds(ms); got != "HddcCZ" {
		t.Fatalf("messages %q", got)
	}
	if h := ms[0].(*pgproto3.CopyOutResponse); h.OverallFormat != 0 || fmt.Sprint(h.ColumnFormatCodes) != "[0 0 0 0]" {
		t.Errorf("CopyOutResponse %+v", h)
	}
	if d := ms[2].(*pgproto3.CopyData); string(d.Data) != "2\trow 2\n" {
		t.Errorf("second row %q", d.Data)
	}
	r.send(t, &pgproto3.Query{String: "COPY t TO STDOUT rows=3 failafter=1 binary"})
	ms = r.until(t, 'Z')
	if got := kinds(ms); got != "HdEZ" {
		t.Fatalf("messages %q", got)
	}
	if h := ms[0].(*pgproto3.CopyOutResponse); h.OverallFormat != 1 || fmt.Sprint(h.ColumnFormatCodes) != "[1 1]" {
		t.Errorf("CopyOutResponse %+v", h)
	}
	r.send(t, &pgproto3.Query{String: "COPY t TO STDOUT errnow"})
	if got := kinds(r.until(t, 'Z')); got != "EZ" {
		t.Fatalf("messages %q", got)
	}
}

// TestCopyExtended runs COPY through Parse/Bind/Execute the way libpq does:
// Sync right after Execute (ignored during copy-in), and another Sync after
// CopyDone or CopyFail.
func TestCopyExtended(t *testing.T) {
	ts, _ := startCopyServer(t)
	r := dialRaw(t, ts.addr)
	r.startup(t)
	execute := func(q string) []pgproto3.FrontendMessage {
		return []pgproto3.FrontendMessage{&pgproto3.Parse{Query: q}, &pgproto3.Bind{},
			&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{}}
	}
	cases := []struct {
		name  string
		query string
		data  []pgproto3.FrontendMessage // sent after the first reply
		want  string                     // kinds of all replies
	}{
		// 1=ParseComplete 2=BindComplete n=NoData
		{"copy in", "COPY t FROM STDIN", []pgproto3.FrontendMessage{
			&pgproto3.CopyData{Data: []byte("1\ta\n2\tb\n")}, &pgproto3.CopyDone{}, &pgproto3.Sync{}}, "12nG" + "CZ"},
		{"copy fail", "COPY t FROM STDIN", []pgproto3.FrontendMessage{
			&pgproto3.CopyData{Data: []byte("1\ta\n")}, &pgproto3.CopyFail{Message: "x"}, &pgproto3.Sync{}}, "12nG" + "EZ"},
		{"engine error", "COPY t FROM STDIN failat=2", []pgproto3.FrontendMessage{
			&pgproto3.CopyData{Data: []byte("1\ta\n")}, &pgproto3.CopyData{Data: []byte("2\tb\n")}, &pgproto3.CopyDone{},
			&pgproto3.Execute{}, &pgproto3.Sync{}}, "12nG" + "EZ"},
		{"copy out", "COPY t TO STDOUT rows=2", nil, "12nHddcCZ"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r.send(t, execute(tc.query)...)
			var ms []pgproto3.BackendMessage
			if tc.data != nil {
				ms = r.until(t, 'G')
				r.send(t, tc.data...)
			}
			ms = append(ms, r.until(t, 'Z')...)
			if got := kinds(ms); got != tc.want {
				t.Fatalf("messages %q, want %q", got, tc.want)
			}
		})
	}
	// A COPY portal runs once, as in PostgreSQL.
	r.send(t, &pgproto3.Parse{Query: "COPY t TO STDOUT rows=1"}, &pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Bind{DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p"}, &pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	ms := r.until(t, 'Z')
	if got := kinds(ms); got != "1tn2HdcCEZ" {
		t.Fatalf("messages %q", got)
	}
	if e := findMsg[*pgproto3.ErrorResponse](t, ms); e.Code != "55000" || e.Message != `portal "p" cannot be run` {
		t.Errorf("error %+v", e)
	}
}

func TestCopyInProtocolViolation(t *testing.T) {
	ts, _ := startCopyServer(t)
	r := dialRaw(t, ts.addr)
	r.startup(t)
	r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN"})
	r.until(t, 'G')
	r.send(t, &pgproto3.CopyData{Data: []byte("1\n")}, &pgproto3.Query{String: "ints 1"})
	// As PostgreSQL: an ERROR, then a FATAL.
	for _, want := range []string{"ERROR unexpected message type 0x51 during COPY from stdin",
		"FATAL terminating connection because protocol synchronization was lost"} {
		m, err := r.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		e, ok := m.(*pgproto3.ErrorResponse)
		if !ok || e.Code != pgerr.ProtocolViolation || e.Severity+" "+e.Message != want {
			t.Fatalf("got %#v, want %s", m, want)
		}
	}
	if _, err := r.fe.Receive(); err == nil {
		t.Fatal("connection still open")
	}
}

func TestCopyInClientGone(t *testing.T) {
	ts, stats := startCopyServer(t)
	r := dialRaw(t, ts.addr)
	r.startup(t)
	r.send(t, &pgproto3.Query{String: "COPY t FROM STDIN"})
	r.until(t, 'G')
	r.send(t, &pgproto3.CopyData{Data: []byte("1\ta\n")})
	r.nc.Close()
	// The engine sees an unexpected EOF, never a clean io.EOF.
	deadline := time.Now().Add(5 * time.Second)
	for stats.get().err == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := stats.get(); !errors.Is(got.err, io.ErrUnexpectedEOF) {
		t.Errorf("engine's last read error %v", got.err)
	}
}

// TestCopyInBoundedPgx streams 32 MB through pgx and checks that no Read
// hands the engine more than one CopyData message's payload (pgx sends at
// most 65531 bytes a message).
func TestCopyInBoundedPgx(t *testing.T) {
	ts, stats := startCopyServer(t)
	c := ts.connect(t, "")
	const size = 32 << 20
	tag, err := c.PgConn().CopyFrom(testCtx(t), io.LimitReader(lineSource{}, size), "COPY t FROM STDIN")
	if err != nil {
		t.Fatal(err)
	}
	got := stats.get()
	if got.bytes != size {
		t.Errorf("engine read %d bytes, want %d", got.bytes, size)
	}
	if got.maxRead > 65536-5 {
		t.Errorf("a Read returned %d bytes, more than one message", got.maxRead)
	}
	if want := fmt.Sprintf("COPY %d", size/8); tag.String() != want {
		t.Errorf("tag %q, want %q", tag, want)
	}
}

// lineSource yields "1234567\n" forever.
type lineSource struct{}

func (lineSource) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "1234567\n"[i%8]
	}
	return len(p) - len(p)%8, nil
}

// copyStream generates a copy-in stream of CopyData messages of growing
// size (up to 4 MiB, beyond the reader's reuse limit), Flushes, and a final
// CopyDone, without holding it in memory.
type copyStream struct {
	left  int64 // payload bytes still to generate
	msg   int   // payload bytes left in the current message
	hdr   []byte
	sizes int
	done  bool
}

func (s *copyStream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case len(s.hdr) > 0:
			k := copy(p[n:], s.hdr)
			s.hdr = s.hdr[k:]
			n += k
		case s.msg > 0:
			k := min(len(p)-n, s.msg)
			clear(p[n : n+k])
			s.msg -= k
			n += k
		case s.left > 0:
			s.sizes++
			size := int(min(s.left, int64(1<<(s.sizes%23))))
			s.left -= int64(size)
			s.msg = size
			s.hdr = binary.BigEndian.AppendUint32([]byte{'d'}, uint32(size+4))
			if s.sizes%5 == 0 {
				s.hdr = append([]byte{'H', 0, 0, 0, 4}, s.hdr...)
			}
		case !s.done:
			s.done = true
			s.hdr = []byte{'c', 0, 0, 0, 4}
		default:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	return n, nil
}

// TestCopyInReaderBoundedMemory reads 256 MiB through copyInReader and
// checks that it allocates next to nothing: message bodies, even large
// ones, are streamed rather than buffered.
func TestCopyInReaderBoundedMemory(t *testing.T) {
	const total = 256 << 20
	stream := &copyStream{left: total}
	c := &conn{rd: newMsgReader(bufio.NewReaderSize(stream, 16<<10), 0)}
	r := &copyInReader{c: c, ctx: context.Background(), info: &engine.CopyInfo{In: true}, started: true}
	buf := make([]byte, 1<<20)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	var got int64
	maxRead := 0
	for {
		n, err := r.Read(buf)
		got += int64(n)
		maxRead = max(maxRead, n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms1)
	if got != total {
		t.Errorf("read %d bytes, want %d", got, total)
	}
	if maxRead > 1<<22 {
		t.Errorf("a Read returned %d bytes, more than one message", maxRead)
	}
	if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("reading %d MiB allocated %d bytes", total>>20, alloc)
	}
}

// cancelingReader returns chunk three times, sending a CancelRequest
// before the third, once the engine has data (pgx does not wait for
// CopyInResponse, and a cancel before the COPY runs would do nothing).
type cancelingReader struct {
	t     *testing.T
	pc    *pgconn.PgConn
	stats *copyStats
	chunk string
	reads int
}

func (r *cancelingReader) Read(p []byte) (int, error) {
	r.reads++
	switch r.reads {
	case 3:
		for deadline := time.Now().Add(5 * time.Second); r.stats.get().bytes == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		if err := r.pc.CancelRequest(context.Background()); err != nil {
			r.t.Error(err)
		}
	case 4:
		return 0, io.EOF
	}
	return copy(p, r.chunk), nil
}

func TestCopyInCancel(t *testing.T) {
	ts, stats := startCopyServer(t)
	c := ts.connect(t, "")
	ctx := testCtx(t)
	r := &cancelingReader{t: t, pc: c.PgConn(), stats: stats, chunk: lines(100)}
	_, err := c.PgConn().CopyFrom(ctx, r, "COPY t FROM STDIN")
	pe := wantPgError(t, err, pgerr.QueryCanceled)
	if pe.Message != "canceling statement due to user request" {
		t.Errorf("message %q", pe.Message)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCopyInReaderPieces feeds the copy-in reader a byte stream three bytes
// at a time: each Read stays within one CopyData message, Flush and Sync
// vanish, and drain skips what the engine left.
func TestCopyInReaderPieces(t *testing.T) {
	stream := concat(
		[]byte{'d', 0, 0, 0, 9}, []byte("hello"), // CopyData "hello"
		[]byte{'H', 0, 0, 0, 4},                    // Flush
		[]byte{'S', 0, 0, 0, 4},                    // Sync
		[]byte{'d', 0, 0, 0, 10}, []byte(" world"), // CopyData " world"
		[]byte{'d', 0, 0, 0, 7}, []byte("!!!"), // CopyData "!!!", left for drain
		[]byte{'c', 0, 0, 0, 4},    // CopyDone
		[]byte{'Q', 0, 0, 0, 5, 0}, // the next query, untouched
	)
	c := &conn{rd: newMsgReader(&pieceReader{b: stream, n: 3}, 0)}
	r := &copyInReader{c: c, ctx: context.Background(), info: &engine.CopyInfo{In: true}, started: true}
	buf := make([]byte, 100)
	var got []string
	for len(strings.Join(got, "")) < len("hello world") {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(buf[:n]))
	}
	if strings.Join(got, "") != "hello world" {
		t.Errorf("read %q", got)
	}
	for _, s := range got {
		if strings.Contains(s, "o w") {
			t.Errorf("a Read crossed a message boundary: %q", got)
		}
	}
	if err := r.drain(); err != nil || r.end != io.EOF {
		t.Fatalf("drain: %v, end %v", err, r.end)
	}
	if n, err := r.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("after CopyDone: %d %v", n, err)
	}
	if typ, body, err := c.rd.readMessage(); err != nil || typ != 'Q' || len(body) != 1 {
		t.Errorf("next message %q %v %v", typ, body, err)
	}
}
