// Package servers starts the databases the benchmarks measure: a Loam server
// built from the repository and a throwaway PostgreSQL cluster, both on free
// loopback ports.
package servers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FreeAddr returns a loopback address with a port that was free a moment
// ago.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// WaitPort dials addr until it accepts a connection, exited reports the
// server gone, or the deadline passes.
func WaitPort(ctx context.Context, addr string, exited <-chan struct{}, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("server exited before listening on %s", addr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("nothing listening on %s after %v", addr, within)
}

// RepoRoot finds the Loam repository root (the directory holding go.mod and
// cmd/loam) from the working directory upwards; the nested benchmark modules
// have a go.mod of their own, hence the cmd/loam check.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		_, errMod := os.Stat(filepath.Join(dir, "go.mod"))
		_, errCmd := os.Stat(filepath.Join(dir, "cmd", "loam"))
		if errMod == nil && errCmd == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: run from the Loam repository")
		}
		dir = parent
	}
}

// BuildLoam builds ./cmd/loam of the repository into dir.
func BuildLoam(ctx context.Context, dir string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin", "loam")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/loam")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/loam: %v\n%s", err, out)
	}
	return bin, nil
}

// Loam is a running `loam serve`.
type Loam struct {
	cmd     *exec.Cmd
	Addr    string        // wire protocol address
	Log     string        // the server's stdout and stderr
	DataDir string        // its --data-dir; the warehouse is DataDir/warehouse
	exited  chan struct{} // closed when the process has exited
}

// StartLoam starts bin serving a new data directory under dir on free
// loopback ports and waits until its wire port accepts connections.
func StartLoam(ctx context.Context, bin, dir string) (*Loam, error) {
	return StartLoamArgs(ctx, bin, dir)
}

// StartLoamArgs is StartLoam with more `loam serve` flags.
func StartLoamArgs(ctx context.Context, bin, dir string, extra ...string) (*Loam, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	httpAddr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "loam.log")
	// Appending: a server restarted on the same directory keeps the log of
	// the one before.
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	dataDir := filepath.Join(dir, "data")
	cmd := exec.Command(bin, append([]string{"serve", "--data-dir", dataDir, "--listen", addr, "--http", httpAddr}, extra...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: a ^C reaches the harness, which stops it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Loam{cmd: cmd, Addr: addr, Log: logPath, DataDir: dataDir, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	if err := WaitPort(ctx, addr, s.exited, 2*time.Minute); err != nil {
		s.Stop()
		return nil, fmt.Errorf("loam serve: %w (log: %s)", err, logPath)
	}
	return s, nil
}

func (s *Loam) ConnString() string {
	host, port, _ := net.SplitHostPort(s.Addr)
	return fmt.Sprintf("host=%s port=%s user=loam dbname=loam sslmode=disable", host, port)
}

func (s *Loam) PID() int { return s.cmd.Process.Pid }

// Exited reports whether the server process has exited.
func (s *Loam) Exited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM and waits for a clean shutdown, killing the server
// after 30 seconds.
func (s *Loam) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// Memory reads the peak (VmHWM) and current (VmRSS) resident set size of a
// process from /proc, in bytes.
func Memory(pid int) (peak, cur int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmHWM" && k != "VmRSS") {
			continue
		}
		f := strings.Fields(v) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc/%d/status: unexpected %q", pid, line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %q: %w", pid, line, err)
		}
		if k == "VmHWM" {
			peak = n << 10
		} else {
			cur = n << 10
		}
	}
	if peak == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
	}
	return peak, cur, nil
}

// pgUser is the system user the throwaway cluster runs as when the harness
// runs as root (PostgreSQL refuses to run as root).
const pgUser = "loambench"

// PGCluster is a throwaway PostgreSQL cluster.
type PGCluster struct {
	bin    string // directory of initdb, pg_ctl
	dir    string // owned by the cluster's user: data/, sock/, postgres.log
	Port   int
	asUser string // "" to run as the current user
}

// StartPostgres creates a cluster under dir with the binaries in bin and
// starts it on a free loopback port. fsync and synchronous_commit keep their
// defaults (on): the comparison is with a durable PostgreSQL. settings are
// further server settings ("name=value", passed as -c name=value).
func StartPostgres(ctx context.Context, bin, dir string, settings ...string) (*PGCluster, error) {
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		return nil, fmt.Errorf("PostgreSQL binaries: %w (install postgresql-15 or set BENCH_PG_BIN)", err)
	}
	c := &PGCluster{bin: bin, dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, "sock"), 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		c.asUser = pgUser
		if err := ensureUser(ctx, pgUser); err != nil {
			return nil, err
		}
		u, err := user.Lookup(pgUser)
		if err != nil {
			return nil, err
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{dir, filepath.Join(dir, "sock")} {
			if err := os.Chown(p, uid, gid); err != nil {
				return nil, err
			}
		}
		// The user must be able to reach dir: open up its ancestors that
		// the harness made (the temporary directory) for traversal.
		if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
			return nil, err
		}
	}
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	c.Port, _ = strconv.Atoi(port)

	data := filepath.Join(dir, "data")
	if out, err := c.run(ctx, "initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s", c.Port, filepath.Join(dir, "sock"))
	for _, kv := range settings {
		opts += " -c " + kv
	}
	if out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "postgres.log"), "-w", "-t", "120", "-o", opts, "start"); err != nil {
		c.Stop()
		return nil, fmt.Errorf("pg_ctl start: %v\n%s (log: %s)", err, out, filepath.Join(dir, "postgres.log"))
	}
	return c, nil
}

// run runs one of the cluster's binaries as the cluster's user.
func (c *PGCluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.asUser != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.asUser, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = c.dir
	// Its own process group, which the postmaster inherits: a ^C reaches
	// the harness, which stops the cluster.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.CombinedOutput()
}

func (c *PGCluster) ConnString() string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable", c.Port)
}

// Stop shuts the cluster down (fast mode: no waiting for clients).
func (c *PGCluster) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := c.run(ctx, "pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "fast", "-w", "stop"); err != nil {
		fmt.Fprintf(os.Stderr, "pg_ctl stop: %v\n%s", err, out)
	}
}

// ensureUser creates a system user (and its group) unless it exists.
func ensureUser(ctx context.Context, name string) error {
	if _, err := user.Lookup(name); err == nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, "useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("useradd %s: %v\n%s", name, err, out)
	}
	return nil
}

// PID is the postmaster's process id (the first line of postmaster.pid).
func (c *PGCluster) PID() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(line))
}
