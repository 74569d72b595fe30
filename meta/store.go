package meta

import (
	"context"
	"errors"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Errors a Store returns, found with errors.Is.
var (
	ErrNotFound      = errors.New("meta: not found")
	ErrExists        = errors.New("meta: already exists")
	ErrConflict      = errors.New("meta: compare-and-swap lost") // the pointer moved
	ErrLeaseHeld     = errors.New("meta: lease held by another server")
	ErrStoreTooNew   = errors.New("meta: store schema is newer than this binary")
	ErrNotEmpty      = errors.New("meta: namespace not empty")
	ErrUnknownScheme = errors.New("meta: unknown metastore URL scheme")
)

// Catalog is an Iceberg catalog that can also purge a table: drop it and
// delete its files (iceberg-go's SQL, REST and Glue catalogs can).
type Catalog interface {
	catalog.Catalog
	PurgeTable(ctx context.Context, id table.Identifier) error
}

// Store is everything Loam keeps about names and pointers. SQLite serves
// one machine with nothing to install; PostgreSQL lets several servers
// share one catalog. Both keep Iceberg tables in the SQL catalog layout
// (iceberg_tables, iceberg_namespace_properties, catalog name "loam") and
// Loam's own tables (loam_*) beside them; Open returns one.
//
// Namespaces are one level deep (a Postgres schema is one namespace) and
// are the rows iceberg-go's catalog reads and writes, so the Store and
// Catalog() always agree. A Store is safe for concurrent use, by many
// goroutines and by many servers sharing one database.
type Store interface {
	// Catalog is the Iceberg catalog over the same database; table commits
	// go through it (compare-and-swap of metadata_location).
	Catalog() Catalog
	// Kind is "sqlite" or "postgres".
	Kind() string
	// SchemaVersion is the version of the store's own schema (the Loam
	// tables beside the Iceberg ones), after migrations ran at Open.
	SchemaVersion(ctx context.Context) (int, error)

	// CreateNamespace: ErrExists when it exists.
	CreateNamespace(ctx context.Context, ns string, props map[string]string) error
	// DropNamespace: ErrNotEmpty while it holds tables, ErrNotFound when
	// there is none.
	DropNamespace(ctx context.Context, ns string) error
	// ListNamespaces is sorted.
	ListNamespaces(ctx context.Context) ([]string, error)
	// NamespaceProperties: ErrNotFound when there is no such namespace.
	NamespaceProperties(ctx context.Context, ns string) (map[string]string, error)
	// SetNamespaceProperties sets and removes properties (removing one not
	// set is no error); ErrNotFound when there is no such namespace.
	SetNamespaceProperties(ctx context.Context, ns string, set map[string]string, remove []string) error

	// TablePointer is a table's metadata_location; ErrNotFound when there
	// is no such table.
	TablePointer(ctx context.Context, ns, name string) (string, error)
	// SwapTablePointer sets the pointer to new if it is still old
	// (UPDATE … WHERE metadata_location = old), keeping old as
	// previous_metadata_location; ErrConflict when it moved, ErrNotFound
	// when the table is gone. Of many concurrent swaps from one old
	// pointer exactly one wins.
	SwapTablePointer(ctx context.Context, ns, name, old, new string) error
	// SwapTablePointers does several SwapTablePointer at once, all or
	// none, in one transaction (swaps.go): ErrConflict or ErrNotFound as
	// SwapTablePointer, and then no pointer moved.
	SwapTablePointers(ctx context.Context, swaps []PointerSwap) error
	// ListTables is sorted; ErrNotFound when there is no such namespace.
	ListTables(ctx context.Context, ns string) ([]string, error)

	// Loam's table settings, kept beside the Iceberg table. Put stores or
	// replaces them (the table need not exist yet); TableSettings returns
	// ErrNotFound when none were put; Delete of none is no error.
	PutTableSettings(ctx context.Context, ns, name string, s TableSettings) error
	TableSettings(ctx context.Context, ns, name string) (TableSettings, error)
	DeleteTableSettings(ctx context.Context, ns, name string) error

	// Views are Iceberg views (views.go). CreateView: ErrExists when a
	// table or view holds the name. ReplaceView, View, DropView:
	// ErrNotFound when there is no such view. ListViews is sorted.
	CreateView(ctx context.Context, ns, name string, v View) error
	ReplaceView(ctx context.Context, ns, name string, v View) error
	View(ctx context.Context, ns, name string) (View, error)
	DropView(ctx context.Context, ns, name string) error
	ListViews(ctx context.Context, ns string) ([]string, error)

	// Roles (roles.go). CreateRole: ErrExists when taken. AlterRole
	// applies change atomically; a changed Name renames the role
	// everywhere it is named (memberships, privileges, owners, default
	// privileges), ErrExists when the new name is taken. DropRole removes
	// the role with its memberships and the privileges granted to it;
	// what it owns or granted is the caller's to check first. Role,
	// AlterRole, DropRole: ErrNotFound when there is none. ListRoles is
	// sorted by name.
	CreateRole(ctx context.Context, r Role) error
	AlterRole(ctx context.Context, name string, change func(Role) (Role, error)) error
	DropRole(ctx context.Context, name string) error
	Role(ctx context.Context, name string) (Role, error)
	ListRoles(ctx context.Context) ([]Role, error)
	// GrantRole makes m.Member a member of m.Role (again: the admin
	// option is updated); ErrNotFound when either role is missing.
	// RevokeRole of a membership that is not there is no error.
	// Memberships are sorted by role, then member.
	GrantRole(ctx context.Context, m Membership) error
	RevokeRole(ctx context.Context, role, member string) error
	Memberships(ctx context.Context) ([]Membership, error)

	// Privileges (privileges.go). Grant records one; ErrNotFound when the
	// grantee (other than PUBLIC) is missing; granting again keeps the
	// grant option if either had it. Revoke removes it, or with
	// GrantOption set only its grant option; revoking what was never
	// granted is no error. Grants lists those on obj (every object when
	// nil), sorted by object, grantee, privilege.
	Grant(ctx context.Context, g Grant) error
	Revoke(ctx context.Context, g Grant) error
	Grants(ctx context.Context, obj *Object) ([]Grant, error)
	// Owners: SetOwner records obj's owner; Owner is ErrNotFound when none
	// was recorded (objects made before roles existed belong to the
	// bootstrap superuser). ForgetObject drops obj's owner and
	// privileges (DROP), a schema's with those of what it held;
	// MoveObject moves them to a new name (RENAME), a schema's with
	// those of what it holds.
	SetOwner(ctx context.Context, obj Object, owner string) error
	Owner(ctx context.Context, obj Object) (string, error)
	Owners(ctx context.Context) (map[Object]string, error)
	ForgetObject(ctx context.Context, obj Object) error
	MoveObject(ctx context.Context, from, to Object) error
	// Default privileges (ALTER DEFAULT PRIVILEGES): SetDefaultPrivilege
	// adds (on) or removes one; DefaultPrivileges lists them all, sorted.
	SetDefaultPrivilege(ctx context.Context, d DefaultPrivilege, on bool) error
	DefaultPrivileges(ctx context.Context) ([]DefaultPrivilege, error)

	// AuthzVersion moves on with every change of roles, memberships,
	// privileges, owners or default privileges (authzcache.go).
	AuthzVersion(ctx context.Context) (int64, error)

	// The audit trail (audit.go): AppendAudit adds an event; Audit lists
	// the newest limit events (all when limit ≤ 0), oldest first.
	AppendAudit(ctx context.Context, e AuditEvent) error
	Audit(ctx context.Context, limit int) ([]AuditEvent, error)

	// Leases: which server writes a table. AcquireLease takes or renews
	// the lease for holder, until now+ttl, when it is free, expired or
	// already holder's; otherwise it returns the current lease and
	// ErrLeaseHeld (the error names the holder's ID and address). Of many
	// concurrent acquirers of a free lease exactly one wins. Expiry is
	// judged by the calling server's clock, not the database's: servers
	// sharing a store must keep their clocks in sync to well within the
	// ttl.
	AcquireLease(ctx context.Context, ns, name string, holder Holder, ttl time.Duration) (Lease, error)
	// ReleaseLease frees holderID's lease at once; when holderID does not
	// hold it (any more) nothing changes and it is no error.
	ReleaseLease(ctx context.Context, ns, name, holderID string) error
	// Lease is the lease as stored, expired or not; ErrNotFound when none.
	Lease(ctx context.Context, ns, name string) (Lease, error)

	// Sequences (sequences.go). CreateSequence: ErrExists when taken;
	// Sequence, DropSequence, SetSequenceValue: ErrNotFound when there is
	// none. NextSequenceValues hands out n values atomically across
	// servers, or ErrSequenceLimit. ListSequences is sorted.
	CreateSequence(ctx context.Context, ns, name string, q Sequence) error
	Sequence(ctx context.Context, ns, name string) (Sequence, error)
	DropSequence(ctx context.Context, ns, name string) error
	ListSequences(ctx context.Context, ns string) ([]string, error)
	NextSequenceValues(ctx context.Context, ns, name string, n int) ([]int64, error)
	SetSequenceValue(ctx context.Context, ns, name string, v int64, called bool) error
	// AlterSequence applies change to the sequence atomically.
	AlterSequence(ctx context.Context, ns, name string, change func(Sequence) (Sequence, error)) error

	Close() error
}

// TableSettings are the Loam clauses of a table, as declared.
type TableSettings struct {
	PartitionBy     []string          // e.g. ["day(ts)"]
	SortedBy        []string          // e.g. ["tenant", "model", "ts DESC"]
	Retention       string            // interval text, "" for none
	RetentionColumn string            // the ON column
	CommitInterval  time.Duration     // 0: the server's --link-interval
	Keys            []string          // primary key columns of keyed tables
	Defaults        map[string]string // column DEFAULT expressions, deparsed
	// Writer is who commits the table's snapshots: WriterLoam (the
	// link, "" too) or WriterExternal (outside engines through the REST
	// catalog; Loam only reads). One writer per table keeps the link's
	// compare-and-swap from racing commits it did not plan.
	Writer string
}

// The writers of TableSettings.Writer.
const (
	WriterLoam     = "loam"
	WriterExternal = "external"
)

// Role is a database role: a user when it may log in, a group otherwise.
type Role struct {
	Name       string
	Superuser  bool
	Login      bool
	Inherit    bool // uses the privileges of the roles it is a member of
	CreateRole bool
	CreateDB   bool
	// Password is a SCRAM-SHA-256 verifier in PostgreSQL's text form
	// (auth/scram), never a password; "" for none.
	Password   string
	ValidUntil time.Time // the password's expiry; zero for none
}

// BootstrapRole is the superuser the first start creates, and the owner
// of objects made before roles existed.
const BootstrapRole = "loam"

// PublicRole is the PUBLIC pseudo-role of grants: every role.
const PublicRole = "PUBLIC"

// Membership says Member is a member of Role (GRANT role TO member).
type Membership struct {
	Role, Member string
	Grantor      string
	Admin        bool // WITH ADMIN OPTION
}

// The kinds of Object.
const (
	KindTable    = "table" // tables and views
	KindSequence = "sequence"
	KindSchema   = "schema"
	KindDatabase = "database"
)

// Object is what a privilege is on: a table, view or sequence (Schema,
// Name), a schema (Name), or the database (Name).
type Object struct {
	Kind, Schema, Name string
}

func (o Object) String() string {
	if o.Schema == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Schema + "." + o.Name
}

// Grant is one privilege held on an object.
type Grant struct {
	Grantee     string // a role, or PublicRole
	Privilege   string // SELECT, INSERT, UPDATE, DELETE, TRUNCATE, USAGE, CREATE, …
	Object      Object
	Grantor     string
	GrantOption bool
}

// DefaultPrivilege is a privilege Owner's future objects of Kind in
// Schema ("" for every schema) are created with.
type DefaultPrivilege struct {
	Owner, Schema string
	Kind          string // KindTable, KindSequence or KindSchema
	Grantee       string
	Privilege     string
	GrantOption   bool
}

// AuditEvent is one entry of the audit trail.
type AuditEvent struct {
	Time      time.Time
	Role      string
	Address   string // the client's, "" when not from a connection
	Kind      string // AuditLogin, AuditLoginFailed, AuditDDL, AuditGrant, AuditRole
	Statement string
	OK        bool
	Detail    string
}

// The kinds of AuditEvent.
const (
	AuditLogin       = "login"
	AuditLoginFailed = "login_failed"
	AuditDDL         = "ddl"
	AuditGrant       = "grant"
	AuditRole        = "role"
)

// Holder identifies a server taking a lease: an ID unique to the process
// and the address clients reach it at, for the error a refused write gets.
type Holder struct {
	ID      string
	Address string
}

// Lease says which server writes a table, until when.
type Lease struct {
	Holder  Holder
	Expires time.Time
}
