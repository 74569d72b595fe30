package catalog

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loamdb/loam/meta/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// loamBinary returns $LOAM_BIN, or builds cmd/loam into a temporary directory.
func loamBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("LOAM_BIN"); bin != "" {
		if !filepath.IsAbs(bin) {
			t.Fatalf("LOAM_BIN=%s must be an absolute path (go test runs in regress/catalog/)", bin)
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

// lockedBuffer lets the server's stdout and stderr share one log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// startLoam starts `loam serve` on a fresh data directory and a free
// loopback port and returns its URL; SIGTERM stops it when the test ends.
func startLoam(t *testing.T) string {
	t.Helper()
	bin := loamBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var log lockedBuffer
	cmd := exec.Command(bin, "serve", "--data-dir", t.TempDir(), "--listen", addr, "--http", "")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOAM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s serve: %v", bin, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("loam serve still running 10s after SIGTERM; killed it")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", addr)
		}
		select {
		case err := <-done:
			t.Fatalf("loam serve exited before accepting connections: %v\n%s", err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("loam serve did not accept connections on %s within 30s", addr)
		}
	}
}
