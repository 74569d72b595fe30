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
	"context"
	"errors"
	"fmt"
	"github.com/loamdb/loam/regress/loamtest"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	fileTimeout = 5 * time.Minute // for psql to run one .sql file
	resultsDir  = "results"
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
	bin := loamtest.Binary(t)
	update := os.Getenv("REGRESS_UPDATE") == "1"

	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sql")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runFile(t, bin, psql, name, update)
		})
	}
}

// runFile runs sql/NAME.sql against a fresh server and checks its output.
func runFile(t *testing.T, bin, psql, name string, update bool) {
	outPath := filepath.Join(resultsDir, name+".out")
	diffPath := filepath.Join(resultsDir, name+".diff")
	expPath := filepath.Join("expected", name+".out")
	os.Remove(diffPath)

	srv := loamtest.StartWith(t, bin, loamtest.Options{LogPath: filepath.Join(resultsDir, name+".log")})
	_, port, _ := net.SplitHostPort(srv.Addr)
	psqlErr := runPsql(psql, port, filepath.Join("sql", name+".sql"), outPath)
	if psqlErr != nil { // its output, in the diff below, says why
		t.Errorf("psql on regress/sql/%s.sql: %v%s", name, psqlErr, srv.ExitedEarly())
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
			outPath, expPath, srv.LogPath(), diff, srv.ExitedEarly())
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
