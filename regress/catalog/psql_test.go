package catalog

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
)

// psqlTables are the tables the psql tests describe: Loam's with its own
// clauses, PostgreSQL's the nearest plain equivalent (PARTITION BY RANGE
// for PARTITIONED BY; no sort order or retention).
var psqlTables = []struct{ pg, loam string }{
	{`CREATE TABLE llm_calls (ts timestamp(3) with time zone NOT NULL, tenant text, model text, tokens int,
		cost numeric(10,4), latency_ms float8, ok bool, note varchar(20)) PARTITION BY RANGE (ts)`,
		`CREATE TABLE llm_calls (ts TIMESTAMP(3) WITH TIME ZONE NOT NULL, tenant STRING, model STRING, tokens int,
		cost numeric(10,4), latency_ms float8, ok bool, note varchar(20))
		PARTITIONED BY (day(ts)) SORTED BY (tenant, model, ts) WITH (retention = '180 days' ON ts)`},
	{`CREATE TABLE llm_hourly (ts timestamptz, tenant text, calls int8) PARTITION BY RANGE (ts)`,
		`CREATE TABLE llm_hourly (ts timestamptz, tenant text, calls int8)
		PARTITIONED BY (hour(ts), bucket(16, tenant)) SORTED BY (ts DESC)`},
	{`CREATE TABLE llm_monthly (ts date, "Tenant" text, model text) PARTITION BY RANGE (ts)`,
		`CREATE TABLE llm_monthly (ts date, "Tenant" text, model text)
		PARTITIONED BY ("Tenant", truncate(4, model), month(ts)) SORTED BY (model NULLS FIRST, ts DESC NULLS LAST, "Tenant")
		WITH (retention = '1 year 6 mons' ON ts)`},
	{`CREATE TABLE plain_calls (ts timestamptz NOT NULL, model text, tokens int)`,
		`CREATE TABLE plain_calls (ts timestamptz NOT NULL, model text, tokens int)`},
	{`CREATE TABLE sorted_calls (ts timestamptz, model text)`,
		`CREATE TABLE sorted_calls (ts timestamptz, model text) SORTED BY (model)
		WITH (retention = '7 days' ON ts, commit_interval = '2 seconds')`},
	{`CREATE TABLE ct (id int, s text, ts timestamptz)`, `CREATE TABLE ct (id int, s text, ts timestamptz)`},
	// A primary key: \d's "Indexes:" footer, \di and \d of the index.
	{`CREATE TABLE keyed_calls (id int, model text, day date, PRIMARY KEY (model, id))`,
		`CREATE TABLE keyed_calls (id int, model text, day date, PRIMARY KEY (model, id))`},
	// Column DEFAULTs: \d's Default column.
	{`CREATE TABLE default_calls (id uuid DEFAULT gen_random_uuid(), ts timestamptz NOT NULL DEFAULT now(), tenant text DEFAULT 'none',
		tokens int DEFAULT 0, total bigint DEFAULT 1 + 1, at2 timestamptz DEFAULT current_timestamp, loss float8 DEFAULT -0.5)`,
		`CREATE TABLE default_calls (id uuid DEFAULT gen_random_uuid(), ts timestamptz NOT NULL DEFAULT now(), tenant text DEFAULT 'none',
		tokens int DEFAULT 0, total bigint DEFAULT 1 + 1, at2 timestamptz DEFAULT current_timestamp, loss float8 DEFAULT -0.5)`},
	// Comments: \dt+'s Description, \d+'s column descriptions.
	{`COMMENT ON TABLE plain_calls IS 'calls, unpartitioned'`, `COMMENT ON TABLE plain_calls IS 'calls, unpartitioned'`},
	{`COMMENT ON COLUMN plain_calls.model IS 'model id'`, `COMMENT ON COLUMN plain_calls.model IS 'model id'`},
	{`COMMENT ON COLUMN keyed_calls.day IS 'UTC day'`, `COMMENT ON COLUMN keyed_calls.day IS 'UTC day'`},
	{`COMMENT ON SCHEMA public IS 'LLM telemetry'`, `COMMENT ON SCHEMA public IS 'LLM telemetry'`},
}

// loamFooter is, per psql command, how Loam's output differs from
// PostgreSQL's for the tables above: PostgreSQL's text and Loam's in its
// place. The Loam clauses show in the footer: the partition key, sort
// order and retention through pg_get_partkeydef (the "Partition key:"
// footer, \d's only one that fits), and in \d+ as "Options:" (reloptions).
var loamFooter = map[string][][2]string{
	`\d llm_calls`: {{"Partition key: RANGE (ts)\n",
		"Partition key: day(ts)\nSort order: tenant, model, ts\nRetention: 180 days on ts\n"}},
	`\d+ llm_calls`: {{"Partition key: RANGE (ts)\n",
		"Partition key: day(ts)\nSort order: tenant, model, ts\nRetention: 180 days on ts\n"},
		{"Number of partitions: 0\n", "Number of partitions: 0\nOptions: sorted_by=(tenant, model, ts), retention=180 days on ts\n"}},
	`\d llm_hourly`: {{"Partition key: RANGE (ts)\n", "Partition key: hour(ts), bucket(16, tenant)\nSort order: ts DESC\n"}},
	`\d llm_monthly`: {{"Partition key: RANGE (ts)\n", `Partition key: "Tenant", truncate(4, model), month(ts)
Sort order: model NULLS FIRST, ts DESC NULLS LAST, "Tenant"
Retention: 1 year 6 mons on ts
`}},
	`\d+ sorted_calls`: {{"Access method: heap\n",
		"Access method: heap\nOptions: sorted_by=(model), retention=7 days on ts, commit_interval=00:00:02\n"}},
}

// psqlRun runs psql 15 (no psqlrc, UTC, stop on error) in dir and returns
// its output followed by its exit status, which must agree too (\d of a
// missing table fails on both).
func psqlRun(t *testing.T, ctx context.Context, dir, url, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "psql", append([]string{"-X", "-v", "ON_ERROR_STOP=1", "-d", url}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PGTZ=UTC", "PAGER=", "PSQL_PAGER=")
	cmd.Stdin = strings.NewReader(stdin)
	b, err := cmd.CombinedOutput()
	return string(b) + fmt.Sprintf("(exit: %v)\n", err)
}

var psqlTime = regexp.MustCompile(`(?m)^Time: \d+\.\d{3} ms$`)

// TestPsql runs psql 15 against Loam and PostgreSQL and compares what it
// prints: psql sends its own catalog queries (see psql -E). One server of
// each serves all the subtests.
func TestPsql(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("psql not found (make psql installs Debian's postgresql-client): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pgURL := pgtest.Database(t)
	loamURL := startLoam(t)
	users := map[string]string{}
	dbs := map[string]string{}
	for _, url := range []string{pgURL, loamURL} {
		c := connect(t, ctx, url, false)
		for _, tb := range psqlTables {
			q := tb.pg
			if url == loamURL {
				q = tb.loam
			}
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("setup %s: %v", q, err)
			}
		}
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		users[url], dbs[url] = cfg.User, cfg.Database
	}
	// both runs psql with the same arguments against each server; the
	// answers must be the same but for the owner (the connecting user),
	// timings, and the footer differences loamFooter lists.
	both := func(t *testing.T, dir, stdin string, args ...string) (pg, loam string) {
		t.Helper()
		out := map[string]string{}
		for _, url := range []string{pgURL, loamURL} {
			s := psqlRun(t, ctx, dir, url, stdin, args...)
			s = strings.ReplaceAll(s, "|"+users[url]+"\n", "|OWNER\n")
			s = strings.ReplaceAll(s, "|"+users[url]+"|", "|OWNER|")
			out[url] = psqlTime.ReplaceAllString(s, "Time: N ms")
		}
		return out[pgURL], out[loamURL]
	}

	t.Run("describe", func(t *testing.T) {
		for _, cmd := range [][]string{
			{"-c", `\d llm_calls`},
			{"-c", `\d+ llm_calls`},
			{"-c", `\d llm_hourly`},
			{"-c", `\d llm_monthly`},
			{"-c", `\d plain_calls`},
			{"-c", `\d+ plain_calls`},
			{"-c", `\d sorted_calls`},
			{"-c", `\d+ sorted_calls`},
			{"-c", `\d keyed_calls`},
			{"-c", `\d+ keyed_calls`},
			{"-c", `\d default_calls`},
			{"-c", `\d+ default_calls`},
			{"-A", "-c", `\di`},
			{"-c", `\d keyed_calls_pkey`},
			{"-A", "-c", `\dt`},
			{"-A", "-c", `\dt llm_*`},
			{"-A", "-c", `\d`},
			{"-c", `\d nosuchtable`},
			{"-c", `\dn`},
			{"-c", `\dn+`},
			{"-A", "-c", `\dP`},
			// What else sees a partitioned table as PostgreSQL shows one.
			{"-A", "-c", `SELECT table_name, table_type, is_insertable_into FROM information_schema.tables
				WHERE table_schema = 'public' ORDER BY 1`},
			{"-A", "-c", `SELECT schemaname, tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 2`},
			{"-A", "-c", `SELECT relname, relkind, relam <> 0 AS has_am, relispartition, relhassubclass,
				pg_get_partkeydef(oid) IS NOT NULL AS has_key FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1`},
			{"-A", "-c", `SELECT relid, (SELECT count(*) FROM pg_partition_ancestors('plain_calls')) AS plain,
				(SELECT count(*) FROM pg_inherits) AS inherits FROM pg_partition_ancestors('llm_calls')`},
			{"-A", "-c", `SELECT column_name, data_type, datetime_precision, is_nullable FROM information_schema.columns
				WHERE table_name = 'llm_calls' ORDER BY ordinal_position`},
		} {
			pg, loam := both(t, "", "", cmd...)
			for _, d := range loamFooter[cmd[len(cmd)-1]] {
				if !strings.Contains(pg, d[0]) {
					t.Errorf("psql %s on PostgreSQL lacks %q:\n%s", cmd[len(cmd)-1], d[0], pg)
				}
				pg = strings.Replace(pg, d[0], d[1], 1)
			}
			if pg != loam {
				t.Errorf("psql %s differs\nPostgreSQL (Loam's footer in place):\n%s\nLoam:\n%s", strings.Join(cmd, " "), pg, loam)
			}
		}
	})

	t.Run("sizes", func(t *testing.T) {
		// The sizes are the servers' own (Loam's are its data files').
		size := regexp.MustCompile(`\|\d+ (bytes|kB|MB|GB)\|`)
		pg, loam := both(t, "", "", "-A", "-c", `\dt+`)
		pg, loam = size.ReplaceAllString(pg, "|SIZE|"), size.ReplaceAllString(loam, "|SIZE|")
		if pg != loam {
			t.Errorf(`psql \dt+ differs\nPostgreSQL:\n%s\nLoam:\n%s`, pg, loam)
		}
	})

	t.Run("lists", func(t *testing.T) {
		// Each server's one superuser (Loam's is its only role) leads its
		// \du line, and sizes are the servers' own: both are masked.
		size := regexp.MustCompile(`\|\d+ (bytes|kB|MB|GB)\|`)
		for _, cmd := range [][]string{
			{"-A", "-c", `\du`},
			{"-A", "-c", `\dg`},
			{"-c", `\du+`},
			{"-A", "-c", `\df`},
			{"-A", "-c", `\df+`},
			{"-A", "-c", `\dv`},
			{"-A", "-c", `\di`},
			{"-A", "-c", `\dx`},
			{"-c", `\dx`},
			{"-A", "-c", `\dP+`},
			{"-A", "-c", `\dP+ llm_h*`},
		} {
			pg, loam := both(t, "", "", cmd...)
			pg = strings.ReplaceAll("\n"+pg, "\n"+users[pgURL]+"|", "\nROLE|")
			loam = strings.ReplaceAll("\n"+loam, "\n"+users[loamURL]+"|", "\nROLE|")
			pg = regexp.MustCompile(`(?m)^ `+regexp.QuoteMeta(users[pgURL])+` +\|`).ReplaceAllString(pg, " ROLE |")
			loam = regexp.MustCompile(`(?m)^ `+regexp.QuoteMeta(users[loamURL])+` +\|`).ReplaceAllString(loam, " ROLE |")
			pg, loam = size.ReplaceAllString(pg, "|SIZE|"), size.ReplaceAllString(loam, "|SIZE|")
			if pg != loam {
				t.Errorf("psql %s differs\nPostgreSQL:\n%s\nLoam:\n%s", strings.Join(cmd, " "), pg, loam)
			}
		}
	})

	t.Run("object lists", func(t *testing.T) {
		// Types, languages, tablespaces, privileges, and the kinds of
		// object Loam has none of, which must list as PostgreSQL lists
		// none: a pattern (public.*, a table's name) keeps PostgreSQL's
		// built-in ones out. Tablespace sizes are the servers' own.
		size := regexp.MustCompile(`\|\d+ (bytes|kB|MB|GB)\|`)
		for _, cmd := range [][]string{
			{"-A", "-c", `\dT`},
			{"-A", "-c", `\dT public.*`},
			{"-A", "-c", `\dT+ public.*`},
			{"-A", "-c", `\dT llm_calls`},
			{"-A", "-c", `\dT bool|int4|text|numeric|timestamptz|uuid|jsonb`},
			{"-A", "-c", `\dT+ int4`},
			{"-A", "-c", `\dD`},
			{"-A", "-c", `\dD+ public.*`},
			{"-A", "-c", `\dL`},
			{"-A", "-c", `\dL+`},
			{"-A", "-c", `SELECT o, o::regproc, o::regprocedure FROM unnest('{0,2246,13560,13561,13562,99999}'::oid[]) o`},
			{"-A", "-c", `\db`},
			{"-A", "-c", `\db+`},
			{"-A", "-c", `\dC plain_calls`},
			{"-A", "-c", `\dC+ plain_calls`},
			{"-A", "-c", `\do`},
			{"-A", "-c", `\do public.*`},
			{"-A", "-c", `\do+ public.*`},
			{"-A", "-c", `\dy`},
			{"-A", "-c", `\dy+`},
			{"-A", "-c", `\dc`},
			{"-A", "-c", `\dc+ public.*`},
			{"-A", "-c", `\dp`},
			{"-A", "-c", `\z llm_*`},
			{"-c", `\dp plain_calls`},
			{"-A", "-c", `\des`},
			{"-A", "-c", `\dew`},
			{"-A", "-c", `\dF public.*`},
			{"-A", "-c", `\dFd public.*`},
			{"-A", "-c", `\dFp public.*`},
			{"-A", "-c", `\dFt public.*`},
			{"-A", "-c", `\dO public.*`},
			{"-A", "-c", `\dO`},
			{"-A", "-c", `\ddp`},
			{"-A", "-c", `\dRs`},
			{"-A", "-c", `\dX`},
			{"-A", "-c", `\drds`},
			{"-A", "-c", `\des+`},
			{"-A", "-c", `\deu`},
			{"-A", "-c", `\det`},
			{"-A", "-c", `\dd`},
			{"-A", "-c", `\dd public.*`},
			{"-A", "-c", `\dl`},
			{"-A", "-c", `\dA`},
			{"-A", "-c", `\dA+`},
			{"-A", "-c", `\dew+`},
			// What those commands rely on: a catalog's tableoid (left out
			// of *), and pg_options_to_table.
			{"-A", "-c", `SELECT l.tableoid, l.* FROM pg_language l WHERE lanname = 'c'`},
			{"-A", "-c", `SELECT option_name, option_value, option_value IS NULL AS no_value
				FROM pg_options_to_table('{a=1,b,c=x=y}'::text[])`},
			{"-A", "-c", `SELECT o.* FROM pg_options_to_table(ARRAY['k=v']) AS o(n, v)`},
			{"-A", "-c", `SELECT count(*) FROM pg_options_to_table(NULL)`},
		} {
			pg, loam := both(t, "", "", cmd...)
			pg, loam = size.ReplaceAllString(pg, "|SIZE|"), size.ReplaceAllString(loam, "|SIZE|")
			if pg != loam {
				t.Errorf("psql %s differs\nPostgreSQL:\n%s\nLoam:\n%s", strings.Join(cmd, " "), pg, loam)
			}
		}
		// Without a pattern these list PostgreSQL's built-in casts and
		// text search configurations, which Loam does not: they must
		// still succeed.
		for _, cmd := range []string{`\dC`, `\dF`, `\dT+`} {
			if _, loam := both(t, "", "", "-A", "-c", cmd); !strings.HasSuffix(loam, "(exit: <nil>)\n") {
				t.Errorf("psql %s on Loam failed:\n%s", cmd, loam)
			}
		}
	})

	t.Run("list databases", func(t *testing.T) {
		// \l lists each server's own databases: the header must be
		// PostgreSQL's, and Loam's one row its database, owned by the
		// connecting user (both replaces it by OWNER).
		// \l+ adds the size (of Loam's data files) and the tablespace.
		for _, cmd := range []string{`\l`, `\l+`} {
			pg, loam := both(t, "", "", "-A", "-c", cmd)
			pgLines, loamLines := strings.Split(pg, "\n"), strings.Split(loam, "\n")
			if len(pgLines) < 3 || len(loamLines) < 4 || pgLines[0] != loamLines[0] || pgLines[1] != loamLines[1] {
				t.Fatalf("psql %s headers differ\nPostgreSQL:\n%s\nLoam:\n%s", cmd, pg, loam)
			}
			row := strings.Split(loamLines[2], "|")
			if len(row) != strings.Count(loamLines[1], "|")+1 || row[0] != dbs[loamURL] || row[1] != "OWNER" || row[2] != "UTF8" ||
				cmd == `\l+` && !regexp.MustCompile(`^\d+ (bytes|kB)$`).MatchString(row[8]) || loamLines[3] != "(1 row)" {
				t.Errorf("psql %s on Loam: want one row for database %s owned by %s in UTF8\n%s", cmd, dbs[loamURL], users[loamURL], loam)
			}
		}
	})

	t.Run("expanded and timing", func(t *testing.T) {
		q := `SELECT 1 AS a, 'two words'::text AS b, NULL::int AS c, 2.50::numeric AS d UNION ALL SELECT 3, 'x', 4, NULL`
		for _, cmd := range [][]string{
			{"-x", "-c", q},
			{"-c", `\x`, "-c", q, "-c", `\x off`, "-c", q},
			{"-c", `\x auto`, "-c", q},
			{"-c", `\timing on`, "-c", q, "-c", `\timing off`, "-c", "SELECT 1"},
			{"-c", `\timing`, "-c", `\x`, "-c", "SELECT 1 AS one"},
		} {
			pg, loam := both(t, "", "", cmd...)
			if pg != loam {
				t.Errorf("psql %s differs\nPostgreSQL:\n%s\nLoam:\n%s", strings.Join(cmd, " "), pg, loam)
			}
			if strings.Contains(strings.Join(cmd, " "), `\timing on`) && !strings.Contains(loam, "Time: N ms") {
				t.Errorf("psql \\timing on Loam printed no time:\n%s", loam)
			}
		}
	})

	t.Run("copy", func(t *testing.T) {
		dir := t.TempDir()
		write := func(name, s string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("in.csv", "1,\"a, b\",2026-01-01 00:00:00+00\n2,,\n3,\"q\"\"x\",2026-02-03 04:05:06.5+00\n")
		write("in_header.csv", "id,s\n7,seven\n")
		// Bad input: the error's context quotes the value or the line
		// (cut at 100 bytes), and a CSV record over two lines is one line.
		write("bad.csv", "1,ok,\nabc,x,\n")
		write("short.csv", "1,x\n")
		write("multi.csv", "1,\"multi\nline\",x\n")
		write("long.csv", strings.Repeat("x", 150)+",b,c\n")
		write("extra.txt", "1\t\"a\tb\t\\N\tmore\n")
		write("defaults.csv", "1,a\n2,\n3,c\n")
		write("in.txt", "4\tt1\t2026-01-01 00:00:00+00\n5\t\\N\t\\N\n6\ttab\\there\t2026-03-01 00:00:00+00\n")
		for _, cmd := range [][]string{
			{"-c", `\copy ct from 'in.csv' (format csv)`, "-c", `\copy ct from 'in.txt'`,
				"-c", `\copy ct (id, s) from 'in_header.csv' with (format csv, header true)`},
			{"-c", `\copy ct to stdout`},
			{"-c", `\copy ct to stdout (format csv, header)`},
			{"-c", `\copy (SELECT id, s FROM ct WHERE id > 2 ORDER BY id) to stdout`},
			{"-c", `\copy (SELECT id, ts FROM ct ORDER BY id) to stdout with csv`},
			{"-c", `\copy ct from 'missing.csv'`},
			{"-c", `\copy ct from 'bad.csv' csv`},
			{"-c", `\copy ct from 'short.csv' csv`},
			{"-c", `\copy ct from 'multi.csv' csv`},
			{"-c", `\copy ct from 'long.csv' csv`},
			{"-c", `\copy ct from 'extra.txt'`},
			{"-c", `SELECT count(*), count(s), count(ts) FROM ct`},
			// Columns a column list leaves out take their defaults, per row.
			{"-c", `\copy default_calls (tokens, tenant) from 'defaults.csv' csv`, "-c",
				`SELECT tokens, tenant, total, loss, at2 IS NOT NULL AS at2, ts IS NOT NULL AS ts FROM default_calls ORDER BY tokens`,
				"-c", `SELECT count(*), count(DISTINCT id) FROM default_calls`},
		} {
			pg, loam := both(t, dir, "", cmd...)
			if pg != loam {
				t.Errorf("psql %s differs\nPostgreSQL:\n%s\nLoam:\n%s", strings.Join(cmd, " "), pg, loam)
			}
		}
		// \copy … to 'file' and \copy … from stdin, the rows ending at \.
		files := map[string]string{}
		for _, url := range []string{pgURL, loamURL} {
			name := "out_loam.txt"
			if url == pgURL {
				name = "out_pg.txt"
			}
			out := psqlRun(t, ctx, dir, url, "8\tfrom stdin\t\\N\n\\.\n", "-c", `\copy ct from stdin`,
				"-c", fmt.Sprintf(`\copy (SELECT * FROM ct ORDER BY id) to '%s'`, name))
			if out != "COPY 1\nCOPY 8\n(exit: <nil>)\n" {
				t.Errorf("psql \\copy from stdin, to file on %s: %s", url, out)
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files[url] = string(b)
		}
		if files[pgURL] != files[loamURL] {
			t.Errorf("\\copy to file differs\nPostgreSQL:\n%s\nLoam:\n%s", files[pgURL], files[loamURL])
		}
	})

	t.Run("banner", func(t *testing.T) {
		// Without a terminal psql prints no banner, with one it prints
		// "psql (15.x…)" and, when the server's version differs, ", server
		// 15.y"; a different major version would add a WARNING line.
		pg, loam := both(t, "", "SELECT 1 AS x;\n")
		if pg != loam {
			t.Errorf("psql with a query on stdin differs\nPostgreSQL:\n%s\nLoam:\n%s", pg, loam)
		}
		if _, err := exec.LookPath("script"); err != nil {
			t.Fatalf("script (util-linux) not found: %v", err)
		}
		banner := map[string]string{}
		for _, url := range []string{pgURL, loamURL} {
			cmd := exec.CommandContext(ctx, "script", "-qec", "psql -X -d '"+url+"'", "/dev/null")
			cmd.Env = append(os.Environ(), "PAGER=", "TERM=dumb")
			cmd.Stdin = strings.NewReader(`\q` + "\n")
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("script psql: %v\n%s", err, b)
			}
			s := strings.ReplaceAll(string(b), "\r", "")
			banner[url] = s
		}
		// The terminal echoes the \q typed ahead before psql starts.
		first := func(s string) string {
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(l, "psql") {
					return l
				}
			}
			return ""
		}
		loam, pg = banner[loamURL], banner[pgURL]
		if !regexp.MustCompile(`^psql \(15\.[^,]*(, server 15\.\d+)?\)$`).MatchString(first(loam)) ||
			strings.Contains(loam, "WARNING") || !strings.Contains(loam, "\nType \"help\" for help.\n") {
			t.Errorf("psql's banner on Loam:\n%s\nPostgreSQL's:\n%s", loam, pg)
		}
		if !strings.HasPrefix(first(loam), strings.TrimSuffix(first(pg), ")")) {
			t.Errorf("psql's banner on Loam %q does not start as on PostgreSQL %q", first(loam), first(pg))
		}
		// The prompt names the database and shows # for a superuser.
		if !strings.Contains(loam, "\n"+dbs[loamURL]+"=# ") {
			t.Errorf("psql's prompt on Loam is not %s=#:\n%s", dbs[loamURL], loam)
		}
		pg, loamInfo := both(t, "", "", "-c", `\conninfo`)
		conn := regexp.MustCompile(`database "[^"]*" as user "[^"]*" on host "[^"]*" at port "\d+"`)
		pg = conn.ReplaceAllString(pg, "DB USER HOST PORT")
		loamInfo = conn.ReplaceAllString(loamInfo, "DB USER HOST PORT")
		if pg != loamInfo || !strings.Contains(pg, "DB USER HOST PORT") {
			t.Errorf("psql \\conninfo differs\nPostgreSQL:\n%s\nLoam:\n%s", pg, loamInfo)
		}
	})

	t.Run("views", func(t *testing.T) {
		for _, url := range []string{pgURL, loamURL} {
			c := connect(t, ctx, url, false)
			for _, q := range psqlViews {
				if _, err := c.Exec(ctx, q); err != nil {
					t.Fatalf("setup %s: %v", q, err)
				}
			}
		}
		// A view's definition is PostgreSQL's deparsed query there and the
		// text as written on Loam: masked.
		def := regexp.MustCompile(`(?s)View definition:\n.*?\n\n`)
		size := regexp.MustCompile(`\|\d+ (bytes|kB|MB|GB)\|`)
		for _, cmd := range [][]string{
			{"-A", "-c", `\dv`},
			{"-A", "-c", `\dv+`},
			{"-A", "-c", `\dv model_*`},
			{"-A", "-c", `\d`},
			{"-c", `\d model_tokens`},
			{"-c", `\d recent`},
			{"-c", `\d+ model_tokens`},
			{"-c", `\d+ recent`},
			{"-A", "-c", `SELECT table_name, table_type, is_insertable_into FROM information_schema.tables
				WHERE table_schema = 'public' ORDER BY 1`},
			{"-A", "-c", `SELECT table_name, check_option, is_updatable, is_insertable_into FROM information_schema.views
				WHERE table_schema = 'public' ORDER BY 1`},
			{"-A", "-c", `SELECT schemaname, viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 2`},
			{"-A", "-c", `SELECT relname, relkind, relam <> 0 AS has_am, relhasindex FROM pg_class
				WHERE relnamespace = 'public'::regnamespace AND relkind = 'v' ORDER BY 1`},
			{"-A", "-c", `SELECT attrelid::regclass, attname, attnum, format_type(atttypid, atttypmod) FROM pg_attribute
				WHERE attrelid IN ('model_tokens'::regclass, 'recent'::regclass) ORDER BY 1, 3`},
			{"-A", "-c", `SELECT column_name, data_type, is_nullable FROM information_schema.columns
				WHERE table_name = 'recent' ORDER BY ordinal_position`},
			{"-A", "-c", `SELECT pg_get_viewdef('model_tokens'::regclass, true) IS NOT NULL AS has_def`},
		} {
			pg, loam := both(t, "", "", cmd...)
			pg, loam = size.ReplaceAllString(pg, "|SIZE|"), size.ReplaceAllString(loam, "|SIZE|")
			pg, loam = def.ReplaceAllString(pg, "View definition: DEF\n\n"), def.ReplaceAllString(loam, "View definition: DEF\n\n")
			// recent is a simple view, which PostgreSQL can write through;
			// Loam's views are read-only.
			pg = strings.NewReplacer("recent|VIEW|YES", "recent|VIEW|NO", "recent|NONE|YES|YES", "recent|NONE|NO|NO").Replace(pg)
			if pg != loam {
				t.Errorf("psql %s differs\nPostgreSQL:\n%s\nLoam:\n%s", strings.Join(cmd, " "), pg, loam)
			}
		}
	})
}

// psqlViews are the views the psql views test describes, on both servers.
var psqlViews = []string{
	`CREATE VIEW model_tokens AS SELECT model, sum(tokens) AS tokens, count(*) AS calls FROM plain_calls GROUP BY model`,
	`CREATE VIEW recent (at, m) AS SELECT ts, model, tokens FROM plain_calls WHERE ts > now() - interval '1 hour'`,
}
