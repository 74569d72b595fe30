package main

// Modules the engine is being built on, kept in go.mod until their packages
// import them.
import (
	_ "github.com/apache/arrow-go/v18/arrow/compute"
	_ "github.com/apache/iceberg-go/catalog/sql"
	_ "github.com/apache/iceberg-go/io"
	_ "github.com/apache/iceberg-go/table"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/pgproto3"
	_ "github.com/pganalyze/pg_query_go/v5"
	_ "modernc.org/sqlite"
)
