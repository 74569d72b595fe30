// Package meta owns names and pointers: namespaces, tables and each table's
// Iceberg metadata pointer, kept in a SQL database in the Iceberg SQL catalog
// layout (iceberg_tables, iceberg_namespace_properties, catalog "loam") so
// that PyIceberg, Spark or Trino find Loam's tables with no Loam code.
package meta

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// CatalogName is the catalog_name Loam writes in the SQL catalog tables.
const CatalogName = "loam"

// Store is the metastore: an Iceberg SQL catalog over SQLite or PostgreSQL.
type DB struct {
	db  *sql.DB
	cat *sqlcat.Catalog
}

// Open connects to the metastore at storeURL (sqlite://PATH or
// postgres://…), creating the catalog tables on first use. Tables are placed
// under warehouseURL.
func Open(ctx context.Context, storeURL, warehouseURL string) (*DB, error) {
	var (
		db      *sql.DB
		dialect sqlcat.SupportedDialect
		err     error
	)
	switch {
	case strings.HasPrefix(storeURL, "sqlite://"):
		path := strings.TrimPrefix(storeURL, "sqlite://")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("metastore %s: %w", storeURL, err)
		}
		// WAL lets readers run beside the writer; the busy timeout makes
		// concurrent writers wait instead of failing with SQLITE_BUSY.
		dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		db, err = sql.Open("sqlite", dsn)
		dialect = sqlcat.SQLite
	case strings.HasPrefix(storeURL, "postgres://"), strings.HasPrefix(storeURL, "postgresql://"):
		db, err = sql.Open("pgx", storeURL)
		dialect = sqlcat.Postgres
	default:
		return nil, fmt.Errorf("metastore %q: want sqlite://PATH or postgres://…", storeURL)
	}
	if err != nil {
		return nil, fmt.Errorf("metastore %s: %w", redact(storeURL), err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("metastore %s: %w", redact(storeURL), err)
	}
	cat, err := sqlcat.NewCatalog(CatalogName, db, dialect, iceberg.Properties{
		"warehouse":           strings.TrimSuffix(warehouseURL, "/"),
		"init_catalog_tables": "true",
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("metastore %s: %w", redact(storeURL), err)
	}
	return &DB{db: db, cat: cat}, nil
}

// Catalog is the Iceberg catalog view of the store, which table commits go
// through (compare-and-swap of the metadata pointer).
func (s *DB) Catalog() catalog.Catalog { return s.cat }

// Close closes the database connection.
func (s *DB) Close() error { return s.db.Close() }

func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}
