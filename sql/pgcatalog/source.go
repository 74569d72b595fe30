package pgcatalog

import (
	"context"

	"github.com/apache/iceberg-go/table"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/types"
)

// Source is what the emulated catalogs read of a session and of the
// metastore. The planner adapts its catalog to it; every method is
// required, so that no part of the emulation depends on a probe.
type Source interface {
	User() string
	Database() string
	// SearchPath is the session's search_path, resolved ($user replaced).
	SearchPath() []string
	Settings() map[string]string
	// Namespaces are the schemas the metastore holds, sorted.
	Namespaces(ctx context.Context) ([]string, error)
	// Tables are the tables and views of one schema, sorted.
	Tables(ctx context.Context, ns string) ([]Table, error)
	// Sequences are the sequences of one schema.
	Sequences(ctx context.Context, ns string) ([]Sequence, error)
	// NamespaceComment is a schema's COMMENT ON SCHEMA; ok is false for
	// a schema with none.
	NamespaceComment(ctx context.Context, ns string) (comment string, ok bool, err error)
	// BackendPID is the session's process ID (pg_stat_activity.pid), 0
	// when there is none.
	BackendPID() int32

	// CurrentRole is the role whose privileges the session uses
	// (current_user); SessionUser the role it logged in as.
	CurrentRole() string
	SessionUser() string
	// Roles are the metastore's roles, sorted by name; Memberships,
	// Grants (on every object), Owners (those recorded) and
	// DefaultPrivileges as meta.Store lists them.
	Roles(ctx context.Context) ([]meta.Role, error)
	Memberships(ctx context.Context) ([]meta.Membership, error)
	Grants(ctx context.Context) ([]meta.Grant, error)
	Owners(ctx context.Context) (map[meta.Object]string, error)
	DefaultPrivileges(ctx context.Context) ([]meta.DefaultPrivilege, error)
	// Audit is the audit trail, oldest first.
	Audit(ctx context.Context) ([]meta.AuditEvent, error)
	// Allowed says whether role (meta.PublicRole for PUBLIC) holds priv
	// on obj, or, with grantOption, may grant it: the authorizer's
	// answer, which enforcement gets too.
	Allowed(ctx context.Context, role, priv string, obj meta.Object, grantOption bool) (bool, error)
}

// Table is a Loam table or view as the catalogs show it.
type Table struct {
	Name     string
	Columns  []string
	Types    []types.T
	Required []bool
	// Defaults are the columns' DEFAULT texts as stored (DefaultText
	// reads them); nil when no column has one.
	Defaults []string
	// Identity is each column's GENERATED … AS IDENTITY kind: "a"
	// (ALWAYS), "d" (BY DEFAULT) or ""; nil when no column is one.
	Identity []string
	// ViewSQL is a view's SELECT text; "" for a table.
	ViewSQL string
	// Iceberg is a table's Iceberg metadata (primary key, comments,
	// partitioning, options, size); nil for a view.
	Iceberg *table.Table
}

// Sequence describes one sequence.
type Sequence struct {
	Namespace, Name string
	Type            types.T // smallint, integer or bigint
	Start           int64
	Increment       int64
	Min, Max        int64
	Cache           int64
	Cycle           bool
	// OwnedBy is the owning column as "table.column", "" for none.
	OwnedBy string
}
