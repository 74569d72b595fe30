package meta

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
)

// sqlStore is the Store on a SQL database; the dialect holds what differs
// between SQLite and PostgreSQL. Namespaces go through the Iceberg catalog
// so that both views of iceberg_namespace_properties agree; table pointers
// are read and swapped on iceberg_tables directly, with the same predicates
// iceberg-go's commits use.
type sqlStore struct {
	db  *sql.DB
	d   *dialect
	cat *sqlcat.Catalog
	// warehouse is where view metadata files go (views.go).
	warehouse string
	// ioProps configure the warehouse's file IO (s3.endpoint, …).
	ioProps iceberg.Properties
	views   viewCache
}

var _ Store = (*sqlStore)(nil)

func (s *sqlStore) Catalog() Catalog { return s.cat }
func (s *sqlStore) Kind() string     { return s.d.kind }

func (s *sqlStore) Close() error {
	err := s.cat.Close() // leaves db open: NewCatalog was handed it
	if dberr := s.db.Close(); err == nil {
		err = dberr
	}
	return err
}

func (s *sqlStore) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM loam_schema_migrations").Scan(&v); err != nil {
		return 0, fmt.Errorf("meta: schema version: %w", err)
	}
	return v, nil
}

func (s *sqlStore) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.d.rebind(q), args...)
}

func (s *sqlStore) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.d.rebind(q), args...)
}

// inTx runs fn in a read-write transaction (on SQLite an immediate one,
// which takes the write lock at BEGIN).
func (s *sqlStore) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// ---- namespaces ----

// Namespaces are one level deep: a Postgres schema is one Iceberg
// namespace. nsIdent is the catalog's identifier of ns.
func nsIdent(ns string) table.Identifier { return table.Identifier{ns} }

// nsKey is the table_namespace / namespace column value of ns, as
// iceberg-go writes it: the name itself, or a marked JSON array when the
// name holds a dot (which would otherwise read as two levels).
func nsKey(ns string) string {
	const prefix = "__iceberg_namespace_v1__:"
	if !strings.Contains(ns, ".") && !strings.Contains(ns, prefix) {
		return ns
	}
	b, _ := json.Marshal([]string{ns})
	return prefix + string(b)
}

// catalogErr maps the Iceberg catalog's errors to the Store's, keeping both
// in the chain.
func catalogErr(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, catalog.ErrNoSuchNamespace), errors.Is(err, catalog.ErrNoSuchTable):
		return fmt.Errorf("meta: %s: %w: %w", op, ErrNotFound, err)
	case errors.Is(err, catalog.ErrNamespaceAlreadyExists), errors.Is(err, catalog.ErrTableAlreadyExists):
		return fmt.Errorf("meta: %s: %w: %w", op, ErrExists, err)
	case errors.Is(err, catalog.ErrNamespaceNotEmpty):
		return fmt.Errorf("meta: %s: %w: %w", op, ErrNotEmpty, err)
	}
	return fmt.Errorf("meta: %s: %w", op, err)
}

// namespaceMarker is the property iceberg-go and PyIceberg keep for a
// namespace without properties. Loam writes it for every namespace, so that
// removing the last user property never makes the namespace vanish.
const namespaceMarker = "exists"

func (s *sqlStore) ensureMarker(ctx context.Context, ns string) error {
	_, err := s.exec(ctx, `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value)
		VALUES (?, ?, ?, 'true') ON CONFLICT (catalog_name, namespace, property_key) DO NOTHING`,
		CatalogName, nsKey(ns), namespaceMarker)
	return err
}

func (s *sqlStore) CreateNamespace(ctx context.Context, ns string, props map[string]string) error {
	op := fmt.Sprintf("create namespace %q", ns)
	if ns == "" {
		return fmt.Errorf("meta: %s: empty name", op)
	}
	if err := s.cat.CreateNamespace(ctx, nsIdent(ns), iceberg.Properties(props)); err != nil {
		return catalogErr(op, err)
	}
	if err := s.ensureMarker(ctx, ns); err != nil {
		return fmt.Errorf("meta: %s: %w", op, err)
	}
	return nil
}

func (s *sqlStore) DropNamespace(ctx context.Context, ns string) error {
	return catalogErr(fmt.Sprintf("drop namespace %q", ns), s.cat.DropNamespace(ctx, nsIdent(ns)))
}

// ListNamespaces lists every namespace of catalog "loam", sorted; a nested
// namespace another engine made is listed with its levels joined by dots.
func (s *sqlStore) ListNamespaces(ctx context.Context) ([]string, error) {
	idents, err := s.cat.ListNamespaces(ctx, nil)
	if err != nil {
		return nil, catalogErr("list namespaces", err)
	}
	out := make([]string, 0, len(idents))
	for _, id := range idents {
		out = append(out, strings.Join(id, "."))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (s *sqlStore) NamespaceProperties(ctx context.Context, ns string) (map[string]string, error) {
	p, err := s.cat.LoadNamespaceProperties(ctx, nsIdent(ns))
	if err != nil {
		return nil, catalogErr(fmt.Sprintf("namespace %q properties", ns), err)
	}
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out, nil
}

// SetNamespaceProperties sets and removes properties; removing one that is
// not set is no error. A key may not be both set and removed.
func (s *sqlStore) SetNamespaceProperties(ctx context.Context, ns string, set map[string]string, remove []string) error {
	op := fmt.Sprintf("set namespace %q properties", ns)
	if len(remove) > 0 {
		ok, err := s.cat.CheckNamespaceExists(ctx, nsIdent(ns))
		if err != nil {
			return catalogErr(op, err)
		}
		if !ok {
			return fmt.Errorf("meta: %s: %w", op, ErrNotFound)
		}
		if err := s.ensureMarker(ctx, ns); err != nil {
			return fmt.Errorf("meta: %s: %w", op, err)
		}
	}
	_, err := s.cat.UpdateNamespaceProperties(ctx, nsIdent(ns), remove, iceberg.Properties(set))
	return catalogErr(op, err)
}

// ---- table pointers ----

// isTable matches the rows iceberg-go treats as tables (views share
// iceberg_tables; legacy rows have no type).
const isTable = "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)"

func (s *sqlStore) TablePointer(ctx context.Context, ns, name string) (string, error) {
	var loc sql.NullString
	err := s.queryRow(ctx, `SELECT metadata_location FROM iceberg_tables
		WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND `+isTable,
		CatalogName, nsKey(ns), name).Scan(&loc)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !loc.Valid {
		return "", fmt.Errorf("meta: table %s.%s: %w", ns, name, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("meta: table %s.%s pointer: %w", ns, name, err)
	}
	return loc.String, nil
}

// SwapTablePointer is the same compare-and-swap iceberg-go's commits do,
// recording old as previous_metadata_location. When it loses, it tells a
// moved pointer (ErrConflict) from a dropped table (ErrNotFound).
func (s *sqlStore) SwapTablePointer(ctx context.Context, ns, name, old, new string) error {
	res, err := s.exec(ctx, `UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?
		WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ? AND `+isTable,
		new, old, CatalogName, nsKey(ns), name, old)
	if err != nil {
		return fmt.Errorf("meta: swap table %s.%s pointer: %w", ns, name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("meta: swap table %s.%s pointer: %w", ns, name, err)
	}
	if n == 1 {
		return nil
	}
	cur, err := s.TablePointer(ctx, ns, name)
	if err != nil {
		return err
	}
	return fmt.Errorf("meta: swap table %s.%s pointer from %s: %w (now %s)", ns, name, old, ErrConflict, cur)
}

// ListTables lists the tables (not views) of ns, sorted; ErrNotFound when
// the namespace does not exist.
func (s *sqlStore) ListTables(ctx context.Context, ns string) ([]string, error) {
	op := fmt.Sprintf("list tables of %q", ns)
	ok, err := s.cat.CheckNamespaceExists(ctx, nsIdent(ns))
	if err != nil {
		return nil, catalogErr(op, err)
	}
	if !ok {
		return nil, fmt.Errorf("meta: %s: %w", op, ErrNotFound)
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT table_name FROM iceberg_tables
		WHERE catalog_name = ? AND table_namespace = ? AND `+isTable+` ORDER BY table_name`), CatalogName, nsKey(ns))
	if err != nil {
		return nil, fmt.Errorf("meta: %s: %w", op, err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("meta: %s: %w", op, err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: %s: %w", op, err)
	}
	return out, nil
}

// ---- table settings ----

// settingsJSON is the stored form of TableSettings; its field names are
// the format, so rename Go fields freely but never these tags.
type settingsJSON struct {
	PartitionBy     []string          `json:"partition_by,omitempty"`
	SortedBy        []string          `json:"sorted_by,omitempty"`
	Retention       string            `json:"retention,omitempty"`
	RetentionColumn string            `json:"retention_column,omitempty"`
	CommitInterval  string            `json:"commit_interval,omitempty"` // time.Duration text
	Keys            []string          `json:"keys,omitempty"`
	Defaults        map[string]string `json:"defaults,omitempty"`
	Writer          string            `json:"writer,omitempty"`
}

// PutTableSettings stores (or replaces) the settings of ns.name; the table
// need not exist yet, so CREATE TABLE can record them first.
func (s *sqlStore) PutTableSettings(ctx context.Context, ns, name string, ts TableSettings) error {
	j := settingsJSON{
		PartitionBy: ts.PartitionBy, SortedBy: ts.SortedBy,
		Retention: ts.Retention, RetentionColumn: ts.RetentionColumn,
		Keys: ts.Keys, Defaults: ts.Defaults, Writer: ts.Writer,
	}
	if ts.CommitInterval != 0 {
		j.CommitInterval = ts.CommitInterval.String()
	}
	b, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("meta: table %s.%s settings: %w", ns, name, err)
	}
	_, err = s.exec(ctx, `INSERT INTO loam_table_settings (namespace, name, settings) VALUES (?, ?, ?)
		ON CONFLICT (namespace, name) DO UPDATE SET settings = excluded.settings`, ns, name, string(b))
	if err != nil {
		return fmt.Errorf("meta: put table %s.%s settings: %w", ns, name, err)
	}
	return nil
}

// TableSettings returns the settings of ns.name; ErrNotFound when none
// were put.
func (s *sqlStore) TableSettings(ctx context.Context, ns, name string) (TableSettings, error) {
	var text string
	err := s.queryRow(ctx, "SELECT settings FROM loam_table_settings WHERE namespace = ? AND name = ?", ns, name).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return TableSettings{}, fmt.Errorf("meta: table %s.%s settings: %w", ns, name, ErrNotFound)
	}
	if err != nil {
		return TableSettings{}, fmt.Errorf("meta: table %s.%s settings: %w", ns, name, err)
	}
	var j settingsJSON
	if err := json.Unmarshal([]byte(text), &j); err != nil {
		return TableSettings{}, fmt.Errorf("meta: table %s.%s settings: %w", ns, name, err)
	}
	ts := TableSettings{
		PartitionBy: j.PartitionBy, SortedBy: j.SortedBy,
		Retention: j.Retention, RetentionColumn: j.RetentionColumn,
		Keys: j.Keys, Defaults: j.Defaults, Writer: j.Writer,
	}
	if j.CommitInterval != "" {
		if ts.CommitInterval, err = time.ParseDuration(j.CommitInterval); err != nil {
			return TableSettings{}, fmt.Errorf("meta: table %s.%s settings: commit interval: %w", ns, name, err)
		}
	}
	return ts, nil
}

// DeleteTableSettings removes the settings of ns.name, if any.
func (s *sqlStore) DeleteTableSettings(ctx context.Context, ns, name string) error {
	if _, err := s.exec(ctx, "DELETE FROM loam_table_settings WHERE namespace = ? AND name = ?", ns, name); err != nil {
		return fmt.Errorf("meta: delete table %s.%s settings: %w", ns, name, err)
	}
	return nil
}

// ---- leases ----

// AcquireLease takes, renews or takes over the lease on ns.name in one
// transaction: an upsert whose update only applies when the lease has
// expired or is already holder's, then a read of whoever holds it now.
// Expiry is judged by the caller's clock (time.Now here, passed into the
// statement), never the database's, so SQLite and PostgreSQL behave alike;
// servers sharing a store must keep their clocks roughly in sync (well
// within the lease ttl), since a server whose clock runs ahead takes over
// leases early.
func (s *sqlStore) AcquireLease(ctx context.Context, ns, name string, holder Holder, ttl time.Duration) (Lease, error) {
	if ttl <= 0 {
		return Lease{}, fmt.Errorf("meta: lease on %s.%s: ttl %v is not positive", ns, name, ttl)
	}
	if holder.ID == "" {
		return Lease{}, fmt.Errorf("meta: lease on %s.%s: empty holder id", ns, name)
	}
	now := time.Now().Truncate(time.Microsecond)
	expires := now.Add(ttl)
	var l Lease
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO loam_leases (namespace, name, holder_id, holder_address, expires_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (namespace, name) DO UPDATE SET
				holder_id = excluded.holder_id,
				holder_address = excluded.holder_address,
				expires_at = excluded.expires_at
			WHERE loam_leases.expires_at <= ? OR loam_leases.holder_id = excluded.holder_id`),
			ns, name, holder.ID, holder.Address, s.d.timeArg(expires), s.d.timeArg(now))
		if err != nil {
			return err
		}
		l, err = s.lease(ctx, tx, ns, name)
		return err
	})
	if err != nil {
		return Lease{}, fmt.Errorf("meta: acquire lease on %s.%s: %w", ns, name, err)
	}
	if l.Holder.ID != holder.ID {
		return l, fmt.Errorf("meta: table %s.%s is written by server %s at %s until %s: %w",
			ns, name, l.Holder.ID, l.Holder.Address, l.Expires.Format(time.RFC3339Nano), ErrLeaseHeld)
	}
	return l, nil
}

// ReleaseLease gives up holderID's lease on ns.name so another server may
// take it at once. Releasing a lease one does not hold (never taken, or
// taken over after it expired) changes nothing and is no error.
func (s *sqlStore) ReleaseLease(ctx context.Context, ns, name, holderID string) error {
	if _, err := s.exec(ctx, "DELETE FROM loam_leases WHERE namespace = ? AND name = ? AND holder_id = ?",
		ns, name, holderID); err != nil {
		return fmt.Errorf("meta: release lease on %s.%s: %w", ns, name, err)
	}
	return nil
}

// Lease returns the lease on ns.name as stored, expired or not (compare
// Expires with the clock); ErrNotFound when there is none.
func (s *sqlStore) Lease(ctx context.Context, ns, name string) (Lease, error) {
	l, err := s.lease(ctx, s.db, ns, name)
	if err != nil {
		return Lease{}, fmt.Errorf("meta: lease on %s.%s: %w", ns, name, err)
	}
	return l, nil
}

func (s *sqlStore) lease(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, ns, name string) (Lease, error) {
	var (
		l   Lease
		exp any
	)
	err := q.QueryRowContext(ctx, s.d.rebind(`SELECT holder_id, holder_address, expires_at FROM loam_leases
		WHERE namespace = ? AND name = ?`), ns, name).Scan(&l.Holder.ID, &l.Holder.Address, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, ErrNotFound
	}
	if err != nil {
		return Lease{}, err
	}
	if l.Expires, err = s.d.timeValue(exp); err != nil {
		return Lease{}, err
	}
	return l, nil
}
