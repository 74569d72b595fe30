package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/storage/s3test"
	_ "modernc.org/sqlite"
)

// The outside writer of these tests is iceberg-go's own SQL catalog on
// the engine's metastore file, as Spark or PyIceberg would be through the
// REST catalog: none of Loam's code commits its snapshots.

// outsideEngine opens an engine on a new directory with its warehouse
// where s3test puts tests' warehouses (file:// under the directory, or a
// bucket of the test S3 server under LOAM_TEST_WAREHOUSE=s3), and
// iceberg-go's SQL catalog on the same metastore with the same file IO:
// the outside engine.
func outsideEngine(t *testing.T) (*engine.Engine, *sqlcat.Catalog) {
	t.Helper()
	dir := t.TempDir()
	wh, io := s3test.Warehouse(t, dir)
	e, err := engine.Open(context.Background(), engine.Config{
		MetastoreURL: "sqlite://" + dir + "/meta.db",
		WarehouseURL: wh,
		WarehouseIO:  io,
		DataDir:      dir,
	})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "meta.db")+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	props := iceberg.Properties{"warehouse": wh}
	maps.Copy(props, io)
	cat, err := sqlcat.NewCatalog("loam", db, sqlcat.SQLite, props)
	if err != nil {
		t.Fatalf("iceberg-go NewCatalog: %v", err)
	}
	return e, cat
}

// outsideAppend commits one snapshot appending rows (id, 'v<id>') to
// public.name, through iceberg-go's transaction alone.
func outsideAppend(t *testing.T, cat *sqlcat.Catalog, name string, ids ...int64) {
	t.Helper()
	ctx := context.Background()
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", name})
	if err != nil {
		t.Fatalf("iceberg-go LoadTable: %v", err)
	}
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("v%d", id))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer at.Release()
	txn := tbl.NewTransaction()
	if err := txn.AppendTable(ctx, at, int64(len(ids)), nil); err != nil {
		t.Fatalf("iceberg-go AppendTable: %v", err)
	}
	if _, err := txn.Commit(ctx); err != nil {
		t.Fatalf("iceberg-go Commit: %v", err)
	}
}

// outsideSnapshots is the number of snapshots of public.name as
// iceberg-go loads it.
func outsideSnapshots(t *testing.T, cat *sqlcat.Catalog, name string) int {
	t.Helper()
	tbl, err := cat.LoadTable(context.Background(), table.Identifier{"public", name})
	if err != nil {
		t.Fatalf("iceberg-go LoadTable: %v", err)
	}
	return len(tbl.Metadata().Snapshots())
}

// wantRows fails unless query's result is want, shown as show does.
func wantRows(t *testing.T, s *engine.Session, query, want string) {
	t.Helper()
	if got := show(mustRun(t, s, query).rows); got != want {
		t.Errorf("%s:\n got %s\nwant %s", query, got, want)
	}
}

// TestExternalReadFresh: an outside engine's commits to a table created
// WITH (writer = 'external') are seen by Loam's very next query, by a
// statement prepared before them (its kept plan) too, commit after commit.
func TestExternalReadFresh(t *testing.T) {
	e, cat := outsideEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	mustRun(t, s, `CREATE TABLE ext (id bigint, v text) WITH (writer = 'external')`)
	wantRows(t, s, `SELECT count(*) FROM ext`, show([][]string{{"0"}}))
	stmts, err := s.Prepare(ctx, `SELECT count(*), sum(id), max(v) FROM ext`, nil)
	if err != nil {
		t.Fatal(err)
	}
	prepared := stmts[0]
	for i, want := range [][]string{{"2", "3", "v2"}, {"4", "10", "v4"}, {"5", "15", "v5"}} {
		switch i {
		case 0:
			outsideAppend(t, cat, "ext", 1, 2)
		case 1:
			outsideAppend(t, cat, "ext", 3, 4)
		case 2:
			outsideAppend(t, cat, "ext", 5)
		}
		wantRows(t, s, `SELECT count(*), sum(id), max(v) FROM ext`, show([][]string{want}))
		r, err := execStmt(ctx, s, prepared, nil)
		if err != nil {
			t.Fatalf("prepared statement after append %d: %v", i+1, err)
		}
		if got := show(r.rows); got != show([][]string{want}) {
			t.Errorf("prepared statement after append %d:\n got %s\nwant %s", i+1, got, show([][]string{want}))
		}
	}
	// Another session's first query sees the same.
	wantRows(t, newSession(t, e), `SELECT id, v FROM ext ORDER BY id DESC LIMIT 1`, show([][]string{{"5", "v5"}}))

	// The outside engine evolves the schema: the next SELECT * has the
	// new column, the prepared statement still its own three.
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "ext"})
	if err != nil {
		t.Fatal(err)
	}
	txn := tbl.NewTransaction()
	if err := txn.UpdateSchema(true, false).AddColumn([]string{"w"}, iceberg.PrimitiveTypes.Int32, "", false, nil).Commit(); err != nil {
		t.Fatalf("iceberg-go AddColumn: %v", err)
	}
	if _, err := txn.Commit(ctx); err != nil {
		t.Fatalf("iceberg-go Commit: %v", err)
	}
	wantRows(t, s, `SELECT * FROM ext WHERE id = 5`, show([][]string{{"5", "v5", null}}))
	r, err := execStmt(ctx, s, prepared, nil)
	if err != nil || show(r.rows) != show([][]string{{"5", "15", "v5"}}) {
		t.Errorf("prepared statement after the schema change: %v, %v", r.rows, err)
	}
}

// TestExternalWritesRefused: every Loam write to an external table fails
// with 42809 before touching it, and the session goes on.
func TestExternalWritesRefused(t *testing.T) {
	e, cat := outsideEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ext (id bigint PRIMARY KEY, v text) WITH (writer = 'external')`)
	mustRun(t, s, `CREATE TABLE src (id bigint, v text)`)
	mustRun(t, s, `INSERT INTO src VALUES (9, 'x')`)
	outsideAppend(t, cat, "ext", 1)
	for _, c := range []struct{ query, msg string }{
		{`INSERT INTO ext VALUES (2, 'b')`, `cannot insert into external table "ext"`},
		{`INSERT INTO ext VALUES (1, 'b') ON CONFLICT (id) DO UPDATE SET v = excluded.v`, `cannot insert into external table "ext"`},
		{`INSERT INTO ext SELECT * FROM src`, `cannot insert into external table "ext"`},
		{`UPDATE ext SET v = 'z'`, `cannot update external table "ext"`},
		{`DELETE FROM ext WHERE id = 1`, `cannot delete from external table "ext"`},
		{`MERGE INTO ext USING src ON ext.id = src.id WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.v)`, `cannot merge into external table "ext"`},
		{`TRUNCATE ext`, `cannot truncate external table "ext"`},
		{`COPY ext FROM STDIN`, `cannot copy to external table "ext"`},
		{`ALTER TABLE ext ADD COLUMN w int`, `cannot alter external table "ext"`},
		{`ALTER TABLE ext ALTER COLUMN v SET DEFAULT 'd'`, `cannot alter external table "ext"`},
		{`ALTER TABLE ext RENAME TO ext2`, `cannot alter external table "ext"`},
		{`ALTER TABLE ext SET (snapshot_retention = '1 day')`, `cannot alter external table "ext"`},
	} {
		_, err := runSQL(context.Background(), s, c.query)
		if sqlstate(err) != "42809" || err.Error() != c.msg {
			t.Errorf("%s: got %v (SQLSTATE %s), want 42809 %s", c.query, err, sqlstate(err), c.msg)
		}
		if err != nil && !strings.Contains(pgerrHint(err), "REST catalog") {
			t.Errorf("%s: hint %q does not name the REST catalog", c.query, pgerrHint(err))
		}
		wantRows(t, s, `SELECT id, v FROM ext`, show([][]string{{"1", "v1"}}))
	}
	// In a block the refusal fails the block, which ROLLBACK ends.
	mustRun(t, s, `BEGIN`)
	if _, err := runSQL(context.Background(), s, `INSERT INTO ext VALUES (3, 'c')`); sqlstate(err) != "42809" {
		t.Errorf("INSERT in a block: %v, want 42809", err)
	}
	mustRun(t, s, `ROLLBACK`)
	wantRows(t, s, `SELECT count(*) FROM ext`, show([][]string{{"1"}}))
	// A Loam table beside it is written as ever.
	mustRun(t, s, `INSERT INTO src VALUES (10, 'y')`)
	wantRows(t, s, `SELECT count(*) FROM src`, show([][]string{{"2"}}))
	if n := outsideSnapshots(t, cat, "ext"); n != 1 {
		t.Errorf("ext has %d snapshots after Loam's refused writes, want the outside engine's 1", n)
	}
	mustRun(t, s, `DROP TABLE ext`)
	if _, err := runSQL(context.Background(), s, `SELECT * FROM ext`); sqlstate(err) != "42P01" {
		t.Errorf("SELECT after DROP TABLE: %v, want 42P01", err)
	}
}

// TestExternalOption: writer takes 'loam' or 'external', and refuses the
// options that ask Loam to maintain an external table's data.
func TestExternalOption(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE mine (id bigint) WITH (writer = 'loam')`)
	mustRun(t, s, `INSERT INTO mine VALUES (1)`)
	wantRows(t, s, `SELECT count(*) FROM mine`, show([][]string{{"1"}}))
	for _, c := range []struct{ query, code, msg string }{
		{`CREATE TABLE bad (id bigint) WITH (writer = 'spark')`, "22023", `invalid writer "spark": a table is written by 'loam' (the default) or by 'external' engines through the REST catalog`},
		{`CREATE TABLE bad (ts timestamp) WITH (writer = 'external', retention = '1 day' ON ts)`, "22023", `retention does not apply to a table with writer = 'external': the outside engines that write it maintain it`},
		{`CREATE TABLE bad (id bigint) WITH (writer = 'external', commit_interval = '1 second')`, "22023", `commit_interval does not apply to a table with writer = 'external': the outside engines that write it maintain it`},
		{`CREATE TABLE bad WITH (writer = 'external') AS SELECT 1 AS id`, "22023", `CREATE TABLE … AS cannot make a table with writer = 'external': Loam does not write such a table; create it empty and let the outside engines fill it`},
	} {
		_, err := runSQL(context.Background(), s, c.query)
		if sqlstate(err) != c.code || err.Error() != c.msg {
			t.Errorf("%s: got %v (SQLSTATE %s), want %s %s", c.query, err, sqlstate(err), c.code, c.msg)
		}
	}
	if _, err := runSQL(context.Background(), s, `SELECT * FROM bad`); sqlstate(err) != "42P01" {
		t.Errorf("a refused CREATE left a table: %v", err)
	}
}

// TestExternalCreatedOutside: a table an outside engine created in the
// catalog, which has no Loam settings, is listed and read by Loam, and
// not written.
func TestExternalCreatedOutside(t *testing.T) {
	e, cat := outsideEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.String})
	if _, err := cat.CreateTable(ctx, table.Identifier{"public", "outside"}, sc); err != nil {
		t.Fatalf("iceberg-go CreateTable: %v", err)
	}
	outsideAppend(t, cat, "outside", 7, 8)
	wantRows(t, s, `SELECT id, v FROM outside ORDER BY id`, show([][]string{{"7", "v7"}, {"8", "v8"}}))
	wantRows(t, s, `SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
		show([][]string{{"outside", "BASE TABLE"}}))
	wantRows(t, s, `SELECT relname, relkind FROM pg_class WHERE relname = 'outside'`, show([][]string{{"outside", "r"}}))
	outsideAppend(t, cat, "outside", 9)
	wantRows(t, s, `SELECT count(*) FROM outside`, show([][]string{{"3"}}))
	if _, err := runSQL(ctx, s, `INSERT INTO outside VALUES (1, 'a')`); sqlstate(err) != "42809" {
		t.Errorf("INSERT into a table created outside: %v, want 42809", err)
	}
	if n := outsideSnapshots(t, cat, "outside"); n != 2 {
		t.Errorf("outside has %d snapshots, want the outside engine's 2", n)
	}
	mustRun(t, s, `DROP TABLE outside`)
	if _, err := cat.LoadTable(ctx, table.Identifier{"public", "outside"}); err == nil {
		t.Errorf("the catalog still has the table after Loam's DROP TABLE")
	}
}

// TestExternalUpkeepSkips: CHECKPOINT, VACUUM (of the table, and of
// everything) and the background upkeep leave an external table alone,
// however many small files the outside engine left.
func TestExternalUpkeepSkips(t *testing.T) {
	e, cat := outsideEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	mustRun(t, s, `CREATE TABLE ext (id bigint, v text) WITH (writer = 'external')`)
	mustRun(t, s, `CREATE TABLE mine (id bigint)`)
	for i := range int64(4) {
		outsideAppend(t, cat, "ext", i)
	}
	// A Loam table with as many small files, which the same VACUUM does
	// compact: the skip below is the external table's, not VACUUM's.
	for i := range 4 {
		mustRun(t, s, fmt.Sprintf(`INSERT INTO mine VALUES (%d); CHECKPOINT`, i))
	}
	mineBefore := outsideSnapshots(t, cat, "mine")
	wantRows(t, s, `SELECT count(*) FROM ext`, show([][]string{{"4"}}))
	before := outsideSnapshots(t, cat, "ext")
	mustRun(t, s, `CHECKPOINT`)
	s.TakeNotices()
	mustRun(t, s, `VACUUM ext`)
	warned := false
	for _, n := range s.TakeNotices() {
		warned = warned || strings.Contains(n.Message, `skipping "ext" --- cannot vacuum external tables`)
	}
	if !warned {
		t.Errorf("VACUUM ext gave no skipping warning")
	}
	mustRun(t, s, `VACUUM`)
	mustRun(t, s, `ANALYZE ext`)
	if n := outsideSnapshots(t, cat, "ext"); n != before {
		t.Errorf("ext has %d snapshots after CHECKPOINT, VACUUM and ANALYZE, want %d", n, before)
	}
	if n := outsideSnapshots(t, cat, "mine"); n == mineBefore {
		t.Errorf("VACUUM did not compact the Loam table mine either (%d snapshots)", n)
	}
	// What the background upkeep asks before it looks after a table.
	m := engine.Link(e)
	if m.Writes("public", "ext") {
		t.Errorf("the link says it writes ext")
	}
	if ok, err := m.MayKeepIdle(ctx, "public", "ext"); ok || err != nil {
		t.Errorf("MayKeepIdle(ext) = %v, %v; want false", ok, err)
	}
	if ok, err := m.MayKeepIdle(ctx, "public", "mine"); !ok || err != nil {
		t.Errorf("MayKeepIdle(mine) = %v, %v; want true", ok, err)
	}
	wantRows(t, s, `SELECT count(*), sum(id) FROM ext`, show([][]string{{"4", "6"}}))
}

// pgerrHint is the HINT of err.
func pgerrHint(err error) string { return pgerr.From(err).Hint }

// TestLoamTypesProperty: the property that marks a table as Loam's in
// meta.ExternalWriter is the one every CREATE TABLE writes.
func TestLoamTypesProperty(t *testing.T) {
	if meta.LoamTypesProperty != ice.TypesProperty {
		t.Errorf("meta.LoamTypesProperty = %q, ice.TypesProperty = %q", meta.LoamTypesProperty, ice.TypesProperty)
	}
}

// TestExternalUnreadableType: a table an outside engine created with a
// type Loam cannot read yet fails with 0A000 naming it, and leaves the
// listing of the others whole.
func TestExternalUnreadableType(t *testing.T) {
	e, cat := outsideEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "st", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{{ID: 3, Name: "a", Type: iceberg.PrimitiveTypes.Int32}}}})
	if _, err := cat.CreateTable(ctx, table.Identifier{"public", "odd"}, sc); err != nil {
		t.Fatalf("iceberg-go CreateTable: %v", err)
	}
	mustRun(t, s, `CREATE TABLE fine (id int)`)
	_, err := runSQL(ctx, s, `SELECT id FROM odd`)
	if want := `table public.odd: column "st" has Iceberg type struct<3: a: optional int>, which Loam cannot read yet`; sqlstate(err) != "0A000" || err.Error() != want {
		t.Errorf("SELECT id FROM odd: %v (SQLSTATE %s), want 0A000 %s", err, sqlstate(err), want)
	}
	wantRows(t, s, `SELECT table_name FROM information_schema.tables WHERE table_name = 'fine'`, show([][]string{{"fine"}}))
}
