package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

type testServer struct {
	srv  *Server
	addr string
	stop func()
}

func startServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	if cfg.Engine == nil {
		cfg.Engine = fakeEngine{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	ts := &testServer{srv: srv, addr: ln.Addr().String()}
	var once bool
	ts.stop = func() {
		if once {
			return
		}
		once = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testServer) url(userinfo string) string {
	if userinfo == "" {
		userinfo = "loam"
	}
	return fmt.Sprintf("postgres://%s@%s/loam?sslmode=disable", userinfo, ts.addr)
}

func (ts *testServer) connect(t *testing.T, userinfo string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, ts.url(userinfo))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func wantPgError(t *testing.T, err error, code string) *pgconn.PgError {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want PgError %s", err, code)
	}
	if pe.Code != code {
		t.Fatalf("code %s (%s), want %s", pe.Code, pe.Message, code)
	}
	return pe
}

func TestConnectTrust(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	pc := c.PgConn()
	if v := pc.ParameterStatus("server_version"); v != "15.8" {
		t.Errorf("server_version %q", v)
	}
	if pc.PID() == 0 {
		t.Error("no BackendKeyData pid")
	}
	if pc.TxStatus() != 'I' {
		t.Errorf("tx status %q", pc.TxStatus())
	}
	var n int32
	if err := c.QueryRow(testCtx(t), "ints 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("ints 1: %d %v", n, err)
	}
}

func TestSimpleQuery(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	ctx := testCtx(t)
	res, err := c.PgConn().Exec(ctx, "ints 5; ints 0; settz America/New_York").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	var got []string
	for _, r := range res[0].Rows {
		got = append(got, string(r[0]))
	}
	if strings.Join(got, ",") != "1,2,3,4,5" || res[0].CommandTag.String() != "SELECT 5" {
		t.Errorf("rows %v tag %q", got, res[0].CommandTag)
	}
	if f := res[0].FieldDescriptions; len(f) != 1 || f[0].Name != "n" || f[0].DataTypeOID != 23 || f[0].TableOID != 16384 || f[0].TableAttributeNumber != 1 || f[0].DataTypeSize != 4 || f[0].TypeModifier != -1 {
		t.Errorf("field descriptions %+v", f)
	}
	if len(res[1].Rows) != 0 || res[2].CommandTag.String() != "SET" {
		t.Errorf("results %+v", res)
	}
	if tz := c.PgConn().ParameterStatus("TimeZone"); tz != "America/New_York" {
		t.Errorf("TimeZone status %q", tz)
	}
	// Empty query.
	res, err = c.PgConn().Exec(ctx, " ; ").ReadAll()
	if err != nil || len(res) != 1 || len(res[0].Rows) != 0 || res[0].CommandTag.String() != "" {
		t.Errorf("empty query: %v %v", res, err)
	}
	// An error stops the rest of the string.
	_, err = c.PgConn().Exec(ctx, "ints 1; bogus; settz Asia/Tokyo").ReadAll()
	wantPgError(t, err, pgerr.SyntaxError)
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestNotice(t *testing.T) {
	ts := startServer(t, Config{})
	cfg, err := pgx.ParseConfig(ts.url(""))
	if err != nil {
		t.Fatal(err)
	}
	var got []*pgconn.Notice
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { got = append(got, n) }
	c, err := pgx.ConnectConfig(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(testCtx(t), "notice"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Severity != "NOTICE" || got[0].Code != "00000" || got[0].Message != `relation "x" already exists, skipping` {
		t.Errorf("notices %+v", got)
	}
}

func TestTransactionStatus(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	ctx := testCtx(t)
	pc := c.PgConn()
	steps := []struct {
		sql  string
		code string
		tx   byte
	}{
		{"begin", "", 'T'},
		{"ints 1", "", 'T'},
		{"nonsense", pgerr.SyntaxError, 'E'},
		{"commit", "", 'I'},
	}
	for _, s := range steps {
		_, err := pc.Exec(ctx, s.sql).ReadAll()
		if s.code != "" {
			wantPgError(t, err, s.code)
		} else if err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
		if pc.TxStatus() != s.tx {
			t.Errorf("after %s: tx %q, want %q", s.sql, pc.TxStatus(), s.tx)
		}
	}
}

// TestExtendedTypes sends each type as a parameter and reads it back, with
// pgx choosing binary parameters and results, and again with text results.
func TestExtendedTypes(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	ctx := testCtx(t)
	ts1 := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	u := pgtype.UUID{Bytes: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, Valid: true}
	cases := []struct {
		typ  string
		in   any
		out  any // pointer to scan into
		want any
		text string // the text-format result
	}{
		{"bool", true, new(bool), true, "t"},
		{"int2", int16(-5), new(int16), int16(-5), "-5"},
		{"int4", int32(1 << 30), new(int32), int32(1 << 30), "1073741824"},
		{"int8", int64(-1 << 40), new(int64), int64(-1 << 40), "-1099511627776"},
		{"float4", float32(0.25), new(float32), float32(0.25), "0.25"},
		{"float8", 1e100, new(float64), 1e100, "1e+100"},
		{"text", "héllo", new(string), "héllo", "héllo"},
		{"varchar", "v", new(string), "v", "v"},
		{"bytea", []byte{1, 2, 255}, new([]byte), []byte{1, 2, 255}, `\x0102ff`},
		{"date", pgtype.Date{Time: time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), Valid: true}, new(pgtype.Date),
			pgtype.Date{Time: time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), Valid: true}, "1999-12-31"},
		{"time", pgtype.Time{Microseconds: 3723000001, Valid: true}, new(pgtype.Time), pgtype.Time{Microseconds: 3723000001, Valid: true}, "01:02:03.000001"},
		{"timestamp", pgtype.Timestamp{Time: ts1, Valid: true}, new(pgtype.Timestamp), pgtype.Timestamp{Time: ts1, Valid: true}, "2024-02-29 13:14:15.123456"},
		{"timestamptz", ts1, new(time.Time), ts1, "2024-02-29 13:14:15.123456+00"},
		{"uuid", u, new(pgtype.UUID), u, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"numeric", "-12.3400", new(string), "-12.3400", "-12.3400"},
		{"json", `{"a":1}`, new(string), `{"a":1}`, `{"a":1}`},
		// jsonb comes back in PostgreSQL's normal form: a space after : and ,.
		{"jsonb", `{"b":2}`, new(string), `{"b": 2}`, `{"b": 2}`},
	}
	for _, tc := range cases {
		t.Run(tc.typ, func(t *testing.T) {
			q := "echo " + tc.typ
			if err := c.QueryRow(ctx, q, tc.in).Scan(tc.out); err != nil {
				t.Fatalf("binary: %v", err)
			}
			got := deref(tc.out)
			if tm, ok := got.(time.Time); ok {
				got = tm.UTC()
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("binary round trip: got %v, want %v", got, tc.want)
			}
			var s string
			if err := c.QueryRow(ctx, q, pgx.QueryResultFormats{pgx.TextFormatCode}, tc.in).Scan(&s); err != nil {
				t.Fatalf("text: %v", err)
			}
			if s != tc.text {
				t.Errorf("text result %q, want %q", s, tc.text)
			}
		})
	}
	// NULL parameters and results.
	var p *int32
	if err := c.QueryRow(ctx, "echo int4", nil).Scan(&p); err != nil || p != nil {
		t.Errorf("null: %v %v", p, err)
	}
	// A text-format parameter (pgx sends strings for int4 as text).
	var n int32
	if err := c.QueryRow(ctx, "echo int4", "42").Scan(&n); err != nil || n != 42 {
		t.Errorf("text param: %d %v", n, err)
	}
	_, err := c.Exec(ctx, "echo int4", "forty-two")
	wantPgError(t, err, pgerr.InvalidTextRepresentation)
}

func deref(p any) any {
	switch v := p.(type) {
	case *bool:
		return *v
	case *int16:
		return *v
	case *int32:
		return *v
	case *int64:
		return *v
	case *float32:
		return *v
	case *float64:
		return *v
	case *string:
		return *v
	case *[]byte:
		return *v
	case *pgtype.Date:
		return *v
	case *pgtype.Time:
		return *v
	case *pgtype.Timestamp:
		return *v
	case *time.Time:
		return *v
	case *pgtype.UUID:
		return *v
	}
	return p
}

func TestErrorsKeepConnection(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	ctx := testCtx(t)
	_, err := c.Exec(ctx, "fail")
	pe := wantPgError(t, err, pgerr.SyntaxError)
	if pe.Position != 3 || pe.Severity != "ERROR" {
		t.Errorf("error %+v", pe)
	}
	var n int32
	if err := c.QueryRow(ctx, "ints 2").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after error: %d %v", n, err)
	}
	c2 := ts.connect(t, "")
	if err := c2.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// A panic inside a statement is that statement's XX000 error: the
// transaction fails, the session goes on, over both protocols.
func TestPanicIsStatementError(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	ctx := testCtx(t)
	if _, err := c.Exec(ctx, "begin"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Exec(ctx, "panic", pgx.QueryExecModeSimpleProtocol)
	if pe := wantPgError(t, err, pgerr.InternalError); pe.Severity != "ERROR" || !strings.Contains(pe.Message, "index out of range") {
		t.Errorf("error %+v", pe)
	}
	if st := c.PgConn().TxStatus(); st != 'E' {
		t.Errorf("transaction status %c after the panic, want E", st)
	}
	if _, err := c.Exec(ctx, "commit"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "panic", pgx.QueryExecModeExec)
	wantPgError(t, err, pgerr.InternalError)
	var n int32
	if err := c.QueryRow(ctx, "ints 2").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the panics: %d %v", n, err)
	}

	r := dialRaw(t, ts.addr)
	r.startup(t)
	r.send(t, &pgproto3.Parse{Query: "panic"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Parse{Query: "ints 1"}, &pgproto3.Sync{})
	if got := kinds(r.until(t, 'Z')); got != "12EZ" {
		t.Fatalf("messages %q, want 12EZ", got)
	}
}

func TestRealEngineError(t *testing.T) {
	dir := t.TempDir()
	eng, err := engine.Open(context.Background(), engine.Config{
		MetastoreURL: "sqlite://" + dir + "/meta.db",
		WarehouseURL: "file://" + dir + "/warehouse",
		DataDir:      dir,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ts := startServer(t, Config{Engine: FromEngine(eng)})
	ctx := testCtx(t)
	c := ts.connect(t, "")
	if _, err := c.Exec(ctx, "SELEC 1"); err == nil {
		t.Fatal("want an error")
	} else {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code == "" {
			t.Fatalf("err %v, want a PgError", err)
		}
	}
	if _, err := c.PgConn().Exec(ctx, "SELECT 1").ReadAll(); err == nil {
		t.Log("engine answered SELECT 1")
	}
	c2 := ts.connect(t, "")
	if c2.PgConn().TxStatus() != 'I' {
		t.Error("second connection not ready")
	}
}

// TestDeallocate: DEALLOCATE, DEALLOCATE ALL and DISCARD ALL drop the
// connection's prepared statements, so a client (pgx's DeallocateAll) can
// prepare the same names again; an unknown name is 26000.
func TestDeallocate(t *testing.T) {
	dir := t.TempDir()
	eng, err := engine.Open(context.Background(), engine.Config{
		MetastoreURL: "sqlite://" + dir + "/meta.db",
		WarehouseURL: "file://" + dir + "/warehouse",
		DataDir:      dir,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ts := startServer(t, Config{Engine: FromEngine(eng)})
	ctx := testCtx(t)
	pc := ts.connect(t, "").PgConn()
	prepare := func(name string) {
		t.Helper()
		if _, err := pc.Prepare(ctx, name, "SELECT 1", nil); err != nil {
			t.Fatalf("prepare %s: %v", name, err)
		}
	}
	exec := func(sql, wantTag string) {
		t.Helper()
		res, err := pc.Exec(ctx, sql).ReadAll()
		if err != nil || len(res) != 1 || res[0].CommandTag.String() != wantTag {
			t.Fatalf("%s: %v %v, want tag %s", sql, res, err, wantTag)
		}
	}
	prepare("a")
	prepare("b")
	exec("DEALLOCATE a", "DEALLOCATE")
	prepare("a")
	exec("DEALLOCATE ALL", "DEALLOCATE ALL")
	prepare("a")
	prepare("b")
	exec("DISCARD ALL", "DISCARD ALL")
	prepare("a")
	_, err = pc.Exec(ctx, "DEALLOCATE nope").ReadAll()
	wantPgError(t, err, pgerr.UndefinedPreparedStatement)
}

func TestCancelRequest(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	ctx := testCtx(t)
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = c.PgConn().CancelRequest(context.Background())
	}()
	_, err := c.PgConn().Exec(ctx, "sleep").ReadAll()
	pe := wantPgError(t, err, pgerr.QueryCanceled)
	if pe.Message != "canceling statement due to user request" {
		t.Errorf("message %q", pe.Message)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAuth(t *testing.T) {
	for _, method := range []AuthMethod{AuthSCRAM, AuthPassword} {
		t.Run(string(method), func(t *testing.T) {
			ts := startServer(t, Config{Password: "s3cr3t pass", AuthMethod: method})
			ctx := testCtx(t)
			c := ts.connect(t, "loam:s3cr3t%20pass")
			if err := c.Ping(ctx); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"loam:wrong", "loam"} {
				_, err := pgx.Connect(ctx, ts.url(bad))
				pe := wantPgError(t, err, pgerr.InvalidPassword)
				if pe.Severity != "FATAL" || pe.Message != `password authentication failed for user "loam"` {
					t.Errorf("%s: %+v", bad, pe)
				}
			}
			// The server still serves.
			c2 := ts.connect(t, "loam:s3cr3t%20pass")
			if err := c2.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// rawClient speaks the protocol byte by byte for what pgx cannot send.
type rawClient struct {
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return &rawClient{nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

func (r *rawClient) startup(t *testing.T) {
	t.Helper()
	r.fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "loam", "database": "loam"}})
	if err := r.fe.Flush(); err != nil {
		t.Fatal(err)
	}
	r.until(t, 'Z')
}

// until reads messages up to and including one of type typ (by its
// identifying byte) and returns them.
func (r *rawClient) until(t *testing.T, typ byte) []pgproto3.BackendMessage {
	t.Helper()
	var out []pgproto3.BackendMessage
	for {
		m, err := r.fe.Receive()
		if err != nil {
			t.Fatalf("receive after %s: %v", describe(out), err)
		}
		// Receive reuses message values; keep a copy of what we look at.
		enc, _ := m.Encode(nil)
		out = append(out, m)
		if enc[0] == typ {
			return out
		}
		if er, ok := m.(*pgproto3.ErrorResponse); ok && typ != 'E' && er.Severity == "FATAL" {
			t.Fatalf("fatal error: %+v", er)
		}
	}
}

func describe(ms []pgproto3.BackendMessage) string {
	var s []string
	for _, m := range ms {
		s = append(s, fmt.Sprintf("%T", m))
	}
	return strings.Join(s, " ")
}

func (r *rawClient) send(t *testing.T, msgs ...pgproto3.FrontendMessage) {
	t.Helper()
	for _, m := range msgs {
		r.fe.Send(m)
	}
	if err := r.fe.Flush(); err != nil {
		t.Fatal(err)
	}
}

// kinds lists the messages' identifying bytes.
func kinds(ms []pgproto3.BackendMessage) string {
	var b []byte
	for _, m := range ms {
		enc, _ := m.Encode(nil)
		b = append(b, enc[0])
	}
	return string(b)
}

func TestPortalSuspended(t *testing.T) {
	ts := startServer(t, Config{})
	r := dialRaw(t, ts.addr)
	r.startup(t)
	r.send(t,
		&pgproto3.Parse{Name: "s", Query: "ints 7"},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", ResultFormatCodes: []int16{1}},
		&pgproto3.Describe{ObjectType: 'P', Name: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p", MaxRows: 4},
		&pgproto3.Execute{Portal: "p", MaxRows: 1},
		&pgproto3.Execute{Portal: "p"},
		&pgproto3.Sync{},
	)
	got := kinds(r.until(t, 'Z'))
	// 1=ParseComplete 2=BindComplete T=RowDescription D=DataRow s=PortalSuspended C=CommandComplete
	if want := "12TDDsDDDDsDsC" + "Z"; got != want {
		t.Errorf("messages %q, want %q", got, want)
	}
}

func TestExtendedErrors(t *testing.T) {
	ts := startServer(t, Config{})
	r := dialRaw(t, ts.addr)
	r.startup(t)
	cases := []struct {
		name string
		msgs []pgproto3.FrontendMessage
		want string // message kinds up to ReadyForQuery
		code string
	}{
		{"skip till sync", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "bogus"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}}, "EZ", pgerr.SyntaxError},
		{"two commands", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "ints 1; ints 2"}, &pgproto3.Sync{}}, "EZ", pgerr.SyntaxError},
		{"duplicate statement", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "dup", Query: "ints 1"}, &pgproto3.Parse{Name: "dup", Query: "ints 1"}, &pgproto3.Sync{}}, "1EZ", pgerr.DuplicatePreparedStatement},
		{"missing statement", []pgproto3.FrontendMessage{&pgproto3.Bind{PreparedStatement: "nope"}, &pgproto3.Sync{}}, "EZ", pgerr.UndefinedPreparedStatement},
		{"missing portal", []pgproto3.FrontendMessage{&pgproto3.Execute{Portal: "nope"}, &pgproto3.Sync{}}, "EZ", pgerr.InvalidCursorName},
		{"bad binary param", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "echo int4"}, &pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 1}}}, &pgproto3.Sync{}}, "1EZ", pgerr.InvalidBinaryRepresentation},
		{"param count", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "echo int4"}, &pgproto3.Bind{}, &pgproto3.Sync{}}, "1EZ", pgerr.ProtocolViolation},
		{"empty statement", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "e", Query: ""}, &pgproto3.Describe{ObjectType: 'S', Name: "e"}, &pgproto3.Bind{PreparedStatement: "e"},
			&pgproto3.Execute{}, &pgproto3.Close{ObjectType: 'S', Name: "e"}, &pgproto3.Sync{}}, "1tn2I3Z", ""},
		{"describe statement", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "echo int8 text", ParameterOIDs: []uint32{0, 25}}, &pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Sync{}}, "1tTZ", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r.send(t, tc.msgs...)
			ms := r.until(t, 'Z')
			if got := kinds(ms); got != tc.want {
				t.Fatalf("messages %q, want %q", got, tc.want)
			}
			for _, m := range ms {
				if er, ok := m.(*pgproto3.ErrorResponse); ok && er.Code != tc.code {
					t.Errorf("code %s (%s), want %s", er.Code, er.Message, tc.code)
				}
			}
		})
	}
}

func TestStartupErrors(t *testing.T) {
	ts := startServer(t, Config{})
	cases := []struct {
		name string
		in   []byte
		code string
	}{
		{"no terminator", fixtureStartupNoTerminator, pgerr.ProtocolViolation},
		{"short length", fixtureStartupShort, pgerr.ProtocolViolation},
		{"protocol 2", fixtureStartupV2, pgerr.FeatureNotSupported},
		{"wrong database", func() []byte {
			b, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "loam", "database": "other"}}).Encode(nil)
			return b
		}(), pgerr.InvalidCatalogName},
		{"unknown message type", concat(startupBytes(), fixtureUnknownType), pgerr.ProtocolViolation},
		{"message too short", concat(startupBytes(), fixtureBadLength), pgerr.ProtocolViolation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := dialRaw(t, ts.addr)
			if _, err := r.nc.Write(tc.in); err != nil {
				t.Fatal(err)
			}
			var er *pgproto3.ErrorResponse
			for er == nil {
				m, err := r.fe.Receive()
				if err != nil {
					t.Fatalf("receive: %v", err)
				}
				er, _ = m.(*pgproto3.ErrorResponse)
			}
			if er.Code != tc.code || er.Severity != "FATAL" {
				t.Errorf("error %s %s %q, want FATAL %s", er.Severity, er.Code, er.Message, tc.code)
			}
			if _, err := r.fe.Receive(); err == nil {
				t.Error("connection still open after FATAL")
			}
			// Other connections are unaffected.
			c := ts.connect(t, "")
			if err := c.Ping(testCtx(t)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func startupBytes() []byte {
	b, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "loam"}}).Encode(nil)
	return b
}

func TestSSLRequestAnsweredN(t *testing.T) {
	ts := startServer(t, Config{})
	for _, req := range [][]byte{fixtureSSLRequest, fixtureGSSENCRequest} {
		r := dialRaw(t, ts.addr)
		if _, err := r.nc.Write(req); err != nil {
			t.Fatal(err)
		}
		var b [1]byte
		if _, err := io.ReadFull(r.nc, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("answer %q %v", b[0], err)
		}
		r.startup(t)
	}
	// pgx with sslmode=prefer goes through the same exchange.
	c, err := pgx.Connect(testCtx(t), fmt.Sprintf("postgres://loam@%s/loam?sslmode=prefer", ts.addr))
	if err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
}

func TestShutdown(t *testing.T) {
	ts := startServer(t, Config{})
	idle := ts.connect(t, "")
	busy := ts.connect(t, "")
	errc := make(chan error, 1)
	go func() {
		_, err := busy.PgConn().Exec(context.Background(), "sleep").ReadAll()
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	ts.stop()
	select {
	case err := <-errc:
		wantPgError(t, err, pgerr.AdminShutdown)
	case <-time.After(5 * time.Second):
		t.Fatal("running statement not terminated")
	}
	err := idle.Ping(testCtx(t))
	if err == nil {
		t.Fatal("idle connection survived shutdown")
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code != pgerr.AdminShutdown {
		t.Errorf("idle connection got %v", err)
	}
	if _, err := net.DialTimeout("tcp", ts.addr, time.Second); err == nil {
		t.Error("still accepting after shutdown")
	}
}
