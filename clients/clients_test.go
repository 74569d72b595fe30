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
// The drivers: Debian's python3-psycopg2 and python3-psycopg, and
// SQLAlchemy 1.4 with pandas 1.5 over psycopg2 (python3-sqlalchemy,
// python3-pandas; all run with /usr/bin/python3, whose packages they are),
// and npm's pg, installed by `npm ci` in node/. `make clients-deps` installs whichever is missing.
package clients

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

const (
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
	{"psycopg3-roles", "python", []string{python, "psycopg3_roles.py"}, pythonModule("psycopg", "python3-psycopg")},
	{"sqlalchemy", "python", []string{python, "sqlalchemy_client.py"}, pythonModule("sqlalchemy, pandas, psycopg2", "python3-sqlalchemy python3-pandas")},
	{"node-postgres", "node", []string{"node", "pg_client.js"}, nodeModule},
}

func TestClients(t *testing.T) {
	bin := loamtest.Binary(t)
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) {
			if err := s.check(); err != nil {
				t.Fatalf("%v: `make clients-deps` installs it", err)
			}
			t.Run("loam", func(t *testing.T) {
				srv := loamtest.Start(t, bin)
				// The URL names nothing but where: every other setting is
				// the driver's default (sslmode prefer included).
				out, err := run(t, s, fmt.Sprintf("postgres://loam@%s/loam", srv.Addr))
				if err != nil {
					t.Fatalf("%s against Loam: %v\n%s%s", s.name, err, out, srv.ExitedEarly())
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
