package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/storage/s3test"
)

// dataFiles counts the Parquet files under a table's directory.
func dataFiles(t *testing.T, dir, ns, table string) int {
	t.Helper()
	wh, _ := s3test.Warehouse(t, dir)
	return len(s3test.Files(t, wh+"/"+ns+".db/"+table, ".parquet"))
}

// step is one statement of a session and what it must answer: the first
// column of its last row, "" for anything, or an SQLSTATE after "error ".
type step struct{ who, q, want string }

func runSteps(t *testing.T, sessions map[string]*engine.Session, steps []step) {
	t.Helper()
	ctx := context.Background()
	for _, st := range steps {
		rs, err := runSQL(ctx, sessions[st.who], st.q)
		if code, ok := strings.CutPrefix(st.want, "error "); ok {
			if sqlstate(err) != code {
				t.Fatalf("%s (%s): %v, want SQLSTATE %s", st.q, st.who, err, code)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s (%s): %v", st.q, st.who, err)
		}
		if st.want != "" {
			if got := rs[len(rs)-1].rows[0][0]; got != st.want {
				t.Fatalf("%s (%s): %s, want %s", st.q, st.who, got, st.want)
			}
		}
	}
}

// A DROP TABLE in a block waits for COMMIT: the block no longer sees the
// table, other sessions still do, its files stay, and ROLLBACK brings it
// back whole, rows in Iceberg and in the write log alike. COMMIT drops it
// and removes its files.
func TestDropTableInBlock(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s, other := newSession(t, e), newSession(t, e)
	sessions := map[string]*engine.Session{"s": s, "other": other}
	runSteps(t, sessions, []step{
		{"s", "CREATE TABLE keep (id int, v text)", ""},
		{"s", "INSERT INTO keep VALUES (1, 'a'), (2, 'b')", ""},
		{"s", "CHECKPOINT", ""},
		{"s", "INSERT INTO keep VALUES (3, 'c')", ""},
		{"s", "BEGIN", ""},
		{"s", "DROP TABLE keep", ""},
		{"s", "SELECT count(*) FROM keep", "error 42P01"},
		{"other", "SELECT count(*) FROM keep", "3"},
	})
	files := dataFiles(t, dir, "public", "keep")
	if files == 0 {
		t.Fatal("no data files after CHECKPOINT")
	}
	runSteps(t, sessions, []step{
		{"s", "ROLLBACK", ""},
		{"s", "SELECT count(*) FROM keep", "3"},
		{"s", "CHECKPOINT", ""},
		{"other", "SELECT string_agg(v, ',' ORDER BY id) FROM keep", "a,b,c"},
	})
	if n := dataFiles(t, dir, "public", "keep"); n < files {
		t.Fatalf("%d data files after ROLLBACK, had %d", n, files)
	}

	// The block's writes to the table it drops go nowhere; the table stays
	// for the others until COMMIT.
	runSteps(t, sessions, []step{
		{"s", "BEGIN", ""},
		{"s", "INSERT INTO keep VALUES (4, 'd')", ""},
		{"s", "DROP TABLE keep", ""},
		{"other", "SELECT count(*) FROM keep", "3"},
		{"s", "COMMIT", ""},
		{"other", "SELECT count(*) FROM keep", "error 42P01"},
		{"s", "CHECKPOINT", ""},
	})
	if n := dataFiles(t, dir, "public", "keep"); n != 0 {
		t.Fatalf("%d data files left after the DROP committed", n)
	}
}

// DROP then CREATE of one name in a block: the old table is set aside
// with its files, the new one gets a directory of its own, and a rollback
// (to a savepoint, too) brings the old one back with its rows.
func TestDropCreateSameNameInBlock(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s, other := newSession(t, e), newSession(t, e)
	sessions := map[string]*engine.Session{"s": s, "other": other}
	runSteps(t, sessions, []step{
		{"s", "CREATE TABLE t (id int)", ""},
		{"s", "INSERT INTO t VALUES (1), (2)", ""},
		{"s", "CHECKPOINT", ""},
		{"s", "INSERT INTO t VALUES (3)", ""}, // in the write log only
		{"s", "BEGIN", ""},
		{"s", "INSERT INTO t VALUES (4)", ""}, // the block's own, kept by ROLLBACK TO a
		{"s", "SAVEPOINT a", ""},
		{"s", "DROP TABLE t", ""},
		{"s", "CREATE TABLE t (name text)", ""},
		{"s", "INSERT INTO t VALUES ('new')", ""},
		{"s", "CHECKPOINT", ""},
		{"s", "SELECT name FROM t", "new"},
		{"s", "ROLLBACK TO SAVEPOINT a", ""},
		{"s", "SELECT sum(id) FROM t", "10"},
		{"other", "SELECT sum(id) FROM t", "6"},
		{"s", "COMMIT", ""},
		{"other", "SELECT sum(id) FROM t", "10"},
		{"s", "CHECKPOINT", ""},
		{"other", "SELECT sum(id) FROM t", "10"},
		{"s", "BEGIN", ""},
		{"s", "DROP TABLE t", ""},
		{"s", "CREATE TABLE t (name text)", ""},
		{"s", "INSERT INTO t VALUES ('new')", ""},
		{"s", "COMMIT", ""},
		{"s", "CHECKPOINT", ""},
		{"other", "SELECT string_agg(name, ',') FROM t", "new"},
	})
	if n := dataFiles(t, dir, "public", "t"); n != 0 {
		t.Fatalf("%d data files of the dropped table left after COMMIT", n)
	}
	// The new table's files survive the old one's purge, and a restart.
	e.Close()
	e2 := openEngineAt(t, dir)
	if got := mustRun(t, newSession(t, e2), "SELECT string_agg(name, ',') FROM t").rows[0][0]; got != "new" {
		t.Fatalf("after restart: %s, want new", got)
	}
}

// A session that ends inside a block (a lost connection) rolls its DDL
// back: the table it dropped, and the one it replaced, are there with
// their rows; what it created is gone.
func TestLostConnectionRollsBackDDL(t *testing.T) {
	e := openEngine(t)
	s, other := newSession(t, e), newSession(t, e)
	sessions := map[string]*engine.Session{"s": s, "other": other}
	runSteps(t, sessions, []step{
		{"s", "CREATE TABLE a (id int)", ""},
		{"s", "INSERT INTO a VALUES (1), (2)", ""},
		{"s", "CHECKPOINT", ""},
		{"s", "CREATE TABLE b (id int)", ""},
		{"s", "INSERT INTO b VALUES (10)", ""},
		{"s", "CREATE VIEW v AS SELECT id FROM a", ""},
		{"s", "BEGIN", ""},
		{"s", "DROP TABLE a CASCADE", ""},
		{"s", "DROP TABLE b", ""},
		{"s", "CREATE TABLE b (x text)", ""},
		{"s", "CREATE SCHEMA sch", ""},
		{"s", "CREATE TABLE sch.c (id int)", ""},
	})
	s.Close()
	runSteps(t, sessions, []step{
		{"other", "SELECT sum(id) FROM a", "3"},
		{"other", "SELECT sum(id) FROM v", "3"},
		{"other", "SELECT sum(id) FROM b", "10"},
		{"other", "SELECT count(*) FROM sch.c", "error 42P01"},
		{"other", "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'sch'", "0"},
	})
}

// Outside a block DROP TABLE drops at once, files included.
func TestDropTableAutocommit(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	runSteps(t, map[string]*engine.Session{"s": s}, []step{
		{"s", "CREATE TABLE t (id int)", ""},
		{"s", "INSERT INTO t VALUES (1)", ""},
		{"s", "CHECKPOINT", ""},
	})
	if dataFiles(t, dir, "public", "t") == 0 {
		t.Fatal("no data files after CHECKPOINT")
	}
	runSteps(t, map[string]*engine.Session{"s": s}, []step{
		{"s", "DROP TABLE t", ""},
		{"s", "SELECT count(*) FROM t", "error 42P01"},
	})
	if n := dataFiles(t, dir, "public", "t"); n != 0 {
		t.Fatalf("%d data files left after DROP TABLE", n)
	}
}

// DROP SCHEMA in a block drops at COMMIT what the schema held at the
// DROP. A table another session made in it meanwhile is not dropped with
// it: the schema stays and COMMIT fails (PostgreSQL would have made that
// session wait). Creating the schema again in the block is refused.
func TestDropSchemaInBlock(t *testing.T) {
	e := openEngine(t)
	s, other := newSession(t, e), newSession(t, e)
	sessions := map[string]*engine.Session{"s": s, "other": other}
	runSteps(t, sessions, []step{
		{"s", "CREATE SCHEMA sc", ""},
		{"s", "CREATE TABLE sc.t (a int)", ""},
		{"s", "INSERT INTO sc.t VALUES (1)", ""},
		{"s", "BEGIN", ""},
		{"s", "DROP SCHEMA sc CASCADE", ""},
		{"s", "CREATE SCHEMA sc", "error 0A000"},
		{"s", "ROLLBACK", ""},
		{"s", "BEGIN", ""},
		{"s", "DROP SCHEMA sc CASCADE", ""},
		{"s", "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'sc'", "0"},
		{"other", "SELECT count(*) FROM sc.t", "1"},
		{"other", "CREATE TABLE sc.late (a int)", ""},
		{"s", "COMMIT", "error 2BP01"},
		{"other", "SELECT count(*) FROM sc.late", "0"},
		{"other", "SELECT count(*) FROM sc.t", "error 42P01"},
		{"s", "DROP SCHEMA sc CASCADE", ""},
		{"other", "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'sc'", "0"},
	})
}
