package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "modernc.org/sqlite"
)

// outsideReader reads kv as another engine would: iceberg-go's SQL
// catalog over Loam's SQLite metastore, and iceberg-go's own scan of the
// current snapshot (its planning, its Parquet reader, its application of
// position deletes and deletion vectors). No Loam code is involved, so
// what it returns is what DuckDB, Spark or PyIceberg would see.
type outsideReader struct {
	db  *sql.DB
	cat *sqlcat.Catalog
}

func openOutside(dataDir string) (*outsideReader, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "meta.db"))
	if err != nil {
		return nil, err
	}
	cat, err := sqlcat.NewCatalog("loam", db, sqlcat.SQLite, iceberg.Properties{"warehouse": "file://" + filepath.Join(dataDir, "warehouse")})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &outsideReader{db: db, cat: cat}, nil
}

func (o *outsideReader) Close() error { return o.db.Close() }

// values loads kv afresh from the catalog (a reader polling for new
// snapshots does just that) and returns v of every row with the given id:
// one value when the table is right, none before the row's first commit,
// two if a replaced row were still visible beside its replacement.
func (o *outsideReader) values(ctx context.Context, id int64) ([]int64, error) {
	tbl, err := o.cat.LoadTable(ctx, table.Identifier{"public", "kv"})
	if err != nil {
		return nil, fmt.Errorf("load kv: %w", err)
	}
	scan := tbl.Scan(
		table.WithRowFilter(iceberg.EqualTo(iceberg.Reference("id"), id)),
		table.WithSelectedFields("id", "v"),
	)
	defer scan.Close()
	sc, recs, err := scan.ToArrowRecords(ctx)
	if err != nil {
		return nil, fmt.Errorf("scan kv: %w", err)
	}
	idCol, vCol := sc.FieldIndices("id"), sc.FieldIndices("v")
	if len(idCol) != 1 || len(vCol) != 1 {
		return nil, fmt.Errorf("scan kv: schema %v has no single id and v", sc)
	}
	var out []int64
	for rec, err := range recs {
		if err != nil {
			return nil, fmt.Errorf("scan kv: %w", err)
		}
		ids, ok1 := rec.Column(idCol[0]).(*array.Int64)
		vs, ok2 := rec.Column(vCol[0]).(*array.Int64)
		if !ok1 || !ok2 {
			rec.Release()
			return nil, fmt.Errorf("scan kv: id and v are %s and %s, want int64", rec.Column(idCol[0]).DataType(), rec.Column(vCol[0]).DataType())
		}
		// The row filter prunes files and row groups; rows of a file
		// that may hold id are all returned unless the residual filter is
		// applied, so the id is checked here.
		for i := 0; i < int(rec.NumRows()); i++ {
			if ids.IsValid(i) && ids.Value(i) == id && vs.IsValid(i) {
				out = append(out, vs.Value(i))
			}
		}
		rec.Release()
	}
	return out, nil
}
