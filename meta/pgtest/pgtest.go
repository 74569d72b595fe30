// Package pgtest runs a throwaway PostgreSQL cluster for tests: initdb into
// a temporary directory, a server on 127.0.0.1 at a free port with its unix
// socket in that directory, one database per test, and everything removed
// at the end. As root it runs the server as the unprivileged system user
// loamtest (PostgreSQL refuses to run as root), creating that user when
// missing.
//
// Tests get a database with Database(t); the first call starts the cluster,
// which the package's TestMain stops:
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		pgtest.Stop()
//		os.Exit(code)
//	}
//
// When no PostgreSQL server binaries are found the tests fail with a
// message saying how to get them (make test installs them), unless
// LOAM_SKIP_PG=1 is set outside CI, in which case they are skipped. In CI
// (env CI set) they always fail. LOAM_PG_BIN names the binaries' directory
// when they are somewhere unusual.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// User is the system user the server runs as when the tests run as root.
const User = "loamtest"

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	Dir  string // temporary directory: data/, the socket, the log
	Port int
	bin  string
	as   string // run commands as this user ("" for the current one)
	dbs  atomic.Int64
}

var (
	mu       sync.Mutex
	shared   *Cluster
	startErr error
)

// Database creates an empty database on the shared cluster, starting the
// cluster on first use, and returns its URL (postgres://…). When the
// cluster cannot start the test fails, or is skipped as the package doc
// says.
func Database(t testing.TB) string {
	t.Helper()
	mu.Lock()
	if shared == nil && startErr == nil {
		shared, startErr = Start()
	}
	c, err := shared, startErr
	mu.Unlock()
	if err != nil {
		if errors.Is(err, ErrNoBinaries) && os.Getenv("CI") == "" && os.Getenv("LOAM_SKIP_PG") == "1" {
			t.Skipf("pgtest: %v (LOAM_SKIP_PG=1)", err)
		}
		t.Fatalf("pgtest: %v", err)
	}
	url, err := c.CreateDatabase(context.Background())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return url
}

// Stop stops the shared cluster, if one was started, and removes its
// directory.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
		shared = nil
	}
}

// ErrNoBinaries says PostgreSQL's server binaries were not found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: run `make test`, which installs Debian's postgresql-15, or set LOAM_PG_BIN")

// BinDir finds the directory holding initdb and pg_ctl: $LOAM_PG_BIN,
// /usr/lib/postgresql/15/bin, `pg_config --bindir`, then the newest
// /usr/lib/postgresql/*/bin.
func BinDir() (string, error) {
	cands := []string{}
	if d := os.Getenv("LOAM_PG_BIN"); d != "" {
		cands = append(cands, d)
	}
	cands = append(cands, "/usr/lib/postgresql/15/bin")
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		cands = append(cands, strings.TrimSpace(string(out)))
	}
	more, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(more, func(i, j int) bool { return versionOf(more[i]) > versionOf(more[j]) })
	cands = append(cands, more...)
	for _, d := range cands {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Start initialises and starts a new cluster.
func Start() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin}
	if os.Geteuid() == 0 {
		if err := ensureUser(); err != nil {
			return nil, err
		}
		c.as = User
	}
	// Not under t.TempDir: its parents are private to root, and the
	// server's user must reach the directory.
	if c.Dir, err = os.MkdirTemp("", "loam-pg-"); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if c.as != "" {
		u, err := user.Lookup(c.as)
		if err != nil {
			c.remove()
			return nil, fmt.Errorf("pgtest: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(c.Dir, uid, gid); err != nil {
			c.remove()
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	data := filepath.Join(c.Dir, "data")
	if out, err := c.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		c.remove()
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	// A free port can be taken between our look and the server's bind:
	// try a few.
	for attempt := 0; ; attempt++ {
		if c.Port, err = freePort(); err != nil {
			c.remove()
			return nil, fmt.Errorf("pgtest: %w", err)
		}
		opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400 -c shared_buffers=32MB",
			c.Port, c.Dir)
		out, err := c.run("pg_ctl", "-D", data, "-l", filepath.Join(c.Dir, "log"), "-w", "-t", "60", "-o", opts, "start")
		if err == nil {
			break
		}
		if attempt == 2 {
			logText, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
			c.remove()
			return nil, fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, logText)
		}
	}
	return c, nil
}

// URL is the URL of database name on c.
func (c *Cluster) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, name)
}

// CreateDatabase creates a new empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context) (string, error) {
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.dbs.Add(1))
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// Stop stops the server at once (nothing in it needs to survive) and
// removes its directory.
func (c *Cluster) Stop() error {
	out, err := c.run("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "immediate", "-w", "stop")
	c.remove()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

func (c *Cluster) remove() { os.RemoveAll(c.Dir) }

func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, prog)
	var cmd *exec.Cmd
	if c.as != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.as, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = c.Dir
	// pg_ctl start leaves the server running with our pipes open unless
	// it writes to the log file; it does (-l), so CombinedOutput returns.
	return cmd.CombinedOutput()
}

// ensureUser creates the system user the server runs as, if missing.
func ensureUser() error {
	if _, err := user.Lookup(User); err == nil {
		return nil
	}
	out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", User).CombinedOutput()
	if err != nil {
		// Another test binary may have created it meanwhile.
		if _, lerr := user.Lookup(User); lerr == nil {
			return nil
		}
		return fmt.Errorf("pgtest: useradd %s: %w\n%s", User, err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
