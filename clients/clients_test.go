// Package clients runs real PostgreSQL client drivers against Loam: each
// script under python/ and node/ connects with the driver's defaults,
// creates a table, inserts and selects with parameters of every supported
// type, checks errors' SQLSTATEs, transactions and NULLs, and exits non-zero
// on the first expectation that does not hold.
//
// Every script runs twice: against a fresh `loam serve` (from $LOAM_BIN, or
// built into a temporary directory) and against a throwaway PostgreSQL 15
// (meta/pgtest), so the expectations are PostgreSQL's, not Loam's.
//
//	make clients                                  install the drivers, run all
//	LOAM_BIN=$PWD/bin/loam go test ./clients/ -run 'TestClients/psycopg2/loam'
//
// The drivers: Debian's python3-psycopg2 and python3-psycopg (run with
// /usr/bin/python3, whose packages they are) and npm's pg, installed by
// `npm ci` in node/. `make clients-deps` installs whichever is missing.
package clients

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loamdb/loam/meta/pgtest"
)

const (
	startTimeout  = 30 * time.Second
	stopTimeout   = 10 * time.Second
	scriptTimeout = 3 * time.Minute
	python        = "/usr/bin/python3" // Debian's python3-psycopg* belong to it
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// script is one client's program: dir is relative to this package, and the
// connection URL is appended to argv.
type script struct {
	name  string
	dir   string
	argv  []string
	check func() error // the driver is installed
}

var scripts = []script{
	{"psycopg2", "python", []string{python, "psycopg2_client.py"}, pythonModule("psycopg2", "python3-psycopg2")},
	{"psycopg3", "python", []string{python, "psycopg3_client.py"}, pythonModule("psycopg", "python3-psycopg")},
	{"node-postgres", "node", []string{"node", "pg_client.js"}, nodeModule},
}

func TestClients(t *testing.T) {
	bin := loamBinary(t)
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) {
			if err := s.check(); err != nil {
				t.Fatalf("%v: `make clients-deps` installs it", err)
			}
			t.Run("loam", func(t *testing.T) {
				srv := startServer(t, bin)
				// The URL names nothing but where: every other setting is
				// the driver's default (sslmode prefer included).
				out, err := run(t, s, fmt.Sprintf("postgres://loam@%s/loam", srv.addr))
				if err != nil {
					t.Fatalf("%s against Loam: %v\n%s%s", s.name, err, out, srv.logTailIfExited())
				}
			})
			t.Run("postgres", func(t *testing.T) {
				out, err := run(t, s, pgtest.Database(t))
				if err != nil {
					t.Fatalf("%s against PostgreSQL (the script's expectations are wrong): %v\n%s", s.name, err, out)
				}
			})
		})
	}
}

// run runs the script with the connection URL and returns its output,
// standard error included.
func run(t *testing.T, s script, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	args := append(append([]string(nil), s.argv[1:]...), url)
	cmd := exec.CommandContext(ctx, s.argv[0], args...)
	cmd.Dir = s.dir
	// No PG* from the caller's environment: the URL says where, the
	// driver's defaults say the rest.
	cmd.Env = append(environWithout(func(k string) bool {
		return strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "LOAM_")
	}), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v", scriptTimeout)
	}
	return out, err
}

func pythonModule(module, pkg string) func() error {
	return func() error {
		out, err := exec.Command(python, "-c", "import "+module).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s cannot import %s (Debian package %s): %v\n%s", python, module, pkg, err, out)
		}
		return nil
	}
}

func nodeModule() error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("node is not installed")
	}
	if _, err := os.Stat(filepath.Join("node", "node_modules", "pg", "package.json")); err != nil {
		return fmt.Errorf("npm package pg is not installed in clients/node (npm ci)")
	}
	return nil
}

// loamBinary returns $LOAM_BIN, or builds cmd/loam into a temporary directory.
func loamBinary(t *testing.T) string {
	if bin := os.Getenv("LOAM_BIN"); bin != "" {
		if !filepath.IsAbs(bin) {
			t.Fatalf("LOAM_BIN=%s must be an absolute path (go test runs in clients/)", bin)
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

type server struct {
	addr    string
	logPath string
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, once done is closed
}

// startServer starts `loam serve` on a new data directory and a free
// loopback port (HTTP off), waits until it accepts connections, and stops
// it when the test ends.
func startServer(t *testing.T, bin string) *server {
	dir := t.TempDir()
	s := &server{addr: freeAddr(t), logPath: filepath.Join(dir, "loam.log"), done: make(chan struct{})}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	cmd := exec.Command(bin, "serve", "--data-dir", filepath.Join(dir, "data"), "--listen", s.addr, "--http", "")
	cmd.Env = environWithout(func(k string) bool { return strings.HasPrefix(k, "LOAM_") })
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s serve: %v", bin, err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t, cmd.Process) })

	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			conn.Close()
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("loam serve exited before accepting connections on %s: %v%s", s.addr, s.err, s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("loam serve did not accept connections on %s within %v%s", s.addr, startTimeout, s.logTail())
		}
	}
}

// stop sends SIGTERM, then SIGKILL if the server is still running later.
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

func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	const max = 4000
	if len(b) > max {
		b = append([]byte("..."), b[len(b)-max:]...)
	}
	return fmt.Sprintf("\n--- server log ---\n%s", bytes.TrimRight(b, "\n"))
}

func (s *server) logTailIfExited() string {
	select {
	case <-s.done:
		return fmt.Sprintf("\nloam serve exited early: %v%s", s.err, s.logTail())
	default:
		return ""
	}
}

// freeAddr is a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
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
