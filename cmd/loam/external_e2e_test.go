package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5/pgconn"
	_ "modernc.org/sqlite"
)

// TestExternalTableOverTheWire: a table created WITH (writer = 'external')
// takes appends from iceberg-go's own SQL catalog on the server's
// metastore (the outside engine), and a pgx client sees each at its next
// query, through pgx's prepared statements too; its INSERT fails with
// 42809 and a hint, and the connection goes on.
func TestExternalTableOverTheWire(t *testing.T) {
	dir := t.TempDir()
	url := startServerWith(t, dir)
	c := connect(t, url)
	ctx := context.Background()
	if _, err := c.Exec(ctx, `CREATE TABLE ext (id bigint, v text) WITH (writer = 'external')`); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "meta.db")+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cat, err := sqlcat.NewCatalog("loam", db, sqlcat.SQLite, iceberg.Properties{"warehouse": "file://" + filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatalf("iceberg-go NewCatalog: %v", err)
	}
	appendRows := func(ids ...int64) {
		t.Helper()
		tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "ext"})
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
	count := func() (n, sum int64) {
		t.Helper()
		// pgx prepares and caches the statement: the second call runs the
		// kept plan.
		if err := c.QueryRow(ctx, `SELECT count(*), coalesce(sum(id), 0) FROM ext WHERE id > $1`, -1).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		return n, sum
	}
	if n, _ := count(); n != 0 {
		t.Fatalf("a new external table has %d rows", n)
	}
	appendRows(1, 2)
	if n, sum := count(); n != 2 || sum != 3 {
		t.Errorf("after the first append: %d rows, sum %d; want 2, 3", n, sum)
	}
	appendRows(3)
	if n, sum := count(); n != 3 || sum != 6 {
		t.Errorf("after the second append: %d rows, sum %d; want 3, 6", n, sum)
	}
	_, err = c.Exec(ctx, `INSERT INTO ext VALUES (4, 'v4')`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42809" || pe.Message != `cannot insert into external table "ext"` || pe.Hint == "" {
		t.Errorf("INSERT INTO ext: %v, want 42809 cannot insert into external table \"ext\" with a hint", err)
	}
	if n, sum := count(); n != 3 || sum != 6 {
		t.Errorf("after the refused INSERT: %d rows, sum %d; want 3, 6", n, sum)
	}
}
