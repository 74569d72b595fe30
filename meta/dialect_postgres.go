package meta

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// migrationLockKey is the pg_advisory_xact_lock key that serialises
// migrations of one PostgreSQL metastore across servers ("loammeta").
const migrationLockKey = 0x6c6f616d6d657461

// postgresDialect keeps timestamps as TIMESTAMPTZ. Servers opening the same
// store at once take an advisory lock in every migration transaction, so
// exactly one applies each step.
var postgresDialect = &dialect{
	kind:       "postgres",
	driver:     "pgx",
	iceberg:    sqlcat.Postgres,
	numbered:   true,
	timeType:   "TIMESTAMPTZ",
	serialType: "BIGSERIAL PRIMARY KEY",
	forUpdate:  " FOR UPDATE",
	timeArg:    func(t time.Time) any { return t.UTC() },
	timeValue: func(v any) (time.Time, error) {
		switch v := v.(type) {
		case time.Time:
			return v.UTC(), nil
		default:
			return time.Time{}, fmt.Errorf("meta: postgres timestamp is %T, want time.Time", v)
		}
	},
	lockMigrations: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLockKey))
		return err
	},
}
