package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/catalog"
	restcat "github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/storage/s3test"
)

// freeAddr is a loopback address nothing listens on (for --http, whose
// port the server does not report back).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// scanRows reads a table through iceberg-go as "id|msg" lines, sorted.
func scanRows(ctx context.Context, t *testing.T, tbl *table.Table) []string {
	t.Helper()
	at, err := tbl.Scan(table.WithSelectedFields("id", "msg")).ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("scan through the REST catalog: %v", err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	var out []string
	for tr.Next() {
		rec := tr.RecordBatch()
		ids, msgs := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, fmt.Sprintf("%d|%s", ids.Value(i), msgs.Value(i)))
		}
	}
	slices.Sort(out)
	return out
}

func queryRows(ctx context.Context, t *testing.T, c *pgx.Conn, q string) []string {
	t.Helper()
	rows, err := c.Query(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for rows.Next() {
		var id int64
		var msg string
		if err := rows.Scan(&id, &msg); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d|%s", id, msg))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	slices.Sort(out)
	return out
}

func appendThroughClient(ctx context.Context, t *testing.T, tbl *table.Table, ids []int64, msgs []string) (*table.Table, error) {
	t.Helper()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, f := range sc.Fields() {
		switch f.Name {
		case "id":
			b.Field(i).(*array.Int64Builder).AppendValues(ids, nil)
		case "msg":
			b.Field(i).(*array.StringBuilder).AppendValues(msgs, nil)
		default:
			t.Fatalf("unexpected column %q", f.Name)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rdr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	tx := tbl.NewTransaction()
	if err := tx.Append(ctx, rdr, nil); err != nil {
		t.Fatalf("append: %v", err)
	}
	return tx.Commit(ctx)
}

// TestRESTCatalogEndToEnd: iceberg-go's REST catalog client, against the
// real server's --http port, lists, loads and scans a table Loam wrote
// (the same rows as Loam's SELECT), is refused a commit to it, and
// creates and fills a table of its own.
func TestRESTCatalogEndToEnd(t *testing.T) {
	ctx := context.Background()
	httpAddr := freeAddr(t)
	// On the test S3 server under LOAM_TEST_WAREHOUSE=s3: the client then
	// reaches the bucket through the load-table config alone.
	c := connect(t, startServerWith(t, t.TempDir(), append([]string{"--http", httpAddr}, s3test.ServeArgs(t)...)...))
	for _, q := range []string{
		`CREATE TABLE notes (id BIGINT, msg TEXT)`,
		`INSERT INTO notes VALUES (1, 'one'), (2, 'two'), (3, 'three')`,
		`CHECKPOINT`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	cat, err := restcat.NewCatalog(ctx, "loam", "http://"+httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	nss, err := cat.ListNamespaces(ctx, nil)
	if err != nil || !slices.ContainsFunc(nss, func(id table.Identifier) bool { return slices.Equal(id, table.Identifier{"public"}) }) {
		t.Fatalf("ListNamespaces = %v, %v; want public among them", nss, err)
	}
	var names []string
	for id, err := range cat.ListTables(ctx, table.Identifier{"public"}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.Join(id, "."))
	}
	if !slices.Contains(names, "public.notes") {
		t.Fatalf("ListTables(public) = %v, want public.notes", names)
	}
	notes, err := cat.LoadTable(ctx, table.Identifier{"public", "notes"})
	if err != nil {
		t.Fatal(err)
	}
	want := queryRows(ctx, t, c, `SELECT id, msg FROM notes`)
	if got := scanRows(ctx, t, notes); !slices.Equal(got, want) || len(got) != 3 {
		t.Errorf("scan through the REST catalog = %v, Loam's SELECT = %v", got, want)
	}

	// Loam's SQL views are Iceberg views with PostgreSQL's text.
	if _, err := c.Exec(ctx, `CREATE VIEW big_notes AS SELECT id, msg FROM notes WHERE id > 1`); err != nil {
		t.Fatal(err)
	}
	v, err := cat.LoadView(ctx, table.Identifier{"public", "big_notes"})
	if err != nil {
		t.Fatalf("LoadView: %v", err)
	}
	if reps := v.CurrentVersion().Representations; len(reps) == 0 || reps[0].Dialect != "postgresql" ||
		!strings.Contains(strings.ToLower(reps[0].Sql), "from") {
		t.Errorf("Loam's view through the catalog: %+v", reps)
	}

	// One writer per table: Loam writes notes.
	_, err = appendThroughClient(ctx, t, notes, []int64{4}, []string{"four"})
	if !errors.Is(err, restcat.ErrCommitFailed) || !strings.Contains(err.Error(), "written by Loam") {
		t.Fatalf("commit to a Loam table: %v; want 409 CommitFailedException saying Loam writes it", err)
	}
	if got := queryRows(ctx, t, c, `SELECT id, msg FROM notes`); !slices.Equal(got, want) {
		t.Errorf("after a refused commit Loam reads %v, want %v", got, want)
	}

	// A table of the outside engine's own.
	ext, err := cat.CreateTable(ctx, table.Identifier{"public", "ext"}, notes.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if ext, err = appendThroughClient(ctx, t, ext, []int64{10, 20}, []string{"ten", "twenty"}); err != nil {
		t.Fatalf("commit to an external table: %v", err)
	}
	reloaded, err := cat.LoadTable(ctx, table.Identifier{"public", "ext"})
	if err != nil {
		t.Fatal(err)
	}
	if got := scanRows(ctx, t, reloaded); !slices.Equal(got, []string{"10|ten", "20|twenty"}) {
		t.Errorf("external table through the catalog = %v", got)
	}
	// Loam reads the external table afresh: its next query sees the rows.
	if got := queryRows(ctx, t, c, `SELECT id, msg FROM ext`); !slices.Equal(got, []string{"10|ten", "20|twenty"}) {
		t.Errorf("Loam's SELECT of the external table = %v", got)
	}
	if _, err = appendThroughClient(ctx, t, reloaded, []int64{30}, []string{"thirty"}); err != nil {
		t.Fatalf("second commit to the external table: %v", err)
	}
	if got := queryRows(ctx, t, c, `SELECT id, msg FROM ext`); !slices.Equal(got, []string{"10|ten", "20|twenty", "30|thirty"}) {
		t.Errorf("Loam's SELECT after another outside commit = %v", got)
	}
	if _, err := cat.LoadTable(ctx, table.Identifier{"public", "nope"}); !errors.Is(err, catalog.ErrNoSuchTable) {
		t.Errorf("loading a missing table: %v", err)
	}

	// Renamed and dropped through the catalog: Loam's next queries follow.
	if _, err := cat.RenameTable(ctx, table.Identifier{"public", "ext"}, table.Identifier{"public", "ext2"}); err != nil {
		t.Fatal(err)
	}
	if got := queryRows(ctx, t, c, `SELECT id, msg FROM ext2`); len(got) != 3 {
		t.Errorf("Loam's SELECT of the renamed table = %v", got)
	}
	if err := cat.DropTable(ctx, table.Identifier{"public", "ext2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, `SELECT * FROM ext2`); sqlState(err) != "42P01" {
		t.Errorf("Loam's SELECT of a table dropped through the catalog: %v, want 42P01", err)
	}
}

// TestRESTCatalogPassword: a server with --password wants the OAuth2
// token on its REST catalog too.
func TestRESTCatalogPassword(t *testing.T) {
	ctx := context.Background()
	httpAddr := freeAddr(t)
	startServerWith(t, t.TempDir(), "--http", httpAddr, "--password", "s3cret")
	if _, err := restcat.NewCatalog(ctx, "loam", "http://"+httpAddr); !errors.Is(err, restcat.ErrUnauthorized) {
		t.Fatalf("client without credentials: %v, want 401", err)
	}
	cat, err := restcat.NewCatalog(ctx, "loam", "http://"+httpAddr, restcat.WithCredential("loam:s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if ok, err := cat.CheckNamespaceExists(ctx, table.Identifier{"public"}); !ok || err != nil {
		t.Errorf("public exists = %v, %v", ok, err)
	}
}
