package wire

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/auth/tlstest"
	"github.com/loamdb/loam/pgerr"
)

// TestTLS: with a certificate configured, pgx connects with
// sslmode=require and verify-full (the CA as root), verify-full with
// another CA fails, hostssl lines apply only to TLS connections, and
// sslmode=disable still works where a plain host line allows it.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	_, files, err := tlstest.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	other, err := tlstest.NewCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	otherCA := dir + "/other.crt"
	if err := writeFile(otherCA, other.CertPEM); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadTLS(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	var log loginLog
	ts := startServer(t, Config{TLS: cfg, Password: "pw", OnLogin: log.add, HBA: mustHBA(t, `
hostssl   all loam    all scram-sha-256
hostnossl all plain   all scram-sha-256
`)})
	ctx := testCtx(t)
	url := func(user, params string) string {
		return fmt.Sprintf("postgres://%s:pw@%s/loam?%s", user, ts.addr, params)
	}
	for _, params := range []string{
		"sslmode=require",
		"sslmode=verify-full&sslrootcert=" + files.CA,
		"sslmode=verify-ca&sslrootcert=" + files.CA,
		"sslmode=prefer",
	} {
		c, err := pgx.Connect(ctx, url("loam", params))
		if err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		if c.PgConn().Conn() == nil {
			t.Fatal("no connection")
		}
		var n int32
		if err := c.QueryRow(ctx, "ints 3").Scan(&n); err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		c.Close(ctx)
	}
	if _, err := pgx.Connect(ctx, url("loam", "sslmode=verify-full&sslrootcert="+otherCA)); err == nil {
		t.Error("verify-full with another CA connected")
	}
	// Plain connections match only the hostnossl line.
	_, err = pgx.Connect(ctx, url("loam", "sslmode=disable"))
	if pe := wantPgError(t, err, pgerr.InvalidAuthorizationSpec); pe.Message != `no pg_hba.conf entry for host "127.0.0.1", user "loam", database "loam", no encryption` {
		t.Errorf("%q", pe.Message)
	}
	c, err := pgx.Connect(ctx, url("plain", "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	_, err = pgx.Connect(ctx, url("plain", "sslmode=require"))
	if pe := wantPgError(t, err, pgerr.InvalidAuthorizationSpec); pe.Message != `no pg_hba.conf entry for host "127.0.0.1", user "plain", database "loam", SSL encryption` {
		t.Errorf("%q", pe.Message)
	}
	for _, e := range log.events() {
		if e.OK && e.User == "loam" && !e.SSL {
			t.Errorf("login over TLS reported as plain: %+v", e)
		}
	}

	// Data sent right after the SSLRequest, before the answer, ends the
	// connection instead of being taken as encrypted.
	r := dialRaw(t, ts.addr)
	if _, err := r.nc.Write(concat(fixtureSSLRequest, startupBytes())); err != nil {
		t.Fatal(err)
	}
	m, err := r.fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if er, ok := m.(*pgproto3.ErrorResponse); !ok || er.Code != pgerr.ProtocolViolation || er.Message != "received unencrypted data after SSL request" {
		t.Errorf("answer %#v, want 08P01", m)
	}
}

// TestTLSAbsentAnswersN: TestSSLRequestAnsweredN covers a server without
// TLS; sslmode=require fails against it.
func TestTLSAbsentRequireFails(t *testing.T) {
	ts := startServer(t, Config{})
	if _, err := pgx.Connect(testCtx(t), fmt.Sprintf("postgres://loam@%s/loam?sslmode=require", ts.addr)); err == nil {
		t.Error("sslmode=require connected to a server without TLS")
	}
}
