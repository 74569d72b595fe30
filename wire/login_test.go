package wire

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/pgerr"
)

// fakeRoles is a role table for the login tests.
type fakeRoles map[string]LoginRole

func (f fakeRoles) LoginRole(_ context.Context, name string) (LoginRole, error) {
	return f[name], nil
}

// MemberOf: a role named g_X is a member of X.
func (f fakeRoles) MemberOf(_ context.Context, name string) ([]string, error) {
	if g, ok := strings.CutPrefix(name, "g_"); ok {
		return []string{g}, nil
	}
	return nil, nil
}

func mustVerifier(t *testing.T, password string) string {
	t.Helper()
	v, err := scram.New(password)
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

func testRoles(t *testing.T) fakeRoles {
	pw := mustVerifier(t, "pw")
	return fakeRoles{
		"alice":   {Exists: true, Login: true, Verifier: pw},
		"nologin": {Exists: true, Verifier: pw},
		"nopw":    {Exists: true, Login: true},
		"expired": {Exists: true, Login: true, Verifier: pw, ValidUntil: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"later":   {Exists: true, Login: true, Verifier: pw, ValidUntil: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
}

func mustHBA(t *testing.T, text string) *HBA {
	t.Helper()
	h, err := ParseHBA("test_hba.conf", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestLoginRoles: each method against roles that exist or not, may log in
// or not, have a password or not, expired or not, with PostgreSQL 15's
// errors (checked against a PostgreSQL 15 with the same pg_hba lines).
func TestLoginRoles(t *testing.T) {
	const (
		ok         = ""
		noRole     = `28000 role "%s" does not exist`
		notLogin   = `28000 role "%s" is not permitted to log in`
		authFailed = `28P01 password authentication failed for user "%s"`
	)
	cases := []struct {
		method, user, password, want string
	}{
		{"trust", "alice", "", ok},
		{"trust", "ghost", "", noRole},
		{"trust", "nologin", "", notLogin},
		{"trust", "expired", "", ok}, // VALID UNTIL limits the password only
		{"trust", "nopw", "", ok},
		{"scram-sha-256", "alice", "pw", ok},
		{"scram-sha-256", "alice", "wrong", authFailed},
		{"scram-sha-256", "ghost", "pw", authFailed},
		{"scram-sha-256", "nopw", "pw", authFailed},
		{"scram-sha-256", "expired", "pw", authFailed},
		{"scram-sha-256", "later", "pw", ok},
		{"scram-sha-256", "nologin", "pw", notLogin},
		{"scram-sha-256", "nologin", "wrong", authFailed},
		{"md5", "alice", "pw", ok},
		{"password", "alice", "pw", ok},
		{"password", "alice", "wrong", authFailed},
		{"password", "ghost", "pw", authFailed},
		{"password", "nopw", "", authFailed},
		{"password", "expired", "pw", authFailed},
		{"password", "nologin", "pw", notLogin},
	}
	roles := testRoles(t)
	servers := map[string]*testServer{}
	for _, m := range []string{"trust", "scram-sha-256", "md5", "password"} {
		servers[m] = startServer(t, Config{Roles: roles, MaxFailedLogins: -1,
			HBA: mustHBA(t, "host all all 127.0.0.1/32 "+m)})
	}
	for _, tc := range cases {
		t.Run(tc.method+"/"+tc.user+"/"+tc.password, func(t *testing.T) {
			ts := servers[tc.method]
			userinfo := tc.user
			if tc.password != "" {
				userinfo += ":" + tc.password
			}
			c, err := pgx.Connect(testCtx(t), ts.url(userinfo))
			if tc.want == ok {
				if err != nil {
					t.Fatal(err)
				}
				c.Close(context.Background())
				return
			}
			if err == nil {
				c.Close(context.Background())
				t.Fatal("connected")
			}
			want := fmt.Sprintf(tc.want, tc.user)
			pe := wantPgError(t, err, want[:5])
			if pe.Severity != "FATAL" || pe.Message != want[6:] {
				t.Errorf("%s %s %q, want FATAL %s", pe.Severity, pe.Code, pe.Message, want)
			}
		})
	}
}

// loginLog collects OnLogin's events.
type loginLog struct {
	mu sync.Mutex
	ev []LoginEvent
}

func (l *loginLog) add(e LoginEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ev = append(l.ev, e)
}

func (l *loginLog) events() []LoginEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LoginEvent(nil), l.ev...)
}

// TestHBARules: the first matching line decides; reject and no match are
// PostgreSQL's FATALs; OnLogin hears of each attempt.
func TestHBARules(t *testing.T) {
	var log loginLog
	ts := startServer(t, Config{Roles: testRoles(t), OnLogin: log.add, MaxFailedLogins: -1, HBA: mustHBA(t, `
# comment
local   all  all                   trust
host    all  nologin  127.0.0.1/32 reject
host    all  alice    127.0.0.1    255.255.255.255 trust
host    all  alice    all          reject
hostssl all  all      all          trust
host    all  later    0.0.0.0/0    scram-sha-256
`)})
	ctx := testCtx(t)
	c, err := pgx.Connect(ctx, ts.url("alice"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	for _, tc := range []struct{ user, code, msg string }{
		{"nologin", pgerr.InvalidAuthorizationSpec, `pg_hba.conf rejects connection for host "127.0.0.1", user "nologin", database "loam", no encryption`},
		{"nopw", pgerr.InvalidAuthorizationSpec, `no pg_hba.conf entry for host "127.0.0.1", user "nopw", database "loam", no encryption`},
		{"later:wrong", pgerr.InvalidPassword, `password authentication failed for user "later"`},
	} {
		_, err := pgx.Connect(ctx, ts.url(tc.user))
		pe := wantPgError(t, err, tc.code)
		if pe.Message != tc.msg || pe.Severity != "FATAL" {
			t.Errorf("%s: %s %q, want %q", tc.user, pe.Severity, pe.Message, tc.msg)
		}
	}
	ev := log.events()
	if len(ev) != 4 {
		t.Fatalf("events %+v", ev)
	}
	if e := ev[0]; !e.OK || e.User != "alice" || e.Method != AuthTrust || e.Address != "127.0.0.1" {
		t.Errorf("success event %+v", e)
	}
	if e := ev[3]; e.OK || e.User != "later" || e.Method != AuthSCRAM || e.Code != pgerr.InvalidPassword || !strings.Contains(e.Detail, "Password does not match") {
		t.Errorf("failure event %+v", e)
	}
}

// TestDefaultRules: without an hba file or a password, loopback clients
// are trusted; with a password every client must give it.
func TestDefaultRules(t *testing.T) {
	h := defaultHBA("")
	for _, tc := range []struct {
		ip   string
		want AuthMethod
	}{{"127.0.0.1", AuthTrust}, {"127.8.9.1", AuthTrust}, {"::1", AuthTrust}, {"10.0.0.1", AuthSCRAM}, {"::ffff:10.0.0.1", AuthSCRAM}, {"2001:db8::1", AuthSCRAM}} {
		l, ok := h.match(hbaConn{database: "loam", user: "loam", ip: parseIP(tc.ip)})
		if !ok || l.Method != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.ip, l, ok, tc.want)
		}
	}
	if l, ok := h.match(hbaConn{database: "loam", user: "loam"}); !ok || l.Method != AuthSCRAM {
		t.Errorf("no address: %v", l)
	}
	for _, m := range []AuthMethod{AuthSCRAM, AuthPassword} {
		if l, ok := defaultHBA(m).match(hbaConn{database: "loam", user: "x", ip: parseIP("127.0.0.1")}); !ok || l.Method != m {
			t.Errorf("with a password: %v", l)
		}
	}
}

// TestMaxConnections: one client beyond the limit gets 53300; once one
// leaves, a new one gets in.
func TestMaxConnections(t *testing.T) {
	ts := startServer(t, Config{MaxConnections: 2})
	ctx := testCtx(t)
	c1 := ts.connect(t, "")
	ts.connect(t, "")
	_, err := pgx.Connect(ctx, ts.url(""))
	if pe := wantPgError(t, err, pgerr.TooManyConnections); pe.Message != "sorry, too many clients already" || pe.Severity != "FATAL" {
		t.Errorf("%+v", pe)
	}
	c1.Close(ctx)
	// The server counts c1 gone once its goroutine ends; wait for that.
	for {
		c, err := pgx.Connect(ctx, ts.url(""))
		if err == nil {
			c.Close(ctx)
			break
		}
		wantPgError(t, err, pgerr.TooManyConnections)
		select {
		case <-ctx.Done():
			t.Fatal("a slot never freed")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestFailedLoginCap: after MaxFailedLogins failures from one address it
// is refused, even with the right password, until the window has passed.
func TestFailedLoginCap(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := startServer(t, Config{Password: "pw", MaxFailedLogins: 3,
		clock: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	ctx := testCtx(t)
	for range 3 {
		_, err := pgx.Connect(ctx, ts.url("loam:wrong"))
		wantPgError(t, err, pgerr.InvalidPassword)
	}
	_, err := pgx.Connect(ctx, ts.url("loam:pw"))
	pe := wantPgError(t, err, pgerr.InvalidAuthorizationSpec)
	if pe.Message != `too many failed login attempts from host "127.0.0.1"; try again later` {
		t.Errorf("%q", pe.Message)
	}
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	c, err := pgx.Connect(ctx, ts.url("loam:pw"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
}

func parseIP(s string) net.IP {
	ip := net.ParseIP(s)
	if v4 := ip.To4(); v4 != nil {
		return v4
	}
	return ip
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o600) }

// TestAuthTimeout: a client that stops in the middle of authentication
// (here after the startup packet, owing its SCRAM message) is
// disconnected once AuthTimeout passes, and frees its connection slot.
func TestAuthTimeout(t *testing.T) {
	// Long enough for the second client's SCRAM exchange (PBKDF2 of 4096
	// rounds on both sides) under the race detector on a loaded machine.
	ts := startServer(t, Config{Password: "pw", AuthTimeout: 2 * time.Second, MaxConnections: 1})
	r := dialRaw(t, ts.addr)
	r.send(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "loam"}})
	if m, err := r.fe.Receive(); err != nil {
		t.Fatal(err)
	} else if _, ok := m.(*pgproto3.AuthenticationSASL); !ok {
		t.Fatalf("got %T, want AuthenticationSASL", m)
	}
	if m, err := r.fe.Receive(); err == nil {
		t.Fatalf("got %T, want the connection closed", m)
	}
	c := ts.connect(t, "loam:pw") // the one slot is free again
	if err := c.Ping(testCtx(t)); err != nil {
		t.Fatal(err)
	}
}
