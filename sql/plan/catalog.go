package plan

import (
	"context"
	"sync"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
)

// CatalogInfo is what the emulated pg_catalog and information_schema
// (sql/pgcatalog) read of the session and the metastore; the engine's
// catalog implements it. A Catalog that does not gets empty catalog
// tables and no catalog functions.
type CatalogInfo interface {
	User() string
	Database() string
	// SearchPath is the session's search_path, resolved ($user replaced).
	SearchPath() []string
	Settings() map[string]string
	// Namespaces are the schemas the metastore holds, sorted.
	Namespaces(ctx context.Context) ([]string, error)
	// Tables are the tables of one schema with their columns, sorted.
	Tables(ctx context.Context, ns string) ([]*TableInfo, error)
	// Sequences lists the sequences of one schema.
	Sequences(ctx context.Context, ns string) ([]SequenceInfo, error)
	// NamespaceComment is a schema's comment (COMMENT ON SCHEMA); ok is
	// false for a schema with none.
	NamespaceComment(ctx context.Context, ns string) (comment string, ok bool, err error)
	// BackendPID is the process ID sent in BackendKeyData.
	BackendPID() int32

	// Roles and privileges, as pgcatalog.Source has them. SessionUser is
	// session_user: the user who logged in or SET SESSION AUTHORIZATION
	// chose (SET ROLE changes CurrentRole only).
	CurrentRole() string
	SessionUser() string
	Roles(ctx context.Context) ([]meta.Role, error)
	Memberships(ctx context.Context) ([]meta.Membership, error)
	Grants(ctx context.Context) ([]meta.Grant, error)
	Owners(ctx context.Context) (map[meta.Object]string, error)
	DefaultPrivileges(ctx context.Context) ([]meta.DefaultPrivilege, error)
	Audit(ctx context.Context) ([]meta.AuditEvent, error)
	Allowed(ctx context.Context, role, priv string, obj meta.Object, grantOption bool) (bool, error)
}

// registry is the emulated catalogs' one registry, made on first use
// and read-only after.
var registry = sync.OnceValue(pgcatalog.New)

// catalogs is the emulated catalog as this planner sees it, made on
// first use over the planner's Catalog and shared with the planners of
// its subqueries and views (they pass it on as reg).
func (p *Planner) catalogs() *pgcatalog.Session {
	if p.reg == nil {
		var src pgcatalog.Source
		if ci, ok := p.cat.(CatalogInfo); ok {
			src = catalogSource{ci}
		}
		p.reg = registry().Session(src)
	}
	return p.reg
}

// catalogSource is a CatalogInfo as the catalog emulation reads it: the
// planner's TableInfo becomes the catalog's Table.
type catalogSource struct{ CatalogInfo }

func (c catalogSource) Tables(ctx context.Context, ns string) ([]pgcatalog.Table, error) {
	tis, err := c.CatalogInfo.Tables(ctx, ns)
	if err != nil {
		return nil, err
	}
	out := make([]pgcatalog.Table, len(tis))
	for i, ti := range tis {
		out[i] = pgcatalog.Table{Name: ti.Name, Columns: ti.Columns, Types: ti.Types, Required: ti.Required,
			Defaults: ti.Defaults, Identity: ti.Identity, ViewSQL: ti.ViewSQL, Iceberg: ti.Table}
	}
	return out, nil
}

// virtualItem is the FROM item of an emulated catalog relation, with the
// system column tableoid when it is a system catalog (psql joins
// pg_description on it). Its rows are generated when the query runs.
func (p *Planner) virtualItem(rel *pgcatalog.Relation, alias string) *fromItem {
	var cols []scopeCol
	var ts []types.T
	for _, c := range rel.Columns() {
		cols = append(cols, scopeCol{table: alias, name: c.Name, t: c.Type})
		ts = append(ts, c.Type)
	}
	if _, system := rel.TableOID(); system {
		cols = append(cols, scopeCol{table: alias, name: "tableoid", t: types.TOID, system: true})
		ts = append(ts, types.TOID)
	}
	s := p.catalogs()
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.RowSource{ColumnTypes: ts, Gen: func(ctx context.Context) ([][]types.Datum, error) { return s.Rows(ctx, rel) }}, nil
	}}
}

// lookupVirtual finds a pg_catalog or information_schema relation in the
// planner's registry; an unqualified name finds pg_catalog's only.
func (p *Planner) lookupVirtual(schema, name string) *pgcatalog.Relation {
	return p.catalogs().Registry().Lookup(schema, name)
}
