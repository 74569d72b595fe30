package meta

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// A migration is one step of the store's own schema. Steps are applied in
// order, each in its own transaction together with its row in
// loam_schema_migrations, so a store is always at exactly one version.
// Never edit a released step: append a new one. {time} is the dialect's
// timestamp type (TIMESTAMPTZ on PostgreSQL, integer microseconds on
// SQLite); every other type here means the same on both.
type migration struct {
	name  string
	stmts []string
}

// migrations are the schema versions this binary knows: migrations[i] takes
// the store from version i to i+1.
var migrations = []migration{
	{
		// The Iceberg SQL catalog layout (the JDBC catalog's V1 schema, as
		// iceberg-go and PyIceberg create it), so other engines find Loam's
		// tables. IF NOT EXISTS adopts a catalog another engine created.
		name: "iceberg sql catalog, table settings",
		stmts: []string{
			`CREATE TABLE IF NOT EXISTS iceberg_tables (
				catalog_name VARCHAR NOT NULL,
				table_namespace VARCHAR NOT NULL,
				table_name VARCHAR NOT NULL,
				iceberg_type VARCHAR,
				metadata_location VARCHAR,
				previous_metadata_location VARCHAR,
				PRIMARY KEY (catalog_name, table_namespace, table_name))`,
			`CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (
				catalog_name VARCHAR NOT NULL,
				namespace VARCHAR NOT NULL,
				property_key VARCHAR NOT NULL,
				property_value VARCHAR,
				PRIMARY KEY (catalog_name, namespace, property_key))`,
			`CREATE TABLE loam_table_settings (
				namespace VARCHAR NOT NULL,
				name VARCHAR NOT NULL,
				settings TEXT NOT NULL,
				PRIMARY KEY (namespace, name))`,
		},
	},
	{
		name: "roles and grants",
		stmts: []string{
			`CREATE TABLE loam_roles (
				name VARCHAR PRIMARY KEY,
				superuser BOOLEAN NOT NULL,
				login BOOLEAN NOT NULL)`,
			`CREATE TABLE loam_grants (
				role VARCHAR NOT NULL,
				privilege VARCHAR NOT NULL,
				object VARCHAR NOT NULL,
				PRIMARY KEY (role, privilege, object))`,
		},
	},
	{
		name: "table write leases",
		stmts: []string{
			`CREATE TABLE loam_leases (
				namespace VARCHAR NOT NULL,
				name VARCHAR NOT NULL,
				holder_id VARCHAR NOT NULL,
				holder_address VARCHAR NOT NULL,
				expires_at {time} NOT NULL,
				PRIMARY KEY (namespace, name))`,
		},
	},
	{
		name: "sequences",
		stmts: []string{
			`CREATE TABLE loam_sequences (
				namespace VARCHAR NOT NULL,
				name VARCHAR NOT NULL,
				seq_type VARCHAR NOT NULL,
				start_value BIGINT NOT NULL,
				increment_by BIGINT NOT NULL,
				min_value BIGINT NOT NULL,
				max_value BIGINT NOT NULL,
				cache_size BIGINT NOT NULL,
				cycle BOOLEAN NOT NULL,
				owned_by VARCHAR NOT NULL,
				last_value BIGINT NOT NULL,
				is_called BOOLEAN NOT NULL,
				PRIMARY KEY (namespace, name))`,
		},
	},
	{
		// Issue 17: roles log in with SCRAM verifiers; privileges name
		// their object in columns (kind, schema, name) and carry grantor
		// and grant option; memberships, owners, default privileges and
		// the audit trail. loam_grants held nothing yet.
		name: "roles, privileges, owners, audit",
		stmts: []string{
			`ALTER TABLE loam_roles ADD COLUMN inherit BOOLEAN NOT NULL DEFAULT TRUE`,
			`ALTER TABLE loam_roles ADD COLUMN createrole BOOLEAN NOT NULL DEFAULT FALSE`,
			`ALTER TABLE loam_roles ADD COLUMN createdb BOOLEAN NOT NULL DEFAULT FALSE`,
			`ALTER TABLE loam_roles ADD COLUMN password VARCHAR NOT NULL DEFAULT ''`,
			`ALTER TABLE loam_roles ADD COLUMN valid_until VARCHAR NOT NULL DEFAULT ''`,
			`DROP TABLE loam_grants`,
			`CREATE TABLE loam_privileges (
				grantee VARCHAR NOT NULL,
				privilege VARCHAR NOT NULL,
				object_kind VARCHAR NOT NULL,
				object_schema VARCHAR NOT NULL,
				object_name VARCHAR NOT NULL,
				grantor VARCHAR NOT NULL,
				grant_option BOOLEAN NOT NULL,
				PRIMARY KEY (object_kind, object_schema, object_name, grantee, privilege))`,
			`CREATE TABLE loam_role_members (
				role VARCHAR NOT NULL,
				member VARCHAR NOT NULL,
				grantor VARCHAR NOT NULL,
				admin_option BOOLEAN NOT NULL,
				PRIMARY KEY (role, member))`,
			`CREATE TABLE loam_owners (
				object_kind VARCHAR NOT NULL,
				object_schema VARCHAR NOT NULL,
				object_name VARCHAR NOT NULL,
				owner VARCHAR NOT NULL,
				PRIMARY KEY (object_kind, object_schema, object_name))`,
			`CREATE TABLE loam_default_privileges (
				owner VARCHAR NOT NULL,
				schema_name VARCHAR NOT NULL,
				object_kind VARCHAR NOT NULL,
				grantee VARCHAR NOT NULL,
				privilege VARCHAR NOT NULL,
				grant_option BOOLEAN NOT NULL,
				PRIMARY KEY (owner, schema_name, object_kind, grantee, privilege))`,
			`CREATE TABLE loam_audit (
				id {serial},
				at {time} NOT NULL,
				role VARCHAR NOT NULL,
				address VARCHAR NOT NULL,
				kind VARCHAR NOT NULL,
				statement TEXT NOT NULL,
				ok BOOLEAN NOT NULL,
				detail TEXT NOT NULL)`,
			// One number that every change of roles, memberships,
			// privileges and owners moves on, so a server's cached view of
			// them costs one read a statement to validate.
			`CREATE TABLE loam_authz_version (id INTEGER PRIMARY KEY, version BIGINT NOT NULL)`,
			`INSERT INTO loam_authz_version (id, version) VALUES (1, 1)`,
			// The bootstrap superuser, and PostgreSQL 15's default grant:
			// every role may use schema public (but not create in it).
			`INSERT INTO loam_roles (name, superuser, login, inherit, createrole, createdb)
				VALUES ('loam', TRUE, TRUE, TRUE, TRUE, TRUE) ON CONFLICT (name) DO NOTHING`,
			`INSERT INTO loam_privileges (grantee, privilege, object_kind, object_schema, object_name, grantor, grant_option)
				VALUES ('PUBLIC', 'USAGE', 'schema', '', 'public', 'loam', FALSE)`,
		},
	},
}

// LatestSchemaVersion is the store schema version this binary migrates to.
func LatestSchemaVersion() int { return len(migrations) }

// Migrate brings the store at storeURL up to schema version target
// (1 ≤ target ≤ LatestSchemaVersion) without opening its catalog. Open
// migrates to the latest version by itself; Migrate is for tests of
// upgrades and for tools.
func Migrate(ctx context.Context, storeURL string, target int) error {
	if target < 1 || target > len(migrations) {
		return fmt.Errorf("meta: migrate to version %d: this binary knows versions 1 to %d", target, len(migrations))
	}
	db, d, err := openDB(ctx, storeURL)
	if err != nil {
		return err
	}
	defer db.Close()
	return migrate(ctx, db, d, target)
}

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS loam_schema_migrations (
	version INTEGER PRIMARY KEY,
	name VARCHAR NOT NULL,
	applied_at {time} NOT NULL)`

// migrate applies the steps the store lacks, up to version target, one
// transaction a step. Each transaction first takes the dialect's migration
// lock (SQLite: the immediate transaction's write lock), then reads the
// version, so two servers opening one store at once never both apply a
// step: the second sees the first's row and moves on. A store whose
// version is beyond what this binary knows is refused with ErrStoreTooNew
// before anything is written.
func migrate(ctx context.Context, db *sql.DB, d *dialect, target int) error {
	for {
		done, err := migrateStep(ctx, db, d, target)
		if err != nil || done {
			return err
		}
	}
}

func migrateStep(ctx context.Context, db *sql.DB, d *dialect, target int) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("meta: migrate: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if d.lockMigrations != nil {
		if err := d.lockMigrations(ctx, tx); err != nil {
			return false, fmt.Errorf("meta: migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, d.ddl(createMigrationsTable)); err != nil {
		return false, fmt.Errorf("meta: migrate: create loam_schema_migrations: %w", err)
	}
	var v int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM loam_schema_migrations").Scan(&v); err != nil {
		return false, fmt.Errorf("meta: migrate: read version: %w", err)
	}
	if v > len(migrations) {
		return false, fmt.Errorf("%w: metastore schema version %d is newer than this loam binary (knows %d); upgrade loam",
			ErrStoreTooNew, v, len(migrations))
	}
	if v >= target {
		return true, tx.Commit()
	}
	m := migrations[v]
	for _, s := range m.stmts {
		if _, err := tx.ExecContext(ctx, d.ddl(s)); err != nil {
			return false, fmt.Errorf("meta: migrate to version %d (%s): %w", v+1, m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, d.rebind("INSERT INTO loam_schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"),
		v+1, m.name, d.timeArg(time.Now())); err != nil {
		return false, fmt.Errorf("meta: migrate to version %d (%s): record: %w", v+1, m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("meta: migrate to version %d (%s): commit: %w", v+1, m.name, err)
	}
	return v+1 >= target, nil
}
