// Package migrate restores PostgreSQL 15's pg_dump output into Loam with
// PostgreSQL's own tools, as a user moving in does (docs/migrating.md):
// testdata/app.sql, an application schema of twelve tables (serial,
// bigserial and identity columns, defaults, keys, CHECK and FOREIGN KEY
// constraints, indexes, comments, owners, grants, views, awkward text),
// is loaded into a throwaway PostgreSQL 15 (meta/pgtest), dumped with
// pg_dump in plain and custom format, and restored into fresh Loam
// servers with `psql -v ON_ERROR_STOP=1 -f` and `pg_restore
// --exit-on-error`; every table's rows and every sequence's next value
// must then be PostgreSQL's.
//
//	LOAM_BIN=$PWD/bin/loam go test -count=1 ./regress/migrate/
package migrate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// tables are the fixture's tables, compared row by row.
var tables = []string{
	"app.tenants", "app.users", "app.api_keys", "app.prompts",
	"obs.traces", "obs.spans", "obs.llm_calls", "obs.eval_results",
	"public.events", "public.feedback", "public.settings",
	"app.active_keys", "obs.call_costs", // views
}

// sequences continue where PostgreSQL's were.
var sequences = []string{
	"app.tenants_id_seq", "app.users_id_seq", "app.api_keys_id_seq", "app.prompts_id_seq",
	"obs.spans_span_id_seq", "obs.llm_calls_id_seq", "obs.eval_results_id_seq",
	"public.event_seq", "public.feedback_id_seq",
}

// pgTool is PostgreSQL 15's client program name, skipping the test when
// the binaries are absent outside CI.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	dir, err := pgtest.BinDir()
	if err == nil {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	if os.Getenv("CI") == "" {
		t.Skipf("%s of PostgreSQL 15 not found (make test installs it): skipping", name)
	}
	t.Fatalf("%s of PostgreSQL 15 not found", name)
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// run runs a program and returns its output, failing the test when it
// fails.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// query is one SQL statement's output through psql: unaligned, tuples
// only, COPY text for whole tables.
func query(t *testing.T, psql, url, sql string) string {
	t.Helper()
	return run(t, psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql)
}

func TestRestoreFromPostgres(t *testing.T) {
	psql := pgTool(t, "psql")
	pgDump, pgDumpall, pgRestore := pgTool(t, "pg_dump"), pgTool(t, "pg_dumpall"), pgTool(t, "pg_restore")
	pgURL := pgtest.Database(t)
	run(t, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", pgURL, "-f", "testdata/app.sql")

	dir := t.TempDir()
	plain, custom, roles := filepath.Join(dir, "app.sql"), filepath.Join(dir, "app.dump"), filepath.Join(dir, "roles.sql")
	run(t, pgDump, "-d", pgURL, "-f", plain)
	run(t, pgDump, "-d", pgURL, "-Fc", "-f", custom)
	// The roles owning and granted the objects come first, as a user
	// moving in copies them: pg_dump leaves roles out.
	run(t, pgDumpall, "-d", pgURL, "--roles-only", "-f", roles)

	// PostgreSQL's next values, asked once: nextval moves them.
	wantNext := map[string]string{}
	for _, seq := range sequences {
		wantNext[seq] = query(t, psql, pgURL, fmt.Sprintf("SELECT nextval('%s')", seq))
	}

	bin := loamtest.Binary(t)
	for _, format := range []string{"plain", "custom", "custom-single-transaction"} {
		t.Run(format, func(t *testing.T) {
			srv := loamtest.Start(t, bin)
			loamURL := fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr)
			run(t, psql, "-X", "-q", "-d", loamURL, "-v", "ON_ERROR_STOP=1", "-f", roles)
			if format == "plain" {
				run(t, psql, "-X", "-q", "-d", loamURL, "-v", "ON_ERROR_STOP=1", "-f", plain)
			} else if format == "custom" {
				run(t, pgRestore, "--exit-on-error", "-d", loamURL, custom)
			} else {
				// One transaction block: the keys are added over rows
				// the block itself wrote.
				run(t, pgRestore, "--exit-on-error", "--single-transaction", "-d", loamURL, custom)
			}
			for _, tbl := range tables {
				q := fmt.Sprintf("COPY (SELECT * FROM %s ORDER BY 1, 2) TO STDOUT", tbl)
				want, got := query(t, psql, pgURL, q), query(t, psql, loamURL, q)
				if want == "" {
					t.Fatalf("%s: no rows in PostgreSQL: the fixture is wrong", tbl)
				}
				if got != want {
					t.Errorf("%s: rows differ\nLoam:\n%s\nPostgreSQL:\n%s", tbl, got, want)
				}
			}
			for _, seq := range sequences {
				q := fmt.Sprintf("SELECT nextval('%s')", seq)
				if want, got := wantNext[seq], query(t, psql, loamURL, q); got != want {
					t.Errorf("nextval('%s') = %s, PostgreSQL's %s", seq, strings.TrimSpace(got), strings.TrimSpace(want))
				}
			}
			checkConstraints(t, psql, loamURL)
		})
	}
}

// psqlErr runs one statement expecting it to fail, and returns psql's
// output.
func psqlErr(t *testing.T, psql, url, sql string) string {
	t.Helper()
	out, err := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql).CombinedOutput()
	if err == nil {
		t.Fatalf("%s: succeeded, want an error\n%s", sql, out)
	}
	return string(out)
}

// checkConstraints: after the restore the keys, CHECK constraints and
// foreign keys are there, and what Loam enforces is enforced.
func checkConstraints(t *testing.T, psql, url string) {
	t.Helper()
	for _, c := range []struct{ sql, want string }{
		// The key index holds the rows COPY wrote before ADD CONSTRAINT.
		{"INSERT INTO app.tenants (slug, name) VALUES ('acme', 'again')",
			`ERROR:  duplicate key value violates unique constraint "tenants_slug_key"`},
		{"INSERT INTO app.tenants (id, slug, name) VALUES (1, 'other', 'again')",
			`ERROR:  duplicate key value violates unique constraint "tenants_pkey"`},
		{"INSERT INTO app.tenants (slug, name, plan) VALUES ('x', 'y', 'gold')",
			`ERROR:  new row for relation "tenants" violates check constraint "tenants_plan_check"`},
		{"UPDATE obs.eval_results SET score = 2 WHERE id = 1",
			`ERROR:  new row for relation "eval_results" violates check constraint "eval_score_range"`},
		{"ALTER TABLE app.users ADD CONSTRAINT users_tenant_key UNIQUE (tenant_id)",
			"ERROR:  could not create unique index \"users_tenant_key\"\nDETAIL:  Key (tenant_id)=(1) is duplicated."},
		{"ALTER TABLE app.users ADD CONSTRAINT users_name CHECK (display_name <> '')",
			`ERROR:  check constraint "users_name" of relation "users" is violated by some row`},
	} {
		if out := psqlErr(t, psql, url, c.sql); !strings.Contains(out, c.want) {
			t.Errorf("%s:\n%s\nwant %s", c.sql, out, c.want)
		}
	}
	// An identity column goes on from its sequence (3 rows restored, and
	// one nextval taken by the comparison).
	if got := query(t, psql, url, "INSERT INTO app.api_keys (tenant_id, prefix, hashed_secret) VALUES (1, 'lk_new', '') RETURNING id"); got != "5\n" {
		t.Errorf("identity after restore: id %q, want 5", got)
	}
	want := "api_keys_tenant_id_fkey|f|FOREIGN KEY (tenant_id) REFERENCES app.tenants(id)\n" +
		"api_keys_user_id_fkey|f|FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE SET NULL\n" +
		// Loam prints the CHECK as it was given, deparsed: PostgreSQL's
		// ruleutils would say IN (email).
		"users_email_has_at|c|CHECK ((POSITION(('@'::text) IN email) > 1))\n" +
		"users_tenant_id_fkey|f|FOREIGN KEY (tenant_id) REFERENCES app.tenants(id) ON DELETE CASCADE\n"
	got := query(t, psql, url, `SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid IN ('app.users'::regclass, 'app.api_keys'::regclass) AND contype IN ('c', 'f') ORDER BY 1`)
	if got != want {
		t.Errorf("pg_constraint:\n%s\nwant\n%s", got, want)
	}
	// psql's \d lists them (pg_class.relchecks, relhastriggers).
	d := run(t, psql, "-X", "-d", url, "-c", `\d app.users`)
	for _, line := range []string{"Check constraints:", `"users_email_has_at" CHECK`, "Foreign-key constraints:",
		`"users_tenant_id_fkey" FOREIGN KEY (tenant_id) REFERENCES app.tenants(id) ON DELETE CASCADE`} {
		if !strings.Contains(d, line) {
			t.Errorf("\\d app.users lacks %q:\n%s", line, d)
		}
	}
}

// TestRestoreStopsOnWhatLoamCannotTake: a dump with a trigger function
// stops pg_restore --exit-on-error with one error naming the function.
func TestRestoreStopsOnWhatLoamCannotTake(t *testing.T) {
	psql, pgDump, pgRestore := pgTool(t, "psql"), pgTool(t, "pg_dump"), pgTool(t, "pg_restore")
	pgURL := pgtest.Database(t)
	run(t, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", pgURL, "-c", `
		CREATE TABLE notes (id int PRIMARY KEY, body text, updated_at timestamptz);
		CREATE FUNCTION touch_updated() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.updated_at := now(); RETURN NEW; END$$;
		CREATE TRIGGER notes_touch BEFORE UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION touch_updated();
		INSERT INTO notes VALUES (1, 'a', NULL);`)
	dump := filepath.Join(t.TempDir(), "notes.dump")
	run(t, pgDump, "-d", pgURL, "-Fc", "-f", dump)
	srv := loamtest.Start(t, loamtest.Binary(t))
	loamURL := fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr)
	out, err := exec.Command(pgRestore, "--exit-on-error", "--no-owner", "-d", loamURL, dump).CombinedOutput()
	if err == nil {
		t.Fatalf("pg_restore succeeded, want it to stop at the function:\n%s", out)
	}
	if want := "ERROR:  CREATE FUNCTION public.touch_updated() is not supported yet"; !strings.Contains(string(out), want) {
		t.Errorf("pg_restore said:\n%s\nwant %q", out, want)
	}
}
