package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// col0 runs query and joins its rows' first column with commas.
func col0(t *testing.T, s *engine.Session, query string) string {
	t.Helper()
	r := mustRun(t, s, query)
	var out []string
	for _, row := range r.rows {
		v := row[0]
		if v == null {
			v = "NULL"
		}
		out = append(out, v)
	}
	return strings.Join(out, ",")
}

// snapshotOf is the table's current snapshot, loaded as an outside reader
// would.
func snapshotOf(t *testing.T, e *engine.Engine, name string) *table.Snapshot {
	t.Helper()
	tbl, err := e.Store().Load(context.Background(), "public", name)
	if err != nil {
		t.Fatal(err)
	}
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		t.Fatalf("%s has no snapshot", name)
	}
	return snap
}

// wantError runs query and checks it fails with code; the session must
// stay usable afterwards.
func wantError(t *testing.T, s *engine.Session, query, code string) {
	t.Helper()
	_, err := runSQL(context.Background(), s, query)
	if sqlstate(err) != code {
		t.Errorf("%s: err %v (SQLSTATE %s), want %s", query, err, sqlstate(err), code)
	}
	if got := col0(t, s, "SELECT 1"); got != "1" {
		t.Errorf("after %s: SELECT 1 = %q", query, got)
	}
}

func TestTimeTravel(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE tt (id int, v text)")
	mustRun(t, s, "INSERT INTO tt VALUES (1, 'a'), (2, 'b')")
	mustRun(t, s, "CHECKPOINT")
	s1 := snapshotOf(t, e, "tt")
	// Snapshot timestamps are milliseconds: the next one must be later.
	time.Sleep(5 * time.Millisecond)
	mustRun(t, s, "INSERT INTO tt VALUES (3, 'c')")
	mustRun(t, s, "CHECKPOINT")
	s2 := snapshotOf(t, e, "tt")
	if s2.TimestampMs <= s1.TimestampMs {
		t.Fatalf("snapshot timestamps %d, %d do not increase", s1.TimestampMs, s2.TimestampMs)
	}
	mustRun(t, s, "INSERT INTO tt VALUES (4, 'd')") // in the write log only
	at1 := time.UnixMilli(s1.TimestampMs).UTC().Format("2006-01-02 15:04:05.000") + "+00"

	tests := []struct{ query, want string }{
		{"SELECT id FROM tt ORDER BY id", "1,2,3,4"},
		{fmt.Sprintf("SELECT id FROM tt FOR VERSION AS OF %d ORDER BY id", s1.SnapshotID), "1,2"},
		{fmt.Sprintf("SELECT id FROM tt FOR VERSION AS OF %d ORDER BY id", s2.SnapshotID), "1,2,3"},
		{fmt.Sprintf("SELECT x.id FROM public.tt FOR VERSION AS OF %d AS x WHERE x.v <> 'b' ORDER BY 1", s1.SnapshotID), "1"},
		{fmt.Sprintf("SELECT id FROM tt FOR TIMESTAMP AS OF '%s' ORDER BY id", at1), "1,2"},
		{fmt.Sprintf("SELECT id FROM tt FOR TIMESTAMP AS OF TIMESTAMPTZ '%s' + interval '0 seconds' t0 ORDER BY id", at1), "1,2"},
		// Rows not yet linked are in no snapshot.
		{"SELECT id FROM tt FOR TIMESTAMP AS OF now() ORDER BY id", "1,2,3"},
		// Two versions of one table, each its own.
		{fmt.Sprintf("SELECT b.id || ':' || coalesce(a.v, '-') FROM tt FOR VERSION AS OF %d a RIGHT JOIN tt FOR VERSION AS OF %d b ON a.id = b.id ORDER BY b.id",
			s1.SnapshotID, s2.SnapshotID), "1:a,2:b,3:-"},
		{fmt.Sprintf("WITH old AS (SELECT * FROM tt FOR VERSION AS OF %d) SELECT count(*) FROM old", s1.SnapshotID), "2"},
		{fmt.Sprintf("SELECT (SELECT count(*) FROM tt FOR VERSION AS OF %d) + count(*) FROM (SELECT id FROM tt FOR VERSION AS OF %d) q", s1.SnapshotID, s2.SnapshotID), "5"},
		{fmt.Sprintf("SELECT id FROM tt WHERE id NOT IN (SELECT id FROM tt FOR VERSION AS OF %d) ORDER BY id", s1.SnapshotID), "3,4"},
	}
	for _, tc := range tests {
		if got := col0(t, s, tc.query); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.query, got, tc.want)
		}
	}

	// A parameter as the time, given at Bind.
	ctx := context.Background()
	sts, err := s.Prepare(ctx, "SELECT count(*) FROM tt FOR TIMESTAMP AS OF $1", nil)
	if err != nil {
		t.Fatalf("prepare with a parameter: %v", err)
	}
	for _, p := range []struct {
		ms   int64
		want string
	}{{s1.TimestampMs, "2"}, {s2.TimestampMs, "3"}} {
		r, err := execStmt(ctx, s, sts[0], []types.Datum{{T: types.TTimestampTZ, I: p.ms * 1000}})
		if err != nil || len(r.rows) != 1 || r.rows[0][0] != p.want {
			t.Errorf("AS OF $1 = %d ms: %v, %v; want %s", p.ms, r.rows, err, p.want)
		}
	}
	if _, err := execStmt(ctx, s, sts[0], []types.Datum{{T: types.TTimestampTZ, Null: true}}); sqlstate(err) != "22023" {
		t.Errorf("AS OF $1 = NULL: %v, want 22023", err)
	}

	// A view keeps its clause.
	mustRun(t, s, fmt.Sprintf("CREATE VIEW old_tt AS SELECT id FROM tt FOR VERSION AS OF %d", s1.SnapshotID))
	if got := col0(t, s, "SELECT id FROM old_tt ORDER BY id"); got != "1,2" {
		t.Errorf("view over a snapshot: %q", got)
	}

	for _, tc := range []struct{ query, code string }{
		{"SELECT * FROM tt FOR VERSION AS OF 12345", "22023"},
		{"SELECT * FROM tt FOR TIMESTAMP AS OF '2000-01-01 00:00:00+00'", "22023"},
		{"SELECT * FROM tt FOR TIMESTAMP AS OF NULL::timestamptz", "22023"},
		{"SELECT * FROM tt FOR TIMESTAMP AS OF now() + interval '1 day'", "22023"},
		{"SELECT * FROM tt FOR TIMESTAMP AS OF 'not a time'", "22007"},
		{"SELECT * FROM tt FOR VERSION AS OF 'nope'", "42704"},
		{"SELECT * FROM tt FOR VERSION AS OF", "42601"},
		{"SELECT * FROM old_tt FOR VERSION AS OF 1", "0A000"},
		{"WITH c AS (SELECT 1) SELECT * FROM c FOR VERSION AS OF 1", "0A000"},
		{"SELECT * FROM nosuch FOR VERSION AS OF 1", "42P01"},
		// PostgreSQL's locking clause is not time travel (nor supported).
		{"SELECT id FROM tt FOR UPDATE", "0A000"},
	} {
		wantError(t, s, tc.query, tc.code)
	}
}

func TestBranchesAndTags(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE bt (id int, v text)")
	mustRun(t, s, "INSERT INTO bt VALUES (1, 'a'), (2, 'b')")
	mustRun(t, s, "CHECKPOINT")
	s1 := snapshotOf(t, e, "bt")
	mustRun(t, s, "INSERT INTO bt VALUES (3, 'c')")
	mustRun(t, s, "CHECKPOINT")
	s2 := snapshotOf(t, e, "bt")
	mustRun(t, s, "INSERT INTO bt VALUES (4, 'd')") // in the write log only

	mustRun(t, s, fmt.Sprintf("ALTER TABLE bt CREATE BRANCH b AS OF VERSION %d RETAIN 7 DAYS", s1.SnapshotID))
	mustRun(t, s, fmt.Sprintf("ALTER TABLE bt CREATE TAG v1 AS OF VERSION %d", s2.SnapshotID))
	// Without AS OF VERSION: the current snapshot, after the tail is
	// committed, so the branch has every acknowledged row.
	mustRun(t, s, "ALTER TABLE bt CREATE BRANCH cur")
	main := snapshotOf(t, e, "bt")

	mustRun(t, s, `INSERT INTO "bt@b" VALUES (10, 'x')`)
	mustRun(t, s, `INSERT INTO "bt@b" SELECT id + 100, v FROM bt FOR VERSION AS OF 'v1' WHERE id = 3`)
	if tag, err := copyIn(t, s, `COPY "bt@b" (id) FROM STDIN`, strings.NewReader("11\n")); err != nil || tag != "COPY 1" {
		t.Fatalf("COPY into branch b: %q, %v", tag, err)
	}

	tests := []struct{ query, want string }{
		{`SELECT id FROM "bt@b" ORDER BY id`, "1,2,10,11,103"},
		{`SELECT id FROM bt FOR VERSION AS OF 'b' ORDER BY id`, "1,2,10,11,103"},
		{`SELECT id FROM "bt@v1" ORDER BY id`, "1,2,3"},
		{`SELECT id FROM "bt@cur" ORDER BY id`, "1,2,3,4"},
		{`SELECT id FROM bt FOR VERSION AS OF 'main' ORDER BY id`, "1,2,3,4"},
		{`SELECT id FROM bt ORDER BY id`, "1,2,3,4"}, // main unaffected
		{`SELECT name || ' ' || type || ' ' || coalesce(max_reference_age_in_ms::text, '-') FROM "bt$refs" ORDER BY name`,
			"b BRANCH 604800000,cur BRANCH -,main BRANCH -,v1 TAG -"},
		// The snapshot a time-travel query reads, from the metadata table.
		{fmt.Sprintf(`SELECT count(*) FROM "bt$snapshots" WHERE snapshot_id = %d`, s1.SnapshotID), "1"},
	}
	for _, tc := range tests {
		if got := col0(t, s, tc.query); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.query, got, tc.want)
		}
	}
	// The branch writes left main's snapshot, which holds the log
	// position, as it was.
	if now := snapshotOf(t, e, "bt"); now.SnapshotID != main.SnapshotID {
		t.Errorf("main moved from snapshot %d to %d", main.SnapshotID, now.SnapshotID)
	}
	tbl, err := e.Store().Load(ctx, "public", "bt")
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range tbl.Metadata().Refs() {
		if name == "b" && (r.MaxRefAgeMs == nil || *r.MaxRefAgeMs != (7*24*time.Hour).Milliseconds()) {
			t.Errorf("branch b retention %v, want 7 days", r.MaxRefAgeMs)
		}
	}

	for _, tc := range []struct{ query, code string }{
		{`INSERT INTO "bt@v1" VALUES (5, 'e')`, "42809"},
		{`INSERT INTO "bt@nope" VALUES (5, 'e')`, "42704"},
		{"ALTER TABLE bt CREATE BRANCH b", "42710"},
		{"ALTER TABLE bt CREATE TAG cur", "42710"},
		{"ALTER TABLE bt CREATE BRANCH x AS OF VERSION 12345", "22023"},
		{"ALTER TABLE bt DROP TAG b", "42809"},
		{"ALTER TABLE bt DROP BRANCH main", "0A000"},
		{"ALTER TABLE bt DROP BRANCH nope", "42704"},
		{"ALTER TABLE nosuch CREATE BRANCH x", "42P01"},
		{"ALTER TABLE bt CREATE BRANCH", "42601"},
		{`SELECT * FROM "bt@b" FOR VERSION AS OF 1`, "0A000"},
	} {
		wantError(t, s, tc.query, tc.code)
	}
	mustRun(t, s, "ALTER TABLE bt DROP BRANCH IF EXISTS nope")
	mustRun(t, s, "ALTER TABLE bt CREATE BRANCH IF NOT EXISTS b")
	mustRun(t, s, "ALTER TABLE IF EXISTS nosuch DROP TAG x")
	if got := col0(t, s, `SELECT count(*) FROM "bt@b"`); got != "5" {
		t.Errorf("IF NOT EXISTS changed branch b: %s rows", got)
	}

	// DROP removes the reference.
	mustRun(t, s, "ALTER TABLE bt DROP BRANCH cur")
	wantError(t, s, `SELECT * FROM "bt@cur"`, "42704")
	wantError(t, s, `SELECT * FROM bt FOR VERSION AS OF 'cur'`, "42704")

	// ROLLBACK undoes CREATE, DROP and writes to a branch.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "ALTER TABLE bt CREATE BRANCH rb")
	if got := col0(t, s, `SELECT count(*) FROM "bt@rb"`); got != "4" {
		t.Errorf("branch rb in its block: %s rows", got)
	}
	mustRun(t, s, "ALTER TABLE bt DROP TAG v1")
	mustRun(t, s, `INSERT INTO "bt@b" VALUES (12, 'z')`)
	if got := col0(t, s, `SELECT count(*) FROM "bt@b"`); got != "6" {
		t.Errorf("branch b after a write in the block: %s rows", got)
	}
	mustRun(t, s, "ROLLBACK")
	wantError(t, s, `SELECT * FROM "bt@rb"`, "42704")
	if got := col0(t, s, `SELECT id FROM "bt@v1" ORDER BY id`); got != "1,2,3" {
		t.Errorf("tag v1 after the rollback of its drop: %q", got)
	}
	if got := col0(t, s, `SELECT id FROM "bt@b" ORDER BY id`); got != "1,2,10,11,103" {
		t.Errorf("branch b after the rollback of a write: %q", got)
	}
	// Main's link commits go on beside the branch; "bt@main" is main,
	// written through the write log like bt.
	mustRun(t, s, `INSERT INTO "bt@main" VALUES (5, 'e')`)
	mustRun(t, s, "CHECKPOINT")
	if got := col0(t, s, `SELECT id FROM bt ORDER BY id`); got != "1,2,3,4,5" {
		t.Errorf("main after a branch write and a checkpoint: %q", got)
	}
	// The rows of the query's own implicit transaction go into the tag.
	mustRun(t, s, "INSERT INTO bt VALUES (6, 'f'); ALTER TABLE bt CREATE TAG t6")
	if got := col0(t, s, `SELECT max(id) FROM "bt@t6"`); got != "6" {
		t.Errorf("tag made after an insert in the same query: max id %s", got)
	}
	e.Close()

	// After a restart, the branch is as it was.
	e = openEngineAt(t, dir)
	s = newSession(t, e)
	if got := col0(t, s, `SELECT id FROM "bt@b" ORDER BY id`); got != "1,2,10,11,103" {
		t.Errorf("branch b after a restart: %q", got)
	}
	e.Close()

	// An outside reader sees the branch through iceberg-go's own catalog
	// and scan, and main without the branch's rows.
	cat := openIcebergCatalog(t, dir)
	out, err := cat.LoadTable(ctx, table.Identifier{"public", "bt"})
	if err != nil {
		t.Fatal(err)
	}
	read := func(ref string) string {
		sc, err := out.Scan().UseRef(ref)
		if err != nil {
			t.Fatalf("UseRef(%s): %v", ref, err)
		}
		at, err := sc.ToArrowTable(ctx)
		if err != nil {
			t.Fatalf("scan %s: %v", ref, err)
		}
		defer at.Release()
		var ids []int
		tr := array.NewTableReader(at, 0)
		defer tr.Release()
		for tr.Next() {
			rec := tr.RecordBatch()
			col := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int32)
			for i := 0; i < col.Len(); i++ {
				ids = append(ids, int(col.Value(i)))
			}
		}
		sort.Ints(ids)
		return fmt.Sprint(ids)
	}
	if got := read("b"); got != "[1 2 10 11 103]" {
		t.Errorf("iceberg-go reads branch b as %s", got)
	}
	if got := read("v1"); got != "[1 2 3]" {
		t.Errorf("iceberg-go reads tag v1 as %s", got)
	}
	if got := read(table.MainBranch); got != "[1 2 3 4 5 6]" {
		t.Errorf("iceberg-go reads main as %s", got)
	}
}
