// Package regress runs Loam's SQL regression tests in the manner of
// PostgreSQL's pg_regress.
//
// Each sql/NAME.sql is fed to `psql -X -a -q` on its standard input against a
// Loam server of its own (a new temporary data directory, loopback ports
// picked at random). psql's output, standard error included, goes to
// results/NAME.out, which must equal expected/NAME.out; a difference fails the
// subtest NAME and prints the unified diff (also kept in results/NAME.diff).
// The server's log is kept in results/NAME.log.
//
//	go test ./regress/                          build cmd/loam, run every file
//	go test ./regress/ -run 'TestRegress/ddl$'  run one file
//	LOAM_BIN=/abs/path/loam go test ./regress/  use that binary, build nothing
//	REGRESS_UPDATE=1 go test ./regress/         copy results over expected
//	                                            (then review them with git diff)
//
// psql must be installed (Debian package postgresql-client); `make test`
// installs it when it is missing.
package regress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	startTimeout = 30 * time.Second // for the server to accept connections
	stopTimeout  = 10 * time.Second // from SIGTERM to SIGKILL
	fileTimeout  = 5 * time.Minute  // for psql to run one .sql file
	resultsDir   = "results"
)

func TestRegress(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql is not installed: the regress tests run every sql/*.sql through it. " +
			"`make test` installs it (Debian package postgresql-client) when it is missing.")
	}
	files, err := filepath.Glob(filepath.Join("sql", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no regress/sql/*.sql files found (%v)", err)
	}
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := loamBinary(t)
	update := os.Getenv("REGRESS_UPDATE") == "1"

	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sql")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runFile(t, bin, psql, name, update)
		})
	}
}

// loamBinary returns $LOAM_BIN, or builds cmd/loam into a temporary directory.
func loamBinary(t *testing.T) string {
	if bin := os.Getenv("LOAM_BIN"); bin != "" {
		if !filepath.IsAbs(bin) {
			t.Fatalf("LOAM_BIN=%s must be an absolute path (go test runs in regress/)", bin)
		}
		return bin
	}
	bin := filepath.Join(t.TempDir(), "loam")
	build := exec.Command("go", "build", "-o", bin, "github.com/loamdb/loam/cmd/loam")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/loam: %v\n%s", err, out)
	}
	return bin
}

// runFile runs sql/NAME.sql against a fresh server and checks its output.
func runFile(t *testing.T, bin, psql, name string, update bool) {
	outPath := filepath.Join(resultsDir, name+".out")
	diffPath := filepath.Join(resultsDir, name+".diff")
	expPath := filepath.Join("expected", name+".out")
	os.Remove(diffPath)

	srv := startServer(t, bin, name)
	psqlErr := runPsql(psql, srv.port, filepath.Join("sql", name+".sql"), outPath)
	if psqlErr != nil { // its output, in the diff below, says why
		t.Errorf("psql on regress/sql/%s.sql: %v%s", name, psqlErr, srv.logTailIfExited())
	}

	if update {
		if psqlErr != nil {
			return
		}
		got, err := os.ReadFile(outPath)
		if err == nil {
			err = os.WriteFile(expPath, got, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("REGRESS_UPDATE: copied regress/%s to regress/%s", outPath, expPath)
		return
	}
	if _, err := os.Stat(expPath); err != nil {
		t.Fatalf("regress/%s is missing: review regress/%s, then REGRESS_UPDATE=1 go test ./regress/ copies it there",
			expPath, outPath)
	}
	diff, err := exec.Command("diff", "-U3", expPath, outPath).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return // identical
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		os.WriteFile(diffPath, diff, 0o644)
		t.Errorf("regress/%s differs from regress/%s (server log: regress/%s):\n%s%s",
			outPath, expPath, srv.logPath, diff, srv.logTailIfExited())
	default:
		t.Fatalf("diff %s %s: %v\n%s", expPath, outPath, err, diff)
	}
}

// runPsql feeds sqlPath to psql the way pg_regress does, writing standard
// output and standard error, interleaved, to outPath.
func runPsql(psql, port, sqlPath, outPath string) error {
	in, err := os.Open(sqlPath)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(outPath)
	if err != nil {
		return err
	}
	defer out.Close()

	ctx, cancel := context.WithTimeout(context.Background(), fileTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, psql, "-X", "-a", "-q",
		"-h", "127.0.0.1", "-p", port, "-U", "loam", "-d", "loam")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
	cmd.Env = psqlEnv()
	err = cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("timed out after %v", fileTimeout)
	}
	return err // psql exits 0 after SQL errors; non-zero means it could not go on
}

// psqlEnv is this process's environment without anything that would change
// what psql connects to or how the output looks: every PG* variable (PGTZ,
// PGDATESTYLE, PGOPTIONS, PGHOST, PGUSER, ...) and the locale, set to C.
func psqlEnv() []string {
	return append(environWithout(func(k string) bool {
		return strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "LC_") || k == "LANG" || k == "LANGUAGE"
	}), "LC_ALL=C")
}

// environWithout is this process's environment less the variables drop names.
func environWithout(drop func(name string) bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop(k) {
			env = append(env, kv)
		}
	}
	return env
}

type server struct {
	port    string
	logPath string
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, once done is closed
}

// startServer starts `loam serve` on a new data directory and free loopback
// ports, waits until its wire port accepts connections, and arranges for it
// to be stopped when the test ends.
func startServer(t *testing.T, bin, name string) *server {
	ports := freePorts(t, 2)
	s := &server{port: ports[0], logPath: filepath.Join(resultsDir, name+".log"), done: make(chan struct{})}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })

	addr := net.JoinHostPort("127.0.0.1", s.port)
	cmd := exec.Command(bin, "serve",
		"--data-dir", t.TempDir(),
		"--listen", addr,
		"--http", net.JoinHostPort("127.0.0.1", ports[1]))
	// The flags say it all: no LOAM_* from the caller's environment.
	cmd.Env = environWithout(func(k string) bool { return strings.HasPrefix(k, "LOAM_") })
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s serve: %v", bin, err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t, cmd.Process) })

	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("loam serve exited before accepting connections on %s: %v%s", addr, s.err, s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("loam serve did not accept connections on %s within %v%s", addr, startTimeout, s.logTail())
		}
	}
}

// stop sends SIGTERM, and SIGKILL if the server has not exited 10s later.
// A server that does not shut down cleanly on SIGTERM fails the test.
func (s *server) stop(t *testing.T, p *os.Process) {
	select {
	case <-s.done:
		if !t.Failed() {
			t.Errorf("loam serve exited before the test stopped it: %v%s", s.err, s.logTail())
		}
		return
	default:
	}
	p.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("loam serve did not exit cleanly on SIGTERM: %v%s", s.err, s.logTail())
		}
	case <-time.After(stopTimeout):
		p.Kill()
		<-s.done
		t.Errorf("loam serve was still running %v after SIGTERM; killed it%s", stopTimeout, s.logTail())
	}
}

// logTail is the end of the server's log, for a failure message.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	const max = 4000
	if len(b) > max {
		b = append([]byte("..."), b[len(b)-max:]...)
	}
	return fmt.Sprintf("\n--- server log (regress/%s) ---\n%s", s.logPath, bytes.TrimRight(b, "\n"))
}

// logTailIfExited is logTail when the server is no longer running, else "".
func (s *server) logTailIfExited() string {
	select {
	case <-s.done:
		return fmt.Sprintf("\nloam serve exited early: %v%s", s.err, s.logTail())
	default:
		return ""
	}
}

// freePorts returns n distinct loopback TCP ports that were free a moment ago.
func freePorts(t *testing.T, n int) []string {
	var ports []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		_, port, _ := net.SplitHostPort(l.Addr().String())
		ports = append(ports, port)
	}
	return ports
}
