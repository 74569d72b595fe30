package wire

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/auth/tlstest"
)

// FuzzStartup feeds arbitrary bytes to a connection from its first byte:
// the startup packet, SSLRequest (answered with TLS), GSSENCRequest,
// CancelRequest, and the password, SASLInitialResponse and SASLResponse
// messages of each method (the hba rules give user t trust, s SCRAM, p a
// cleartext password and r reject). The connection must end, with no
// panic, once the input does.
//
//	go test ./wire/ -run '^$' -fuzz FuzzStartup -fuzztime 60s
func FuzzStartup(f *testing.F) {
	startup := func(user string) []byte {
		b, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
			Parameters: map[string]string{"user": user, "database": "loam", "options": "-c x=y"}}).Encode(nil)
		return b
	}
	enc := func(m pgproto3.FrontendMessage) []byte { b, _ := m.Encode(nil); return b }
	first := enc(&pgproto3.SASLInitialResponse{AuthMechanism: scram.Mechanism, Data: []byte("n,,n=,r=fyko+d2lbbFgONRv9qkxdawL")})
	final := enc(&pgproto3.SASLResponse{Data: []byte("c=biws,r=fyko+d2lbbFgONRv9qkxdawLabc,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")})
	for _, seed := range [][]byte{
		startup("t"),
		concat(startup("t"), enc(&pgproto3.Query{String: "ints 2"}), enc(&pgproto3.Terminate{})),
		concat(fixtureSSLRequest, startup("t")),
		concat(fixtureGSSENCRequest, startup("s"), first, final),
		concat(startup("s"), first, final),
		concat(startup("s"), enc(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256-PLUS", Data: []byte("p=tls-server-end-point,,n=,r=a")})),
		concat(startup("p"), enc(&pgproto3.PasswordMessage{Password: "pw"})),
		concat(startup("p"), enc(&pgproto3.PasswordMessage{Password: "wrong"})),
		startup("r"),
		startup("nobody"),
		enc(&pgproto3.CancelRequest{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}}),
		fixtureStartupNoTerminator, fixtureStartupShort, fixtureStartupV2,
		{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f, 0x16, 0x03, 0x01, 0, 5, 1, 0, 0, 1, 0},
	} {
		f.Add(seed)
	}
	ca, err := tlstest.NewCA("fuzz CA")
	if err != nil {
		f.Fatal(err)
	}
	tlsCfg, err := ca.ServerConfig()
	if err != nil {
		f.Fatal(err)
	}
	pw, err := scram.New("pw")
	if err != nil {
		f.Fatal(err)
	}
	hba, err := ParseHBA("fuzz", bytes.NewReader([]byte("host all t all trust\nhost all s all scram-sha-256\nhost all p all password\nhost all r all reject\nhostssl all all all trust\n")))
	if err != nil {
		f.Fatal(err)
	}
	srv, err := NewServer(Config{
		Engine: fakeEngine{}, HBA: hba, TLS: tlsCfg, MaxFailedLogins: -1,
		Roles: fakeRoles{
			"t": {Exists: true, Login: true},
			"s": {Exists: true, Login: true, Verifier: pw.String()},
			"p": {Exists: true, Login: true, Verifier: pw.String()},
		},
		Logger: slog.New(&panicCounter{Handler: slog.NewTextHandler(io.Discard, nil)}),
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		before := panics.Load()
		nc := &fuzzConn{r: bytes.NewReader(in)}
		c := newConn(srv, nc)
		done := make(chan struct{})
		go func() { defer close(done); c.serve() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("connection did not end with its input")
		}
		if panics.Load() != before {
			t.Fatal("the connection panicked (see serve's recover)")
		}
	})
}

// panics counts the connection panics serve recovered from (it logs them
// and goes on, which would hide them from the fuzzer).
var panics atomic.Int64

type panicCounter struct{ slog.Handler }

func (h *panicCounter) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "connection panic" {
		panics.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

func (h *panicCounter) WithAttrs(as []slog.Attr) slog.Handler {
	return &panicCounter{h.Handler.WithAttrs(as)}
}

// fuzzConn is a client that sends in and then closes; what the server
// writes is dropped.
type fuzzConn struct{ r *bytes.Reader }

func (c *fuzzConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *fuzzConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *fuzzConn) Close() error                { return nil }
func (c *fuzzConn) LocalAddr() net.Addr         { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5433} }
func (c *fuzzConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
}
func (c *fuzzConn) SetDeadline(time.Time) error      { return nil }
func (c *fuzzConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fuzzConn) SetWriteDeadline(time.Time) error { return nil }
