package pgcatalog

import (
	"context"

	"github.com/apache/iceberg-go/table"

	"github.com/loamdb/loam/types"
)

// Source is what the emulated catalogs read of a session and of the
// metastore. The planner adapts its catalog to it; every method is
// required, so that no part of the emulation depends on a probe.
type Source interface {
	User() string
	// SessionUser is session_user (SET ROLE changes User only).
	SessionUser() string
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
