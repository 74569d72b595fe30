package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/auth/tlstest"
)

// serverAddr is host:port of a startServer URL.
func serverAddr(t *testing.T, u string) (host, port string) {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Hostname(), p.Port()
}

// runPsql runs psql with conninfo and a clean environment (no PG*
// variables but the password) and returns its output and error.
func runPsql(t *testing.T, conninfo, password, query string) (string, error) {
	t.Helper()
	if _, err := osexec.LookPath("psql"); err != nil {
		t.Skip("psql is not installed (make psql)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := osexec.CommandContext(ctx, "psql", "-X", "-w", "-At", "-d", conninfo, "-c", query)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C"}
	if password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
	}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// psycopgScript connects with psycopg 3 and prints the query's value, or
// "ERROR" and the error's message (libpq gives no SQLSTATE for an error
// while connecting: psycopg's is None).
const psycopgScript = `
import sys, psycopg
try:
    with psycopg.connect(sys.argv[1]) as c:
        print(c.execute(sys.argv[2]).fetchone()[0])
except psycopg.Error as e:
    print("ERROR", str(e).strip().splitlines()[-1])
`

func runPsycopg(t *testing.T, conninfo, query string) string {
	t.Helper()
	const python = "/usr/bin/python3" // Debian's python3-psycopg belongs to it
	if err := osexec.Command(python, "-c", "import psycopg").Run(); err != nil {
		t.Skip("psycopg 3 is not installed for /usr/bin/python3 (make clients-python)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := osexec.CommandContext(ctx, python, "-c", psycopgScript, conninfo, query)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psycopg: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestTLSAndPasswordsE2E: a server with --password and a certificate
// from a throwaway CA. pgx, psql and psycopg connect with sslmode=require
// and verify-full (the CA as root); verify-full with another CA fails; a
// wrong password is 28P01; a role made with CREATE ROLE logs in with its
// own password; one client beyond --max-connections gets 53300.
func TestTLSAndPasswordsE2E(t *testing.T) {
	dir := t.TempDir()
	_, files, err := tlstest.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	other, err := tlstest.NewCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	otherCA := filepath.Join(dir, "other.crt")
	if err := os.WriteFile(otherCA, other.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	u := startServerWith(t, t.TempDir(), "--password", "s3cret", "--tls-cert", files.Cert, "--tls-key", files.Key, "--max-connections", "3")
	host, port := serverAddr(t, u)
	ctx := context.Background()
	conninfo := func(user, password, ssl string) string {
		s := fmt.Sprintf("host=%s port=%s user=%s dbname=loam %s", host, port, user, ssl)
		if password != "" {
			s += " password=" + password
		}
		return s
	}
	verifyFull := "sslmode=verify-full sslrootcert=" + files.CA
	wrongCA := "sslmode=verify-full sslrootcert=" + otherCA

	// pgx
	for _, ssl := range []string{"sslmode=require", verifyFull} {
		c, err := pgx.Connect(ctx, conninfo("loam", "s3cret", ssl))
		if err != nil {
			t.Fatalf("pgx %s: %v", ssl, err)
		}
		if !strings.Contains(fmt.Sprintf("%T", c.PgConn().Conn()), "tls") {
			t.Errorf("pgx %s: connection is a %T", ssl, c.PgConn().Conn())
		}
		c.Close(ctx)
	}
	if _, err := pgx.Connect(ctx, conninfo("loam", "s3cret", wrongCA)); err == nil {
		t.Error("pgx: verify-full with another CA connected")
	}
	_, err = pgx.Connect(ctx, conninfo("loam", "wrong", verifyFull))
	if sqlState(err) != "28P01" {
		t.Errorf("pgx wrong password: %v", err)
	}

	// psql
	for _, ssl := range []string{"sslmode=require", verifyFull} {
		out, err := runPsql(t, conninfo("loam", "", ssl), "s3cret", "SELECT 41 + 1")
		if err != nil || out != "42" {
			t.Errorf("psql %s: %v %s", ssl, err, out)
		}
	}
	if out, err := runPsql(t, conninfo("loam", "", wrongCA), "s3cret", "SELECT 1"); err == nil || !strings.Contains(out, "certificate verify failed") {
		t.Errorf("psql verify-full with another CA: %v %s", err, out)
	}
	if out, err := runPsql(t, conninfo("loam", "", verifyFull), "wrong", "SELECT 1"); err == nil || !strings.Contains(out, `FATAL:  password authentication failed for user "loam"`) {
		t.Errorf("psql wrong password: %v %s", err, out)
	}

	// A role of CREATE ROLE logs in with its password; a role that does
	// not exist gets the same error as a wrong password.
	c := connect(t, conninfo("loam", "s3cret", verifyFull))
	if _, err := c.Exec(ctx, "CREATE ROLE bob LOGIN PASSWORD 'bobpw'"); err != nil {
		t.Fatal(err)
	}
	if out, err := runPsql(t, conninfo("bob", "", verifyFull), "bobpw", "SELECT current_user"); err != nil || out != "bob" {
		t.Errorf("psql as bob: %v %s", err, out)
	}
	if out, err := runPsql(t, conninfo("ghost", "", verifyFull), "bobpw", "SELECT 1"); err == nil || !strings.Contains(out, `password authentication failed for user "ghost"`) {
		t.Errorf("psql as a role that does not exist: %v %s", err, out)
	}

	// psycopg
	if out := runPsycopg(t, conninfo("bob", "bobpw", verifyFull), "SELECT current_user"); out != "bob" {
		t.Errorf("psycopg verify-full: %s", out)
	}
	if out := runPsycopg(t, conninfo("bob", "bobpw", "sslmode=require"), "SELECT 7"); out != "7" {
		t.Errorf("psycopg require: %s", out)
	}
	if out := runPsycopg(t, conninfo("bob", "nope", verifyFull), "SELECT 1"); !strings.Contains(out, `FATAL:  password authentication failed for user "bob"`) {
		t.Errorf("psycopg wrong password: %s", out)
	}
	if out := runPsycopg(t, conninfo("bob", "bobpw", wrongCA), "SELECT 1"); !strings.Contains(out, "certificate verify failed") {
		t.Errorf("psycopg verify-full with another CA: %s", out)
	}

	// --max-connections 3: c and two more, then 53300.
	connect(t, conninfo("loam", "s3cret", "sslmode=require"))
	connect(t, conninfo("loam", "s3cret", "sslmode=require"))
	_, err = pgx.Connect(ctx, conninfo("loam", "s3cret", "sslmode=require"))
	if sqlState(err) != "53300" {
		t.Errorf("pgx beyond --max-connections: %v", err)
	}
	if out, err := runPsql(t, conninfo("loam", "", verifyFull), "s3cret", "SELECT 1"); err == nil || !strings.Contains(out, "FATAL:  sorry, too many clients already") {
		t.Errorf("psql beyond --max-connections: %v %s", err, out)
	}
	if out := runPsycopg(t, conninfo("bob", "bobpw", verifyFull), "SELECT 1"); !strings.Contains(out, "FATAL:  sorry, too many clients already") {
		t.Errorf("psycopg beyond --max-connections: %s", out)
	}
}

// TestHBAFileE2E: the rules of --hba-file decide, first match wins: a
// reject line refuses its role, a role that does not exist under trust is
// 28000, +role admits its members, and a client with no matching line
// gets PostgreSQL's message.
func TestHBAFileE2E(t *testing.T) {
	dir := t.TempDir()
	hba := filepath.Join(dir, "pg_hba.conf")
	if err := os.WriteFile(hba, []byte(`# Loam test rules
local   all  all                  trust
host    all  loam,ghost 127.0.0.1/32 trust
host    all  bob       127.0.0.1/32 reject
host    all  carol     127.0.0.1/32 scram-sha-256
host    all  +readers  127.0.0.1/32 trust
`), 0o600); err != nil {
		t.Fatal(err)
	}
	u := startServerWith(t, t.TempDir(), "--hba-file", hba)
	host, port := serverAddr(t, u)
	ctx := context.Background()
	conninfo := func(user string) string {
		return fmt.Sprintf("host=%s port=%s user=%s dbname=loam sslmode=disable", host, port, user)
	}
	c := connect(t, conninfo("loam"))
	for _, q := range []string{"CREATE ROLE bob LOGIN", "CREATE ROLE carol LOGIN PASSWORD 'cpw'", "CREATE ROLE dave LOGIN",
		"CREATE ROLE readers", "CREATE ROLE erin LOGIN", "GRANT readers TO erin"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ user, password, want string }{
		{"bob", "", `FATAL:  pg_hba.conf rejects connection for host "127.0.0.1", user "bob", database "loam", no encryption`},
		{"ghost", "", `FATAL:  role "ghost" does not exist`},
		{"dave", "", `FATAL:  no pg_hba.conf entry for host "127.0.0.1", user "dave", database "loam", no encryption`},
		{"carol", "wrong", `FATAL:  password authentication failed for user "carol"`},
	} {
		out, err := runPsql(t, conninfo(tc.user), tc.password, "SELECT 1")
		if err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %v %s, want %s", tc.user, err, out, tc.want)
		}
	}
	// +readers: erin is a member; dave, not one, is still refused above.
	if out, err := runPsql(t, conninfo("erin"), "", "SELECT current_user"); err != nil || out != "erin" {
		t.Errorf("erin: %v %s", err, out)
	}
	if out, err := runPsql(t, conninfo("carol"), "cpw", "SELECT current_user"); err != nil || out != "carol" {
		t.Errorf("carol: %v %s", err, out)
	}
	if out := runPsycopg(t, conninfo("bob"), "SELECT 1"); !strings.Contains(out, `FATAL:  pg_hba.conf rejects connection for host "127.0.0.1", user "bob"`) {
		t.Errorf("psycopg as bob: %s", out)
	}
	_, err := pgx.Connect(ctx, conninfo("ghost"))
	if sqlState(err) != "28000" {
		t.Errorf("pgx as ghost: %v", err)
	}
}

// TestDefaultTrustNeedsRole: without --password or --hba-file, loopback
// clients are trusted, but only as a role that exists: psql's default
// user (the OS user) is not one.
func TestDefaultTrustNeedsRole(t *testing.T) {
	u := startServer(t)
	host, port := serverAddr(t, u)
	out, err := runPsql(t, fmt.Sprintf("host=%s port=%s user=nobody_here dbname=loam", host, port), "", "SELECT 1")
	if err == nil || !strings.Contains(out, `FATAL:  role "nobody_here" does not exist`) {
		t.Errorf("%v %s", err, out)
	}
	if out, err := runPsql(t, fmt.Sprintf("host=%s port=%s user=loam dbname=loam", host, port), "", "SELECT 1"); err != nil || out != "1" {
		t.Errorf("loam: %v %s", err, out)
	}
}

func TestHBAFileErrorsStopTheStart(t *testing.T) {
	hba := filepath.Join(t.TempDir(), "pg_hba.conf")
	if err := os.WriteFile(hba, []byte("host all all 127.0.0.1/32 trust\nhost all all all ident\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := parseConfig([]string{"--hba-file", hba}, func(string) string { return "" }, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), hba+":2: authentication method \"ident\"") {
		t.Errorf("err %v", err)
	}
	// A non-loopback address is allowed with an hba file (its rules say
	// who gets in), not without one or a password.
	if _, err := parseConfig([]string{"--listen", "0.0.0.0:0"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("non-loopback without a password or hba file")
	}
	os.WriteFile(hba, []byte("host all all all scram-sha-256\n"), 0o600)
	if _, err := parseConfig([]string{"--listen", "0.0.0.0:0", "--hba-file", hba}, func(string) string { return "" }, io.Discard); err != nil {
		t.Error(err)
	}
	if _, err := parseConfig([]string{"--tls-cert", "x.pem"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("--tls-cert without --tls-key")
	}
}
