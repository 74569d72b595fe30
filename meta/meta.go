// Package meta owns names and pointers: namespaces, tables and each table's
// Iceberg metadata pointer, Loam's table settings, roles and grants, and
// the leases that say which server writes a table. It keeps them in a SQL
// database (SQLite or PostgreSQL) in the Iceberg SQL catalog layout
// (iceberg_tables, iceberg_namespace_properties, catalog "loam"), so that
// PyIceberg, Spark or Trino find Loam's tables with no Loam code, and keeps
// Loam's own tables (loam_*) beside them.
package meta

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
)

// CatalogName is the catalog_name Loam writes in the SQL catalog tables.
const CatalogName = "loam"

// Open connects to the metastore at storeURL, sqlite://PATH or
// postgres://… (postgresql://…), migrates its schema to this binary's
// version (creating the tables on first use) and opens the Iceberg catalog
// over it, placing new tables under warehouseURL. A store migrated by a
// newer binary is refused with ErrStoreTooNew.
//
// ioProps configure the warehouse's file IO as iceberg-go names them
// (s3.endpoint, s3.region, …; see WarehouseIOProps); a file:// warehouse
// needs none.
func Open(ctx context.Context, storeURL, warehouseURL string, ioProps ...map[string]string) (Store, error) {
	db, d, err := openDB(ctx, storeURL)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, db, d, len(migrations)); err != nil {
		db.Close()
		return nil, fmt.Errorf("metastore %s: %w", redact(storeURL), err)
	}
	// The catalog tables exist now (migration 1); iceberg-go must not race
	// other servers creating them. A legacy V0 catalog someone else made
	// gets the iceberg_type column.
	props := iceberg.Properties{}
	for _, p := range ioProps {
		maps.Copy(props, p)
	}
	catProps := maps.Clone(props)
	maps.Copy(catProps, iceberg.Properties{
		"warehouse":             strings.TrimSuffix(warehouseURL, "/"),
		"init_catalog_tables":   "false",
		sqlcat.SchemaVersionKey: sqlcat.SchemaVersionV1,
	})
	cat, err := sqlcat.NewCatalog(CatalogName, db, d.iceberg, catProps)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("metastore %s: %w", redact(storeURL), err)
	}
	return &sqlStore{db: db, d: d, cat: cat, warehouse: strings.TrimSuffix(warehouseURL, "/"), ioProps: props}, nil
}

// openDB opens and pings the database at storeURL, with pool settings fit
// for a server: a few dozen statements at once at most.
func openDB(ctx context.Context, storeURL string) (*sql.DB, *dialect, error) {
	var (
		d   *dialect
		dsn string
	)
	switch {
	case strings.HasPrefix(storeURL, "sqlite://"):
		path := strings.TrimPrefix(storeURL, "sqlite://")
		if path == "" {
			return nil, nil, fmt.Errorf("metastore %q: no file path", storeURL)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, nil, fmt.Errorf("metastore %s: %w", storeURL, err)
		}
		d, dsn = sqliteDialect, sqliteDSN(path)
	case strings.HasPrefix(storeURL, "postgres://"), strings.HasPrefix(storeURL, "postgresql://"):
		d, dsn = postgresDialect, storeURL
	default:
		return nil, nil, fmt.Errorf("%w: metastore %q: want sqlite://PATH or postgres://…", ErrUnknownScheme, redact(storeURL))
	}
	db, err := sql.Open(d.driver, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("metastore %s: %w", redact(storeURL), err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)
	if err := ping(ctx, db, d); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("metastore %s: %w", redact(storeURL), err)
	}
	return db, d, nil
}

// ping checks the first connection. A new SQLite file's switch to WAL
// takes an exclusive lock that does not wait out busy_timeout, so servers
// (or tests) opening one new file at once retry for a while.
func ping(ctx context.Context, db *sql.DB, d *dialect) error {
	deadline := time.Now().Add(10 * time.Second)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || d != sqliteDialect || !isSQLiteBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}
