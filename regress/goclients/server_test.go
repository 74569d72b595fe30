package goclients

import (
	"bytes"
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
			t.Fatalf("LOAM_BIN=%s must be an absolute path (go test runs in regress/goclients/)", bin)
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

// startLoam starts `loam serve` on a fresh data directory and free loopback
// ports, as the released binary runs, and returns its connection URL. The
// server is stopped with SIGTERM when the test ends; not exiting cleanly
// fails the test.
func startLoam(t *testing.T) string {
	t.Helper()
	bin := loamBinary(t)
	ports := freePorts(t, 2)
	addr := net.JoinHostPort("127.0.0.1", ports[0])
	var log bytes.Buffer
	cmd := exec.Command(bin, "serve", "--data-dir", t.TempDir(), "--listen", addr,
		"--http", net.JoinHostPort("127.0.0.1", ports[1]))
	// The flags say it all: no LOAM_* from the caller's environment.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOAM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = &syncWriter{b: &log}, &syncWriter{b: &log}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s serve: %v", bin, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("loam serve did not exit cleanly on SIGTERM: %v\n%s", err, log.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("loam serve still running 10s after SIGTERM; killed it")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			// No sslmode: pgx's default (prefer) asks for TLS first.
			return fmt.Sprintf("postgres://loam@%s/loam", addr)
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

// syncWriter lets the server's stdout and stderr share one buffer.
type syncWriter struct{ b *bytes.Buffer }

var logMu = make(chan struct{}, 1)

func (w *syncWriter) Write(p []byte) (int, error) {
	logMu <- struct{}{}
	defer func() { <-logMu }()
	return w.b.Write(p)
}

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
