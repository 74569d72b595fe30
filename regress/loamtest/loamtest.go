// Package loamtest runs the real `loam serve` binary for tests that drive
// it from outside: clients, psql, sqllogictest.
package loamtest

import (
	"bytes"
	"fmt"
	"github.com/loamdb/loam/storage/s3test"
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
	startTimeout = 30 * time.Second
	stopTimeout  = 10 * time.Second
)

// Binary returns $LOAM_BIN, which must be absolute (go test runs in the
// package's directory), or builds cmd/loam into a temporary directory.
func Binary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("LOAM_BIN"); bin != "" {
		if !filepath.IsAbs(bin) {
			t.Fatalf("LOAM_BIN=%s must be an absolute path", bin)
		}
		return bin
	}
	bin := filepath.Join(t.TempDir(), "loam")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/loamdb/loam/cmd/loam").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/loam: %v\n%s", err, out)
	}
	return bin
}

// Server is a running `loam serve`.
type Server struct {
	Addr    string // host:port of the wire listener
	logPath string
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, once done is closed
}

// Start runs `bin serve` on a new data directory and a free loopback port
// (HTTP off, no LOAM_* variables from the caller: the flags say it all),
// waits until it accepts connections, and stops it with SIGTERM when the
// test ends. A server that exits early or not cleanly fails the test, as
// does one still running 10s after SIGTERM.
func Start(t testing.TB, bin string) *Server {
	t.Helper()
	return StartWith(t, bin, Options{})
}

// Options change how Start runs the server.
type Options struct {
	LogPath string   // where the server's output goes; default a temporary file
	Args    []string // more flags for `loam serve`
}

// StartWith is Start with options.
func StartWith(t testing.TB, bin string, o Options) *Server {
	t.Helper()
	dir := t.TempDir()
	s := &Server{Addr: freeAddr(t), logPath: o.LogPath, done: make(chan struct{})}
	if s.logPath == "" {
		s.logPath = filepath.Join(dir, "loam.log")
	}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	args := append([]string{"serve", "--data-dir", filepath.Join(dir, "data"), "--listen", s.Addr, "--http", ""}, s3test.ServeArgs(t)...)
	args = append(args, o.Args...)
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOAM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s serve: %v", bin, err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t, cmd.Process) })

	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			conn.Close()
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("loam serve exited before accepting connections on %s: %v%s", s.Addr, s.err, s.LogTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("loam serve did not accept connections on %s within %v%s", s.Addr, startTimeout, s.LogTail())
		}
	}
}

// stop sends SIGTERM, then SIGKILL if the server is still running later.
func (s *Server) stop(t testing.TB, p *os.Process) {
	select {
	case <-s.done:
		if !t.Failed() {
			t.Errorf("loam serve exited before the test stopped it: %v%s", s.err, s.LogTail())
		}
		return
	default:
	}
	p.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("loam serve did not exit cleanly on SIGTERM: %v%s", s.err, s.LogTail())
		}
	case <-time.After(stopTimeout):
		p.Kill()
		<-s.done
		t.Errorf("loam serve was still running %v after SIGTERM; killed it%s", stopTimeout, s.LogTail())
	}
}

// LogPath is the file the server writes its log to.
func (s *Server) LogPath() string { return s.logPath }

// Log is everything the server has written.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// LogTail is the end of the server's log, as a block to append to a
// failure message.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.logPath)
	const max = 4000
	if len(b) > max {
		b = append([]byte("..."), b[len(b)-max:]...)
	}
	return fmt.Sprintf("\n--- server log (%s) ---\n%s", s.logPath, bytes.TrimRight(b, "\n"))
}

// ExitedEarly is "" while the server runs, else why it stopped and the
// end of its log.
func (s *Server) ExitedEarly() string {
	select {
	case <-s.done:
		return fmt.Sprintf("\nloam serve exited early: %v%s", s.err, s.LogTail())
	default:
		return ""
	}
}

// freeAddr is a loopback address whose port was free a moment ago.
func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
