package privileges

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

// TestPrivileges runs each testdata/*.txt scenario on a fresh PostgreSQL
// 15 cluster and a fresh Loam server and fails on every statement whose
// outcome differs, unless skip.txt lists it. PRIV_FILES=a.txt,b.txt runs
// only those files; -v prints both transcripts.
func TestPrivileges(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	skip, err := readSkips("testdata/skip.txt")
	if err != nil {
		t.Fatal(err)
	}
	if only := os.Getenv("PRIV_FILES"); only != "" {
		want := map[string]bool{}
		for _, f := range strings.Split(only, ",") {
			want[f] = true
		}
		var keep []string
		for _, f := range files {
			if want[filepath.Base(f)] {
				keep = append(keep, f)
			}
		}
		files = keep
	}
	if _, err := pgtest.BinDir(); errors.Is(err, pgtest.ErrNoBinaries) && os.Getenv("CI") == "" {
		t.Skipf("no PostgreSQL 15 to compare with: %v", err)
	}
	bin := loamtest.Binary(t)
	used := map[string]bool{}
	for _, f := range files {
		if filepath.Base(f) == "skip.txt" {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			runScenario(t, bin, f, skip, used)
		})
	}
	if os.Getenv("PRIV_FILES") == "" && !t.Failed() {
		var stale []string
		for k := range skip {
			if !used[k] {
				stale = append(stale, k)
			}
		}
		sort.Strings(stale)
		for _, k := range stale {
			t.Errorf("skip.txt: %s no longer differs (or is gone): remove it", k)
		}
	}
}

func runScenario(t *testing.T, bin, path string, skip skips, used map[string]bool) {
	steps, err := readScript(path)
	if err != nil {
		t.Fatal(err)
	}
	pgURL := startPostgres(t)
	srv := loamtest.Start(t, bin)
	pg := newRunner(pgURL)
	defer pg.close()
	loam := newRunner(func(role string) string {
		return fmt.Sprintf("postgres://%s@%s/loam?sslmode=disable", role, srv.Addr)
	})
	defer loam.close()
	file := filepath.Base(path)
	seen := map[string]int{}
	for _, st := range steps {
		key := file + " | " + st.key()
		if _, listed := skip[key]; listed && seen[key] > 0 {
			t.Fatalf("%s:%d: skip.txt lists %q, which the script runs more than once: make the statement unique", file, st.line, st.key())
		}
		seen[key]++
	}
	for _, st := range steps {
		want, got := pg.run(st), loam.run(st)
		key := file + " | " + st.key()
		if testing.Verbose() {
			t.Logf("%s:%d %s> %s\n-- postgres:\n%s-- loam:\n%s", file, st.line, st.session, st.sql, want, got)
		}
		if want == got {
			continue
		}
		if reason, ok := skip[key]; ok {
			used[key] = true
			t.Logf("%s:%d known difference (%s): %s> %s", file, st.line, reason, st.session, st.sql)
			continue
		}
		t.Errorf("%s:%d %s> %s\n-- postgres:\n%s-- loam:\n%s%s", file, st.line, st.session, st.sql, want, got, srv.ExitedEarly())
	}
}

// startPostgres starts a cluster of its own (roles are cluster-wide, so
// scenarios must not share one), with the superuser loam and its
// database loam as on a fresh Loam server, and returns its URL for a
// role.
func startPostgres(t *testing.T) func(role string) string {
	c, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Log(err)
		}
	})
	ctx := context.Background()
	admin, err := pgconn.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, q := range []string{
		"CREATE ROLE loam SUPERUSER LOGIN",
		"CREATE DATABASE loam OWNER loam",
	} {
		if _, err := admin.Exec(ctx, q).ReadAll(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return func(role string) string {
		return fmt.Sprintf("postgres://%s@127.0.0.1:%d/loam?sslmode=disable", role, c.Port)
	}
}
