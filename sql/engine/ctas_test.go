package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/s3test"
)

// TestCreateTableAsTags checks the command tags of CREATE TABLE … AS and
// SELECT … INTO, which are PostgreSQL 15's.
func TestCreateTableAsTags(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE src (a int, b text); INSERT INTO src VALUES (1, 'x'), (2, 'y'), (3, 'z')`)
	for _, tc := range []struct{ sql, tag string }{
		{`CREATE TABLE t1 AS SELECT * FROM src`, "SELECT 3"},
		{`CREATE TABLE t2 AS SELECT * FROM src WHERE a > 5`, "SELECT 0"},
		{`CREATE TABLE t3 AS SELECT * FROM src WITH NO DATA`, "CREATE TABLE AS"},
		{`CREATE TABLE IF NOT EXISTS t1 AS SELECT 1`, "CREATE TABLE AS"},
		{`SELECT a INTO t4 FROM src WHERE a < 3`, "SELECT 2"},
		{`CREATE TABLE t5 AS VALUES (1), (2)`, "SELECT 2"},
	} {
		if r := mustRun(t, s, tc.sql); r.tag != tc.tag || len(r.cols) != 0 {
			t.Errorf("%s: tag %q, %d columns; want %q and none", tc.sql, r.tag, len(r.cols), tc.tag)
		}
	}
}

// TestCreateTableAsLoamClauses checks that the Loam table clauses go
// between the name (or column names) and AS, and take effect.
func TestCreateTableAsLoamClauses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ev (at timestamp, id int); INSERT INTO ev VALUES ('2024-01-01 10:00', 1), ('2024-01-01 11:00', 2), ('2024-01-03 10:00', 3)`)
	mustRun(t, s, `CREATE TABLE byday PARTITIONED BY (day(at)) SORTED BY (id DESC) AS SELECT at, id FROM ev`)
	mustRun(t, s, `CREATE TABLE named (ts, n) PARTITIONED BY (day(ts)) WITH (retention = '30 days' ON ts) AS SELECT at, id FROM ev WITH NO DATA`)
	mustRun(t, s, `CHECKPOINT`)
	wh, whIO := s3test.Warehouse(t, dir)
	ms, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	for name, want := range map[string]meta.TableSettings{
		"byday": {PartitionBy: []string{"day(at)"}, SortedBy: []string{"id DESC"}},
		"named": {PartitionBy: []string{"day(ts)"}, Retention: "30 days", RetentionColumn: "ts"},
	} {
		got, err := ms.TableSettings(ctx, "public", name)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: settings %+v, want %+v", name, got, want)
		}
	}
	if r := mustRun(t, s, `SELECT sum(id) FROM byday`); r.rows[0][0] != "6" {
		t.Errorf("byday rows: %s", show(r.rows))
	}
	// The clauses name the table's columns, not the query's.
	if _, err := runSQL(context.Background(), s, `CREATE TABLE bad (x) PARTITIONED BY (at) AS SELECT at FROM ev`); sqlstate(err) != "42703" {
		t.Errorf("partition by a renamed column: %v, want 42703", err)
	}
	if _, err := runSQL(context.Background(), s, `SELECT * FROM bad`); sqlstate(err) != "42P01" {
		t.Errorf("failed CREATE TABLE AS left a table: %v", err)
	}
}
