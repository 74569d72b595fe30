// Package metatest is the conformance suite every meta.Store backend
// passes unchanged: each method, concurrent compare-and-swap and lease
// races, migrations, and agreement with iceberg-go's own SQL catalog
// opened on the same database without Loam.
package metatest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/loamdb/loam/meta"
)

// Fresh returns the URLs of a new, empty metastore database and a new
// warehouse for one test; the suite opens them itself, since several
// tests open one database more than once (migrations, concurrent opens,
// iceberg-go's catalog beside Loam's).
type Fresh func(t *testing.T) (storeURL, warehouseURL string)

// Run runs the conformance suite against the backend fresh provides.
func Run(t *testing.T, fresh Fresh) {
	s := &suite{fresh: fresh}
	t.Run("Open", s.testOpen)
	t.Run("Namespaces", s.testNamespaces)
	t.Run("NamespacesAgreeWithIceberg", s.testNamespacesAgree)
	t.Run("TablePointers", s.testTablePointers)
	t.Run("SwapTablePointers", s.testSwapTablePointers)
	t.Run("IcebergCatalogReadsLoamTables", s.testIcebergInterop)
	t.Run("Views", s.testViews)
	t.Run("TableSettings", s.testSettings)
	t.Run("RolesAndGrants", s.testRoles)
	t.Run("Leases", s.testLeases)
	t.Run("Sequences", s.testSequences)
	t.Run("ConcurrentSequence", s.testConcurrentSequence)
	t.Run("ConcurrentSwap", s.testConcurrentSwap)
	t.Run("ConcurrentAcquireLease", s.testConcurrentLease)
	t.Run("ConcurrentOpen", s.testConcurrentOpen)
	t.Run("MigrateFromPrevious", s.testMigrateFromPrevious)
	t.Run("StoreNewerThanBinary", s.testStoreTooNew)
	t.Run("AdoptsIcebergCatalog", s.testAdopt)
}

type suite struct{ fresh Fresh }

// open opens a fresh store, closed when the test ends.
func (s *suite) open(t *testing.T) (meta.Store, string) {
	t.Helper()
	storeURL, wh := s.fresh(t)
	return openAt(t, storeURL, wh), storeURL
}

func openAt(t *testing.T, storeURL, wh string) meta.Store {
	t.Helper()
	st, err := meta.Open(context.Background(), storeURL, wh)
	if err != nil {
		t.Fatalf("meta.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

// rawDB opens the store's database with no Loam code, as another engine
// would.
func rawDB(t *testing.T, storeURL string) (*sql.DB, sqlcat.SupportedDialect) {
	t.Helper()
	var (
		db  *sql.DB
		d   sqlcat.SupportedDialect
		err error
	)
	if path, ok := strings.CutPrefix(storeURL, "sqlite://"); ok {
		db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		d = sqlcat.SQLite
	} else {
		db, err = sql.Open("pgx", storeURL)
		d = sqlcat.Postgres
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, d
}

// rebind turns ? placeholders into $n for PostgreSQL.
func rebind(d sqlcat.SupportedDialect, q string) string {
	if d != sqlcat.Postgres {
		return q
	}
	for n := 1; strings.Contains(q, "?"); n++ {
		q = strings.Replace(q, "?", fmt.Sprintf("$%d", n), 1)
	}
	return q
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "msg", Type: iceberg.PrimitiveTypes.String},
)

func createTable(t *testing.T, st meta.Store, ns, name string) *table.Table {
	t.Helper()
	tbl, err := st.Catalog().CreateTable(context.Background(), table.Identifier{ns, name}, testSchema)
	if err != nil {
		t.Fatalf("CreateTable %s.%s: %v", ns, name, err)
	}
	return tbl
}

func (s *suite) testOpen(t *testing.T) {
	ctx := context.Background()
	st, storeURL := s.open(t)
	want := "postgres"
	if strings.HasPrefix(storeURL, "sqlite://") {
		want = "sqlite"
	}
	if st.Kind() != want {
		t.Errorf("Kind = %q, want %q", st.Kind(), want)
	}
	v, err := st.SchemaVersion(ctx)
	must(t, "SchemaVersion", err)
	if v != meta.LatestSchemaVersion() || v < 1 {
		t.Errorf("SchemaVersion = %d, want %d", v, meta.LatestSchemaVersion())
	}
	// Every step applied exactly once, in order.
	db, d := rawDB(t, storeURL)
	rows, err := db.Query("SELECT version FROM loam_schema_migrations ORDER BY version")
	must(t, "read migrations", err)
	var got []int
	for rows.Next() {
		var n int
		must(t, "scan", rows.Scan(&n))
		got = append(got, n)
	}
	rows.Close()
	for i, n := range got {
		if n != i+1 || len(got) != v {
			t.Fatalf("loam_schema_migrations versions = %v, want 1..%d", got, v)
		}
	}
	// The Iceberg catalog tables exist, so other engines find them.
	for _, tbl := range []string{"iceberg_tables", "iceberg_namespace_properties"} {
		var n int
		must(t, tbl, db.QueryRow(rebind(d, "SELECT COUNT(*) FROM "+tbl)).Scan(&n))
	}
	// Reopening an up-to-date store changes nothing.
	st2 := openAt(t, storeURL, "file://"+t.TempDir())
	v2, err := st2.SchemaVersion(ctx)
	must(t, "SchemaVersion after reopen", err)
	if v2 != v {
		t.Errorf("SchemaVersion after reopen = %d, want %d", v2, v)
	}

	_, err = meta.Open(ctx, "mysql://localhost/x", "file://"+t.TempDir())
	wantErr(t, "Open mysql://", err, meta.ErrUnknownScheme)
}

func (s *suite) testNamespaces(t *testing.T) {
	ctx := context.Background()
	st, _ := s.open(t)

	must(t, "CreateNamespace public", st.CreateNamespace(ctx, "public", nil))
	must(t, "CreateNamespace sales", st.CreateNamespace(ctx, "sales", map[string]string{"owner": "ann", "comment": "money"}))
	must(t, "CreateNamespace odd.name", st.CreateNamespace(ctx, "odd.name", nil))
	wantErr(t, "CreateNamespace twice", st.CreateNamespace(ctx, "sales", nil), meta.ErrExists)

	got, err := st.ListNamespaces(ctx)
	must(t, "ListNamespaces", err)
	if want := []string{"odd.name", "public", "sales"}; !slices.Equal(got, want) {
		t.Errorf("ListNamespaces = %q, want %q", got, want)
	}

	props, err := st.NamespaceProperties(ctx, "sales")
	must(t, "NamespaceProperties", err)
	if want := map[string]string{"owner": "ann", "comment": "money"}; !reflect.DeepEqual(props, want) {
		t.Errorf("NamespaceProperties = %v, want %v", props, want)
	}
	props, err = st.NamespaceProperties(ctx, "public")
	must(t, "NamespaceProperties public", err)
	if len(props) != 0 {
		t.Errorf("NamespaceProperties public = %v, want none", props)
	}
	_, err = st.NamespaceProperties(ctx, "nope")
	wantErr(t, "NamespaceProperties of a missing namespace", err, meta.ErrNotFound)

	must(t, "SetNamespaceProperties", st.SetNamespaceProperties(ctx, "sales",
		map[string]string{"owner": "bob", "region": "eu"}, []string{"comment", "never-set"}))
	props, err = st.NamespaceProperties(ctx, "sales")
	must(t, "NamespaceProperties", err)
	if want := map[string]string{"owner": "bob", "region": "eu"}; !reflect.DeepEqual(props, want) {
		t.Errorf("NamespaceProperties after set = %v, want %v", props, want)
	}
	// Removing every property leaves the namespace in place.
	must(t, "remove all properties", st.SetNamespaceProperties(ctx, "sales", nil, []string{"owner", "region"}))
	props, err = st.NamespaceProperties(ctx, "sales")
	must(t, "NamespaceProperties after removing all", err)
	if len(props) != 0 {
		t.Errorf("NamespaceProperties after removing all = %v", props)
	}
	wantErr(t, "SetNamespaceProperties of a missing namespace",
		st.SetNamespaceProperties(ctx, "nope", map[string]string{"a": "b"}, nil), meta.ErrNotFound)
	wantErr(t, "SetNamespaceProperties removing in a missing namespace",
		st.SetNamespaceProperties(ctx, "nope", nil, []string{"a"}), meta.ErrNotFound)

	createTable(t, st, "sales", "orders")
	wantErr(t, "DropNamespace with a table", st.DropNamespace(ctx, "sales"), meta.ErrNotEmpty)
	must(t, "DropTable", st.Catalog().DropTable(ctx, table.Identifier{"sales", "orders"}))
	must(t, "DropNamespace", st.DropNamespace(ctx, "sales"))
	must(t, "DropNamespace odd.name", st.DropNamespace(ctx, "odd.name"))
	wantErr(t, "DropNamespace twice", st.DropNamespace(ctx, "sales"), meta.ErrNotFound)
	got, err = st.ListNamespaces(ctx)
	must(t, "ListNamespaces", err)
	if want := []string{"public"}; !slices.Equal(got, want) {
		t.Errorf("ListNamespaces after drops = %q, want %q", got, want)
	}
}

// independentCatalog is iceberg-go's SQL catalog on the store's database,
// opened with no Loam code, as PyIceberg or another engine would.
func independentCatalog(t *testing.T, storeURL, wh string) *sqlcat.Catalog {
	t.Helper()
	db, d := rawDB(t, storeURL)
	cat, err := sqlcat.NewCatalog(meta.CatalogName, db, d, iceberg.Properties{
		"warehouse":           wh,
		"init_catalog_tables": "false",
	})
	if err != nil {
		t.Fatalf("iceberg-go's sql catalog: %v", err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func (s *suite) testNamespacesAgree(t *testing.T) {
	ctx := context.Background()
	storeURL, wh := s.fresh(t)
	st := openAt(t, storeURL, wh)
	other := independentCatalog(t, storeURL, wh)

	must(t, "CreateNamespace", st.CreateNamespace(ctx, "loamside", map[string]string{"k": "v"}))
	must(t, "iceberg CreateNamespace", other.CreateNamespace(ctx, table.Identifier{"icebergside"}, iceberg.Properties{"x": "y"}))

	got, err := st.ListNamespaces(ctx)
	must(t, "ListNamespaces", err)
	if want := []string{"icebergside", "loamside"}; !slices.Equal(got, want) {
		t.Errorf("Store.ListNamespaces = %q, want %q", got, want)
	}
	idents, err := other.ListNamespaces(ctx, nil)
	must(t, "iceberg ListNamespaces", err)
	var names []string
	for _, id := range idents {
		names = append(names, strings.Join(id, "."))
	}
	slices.Sort(names)
	if want := []string{"icebergside", "loamside"}; !slices.Equal(names, want) {
		t.Errorf("iceberg ListNamespaces = %q, want %q", names, want)
	}
	p, err := other.LoadNamespaceProperties(ctx, table.Identifier{"loamside"})
	must(t, "iceberg LoadNamespaceProperties", err)
	if p["k"] != "v" {
		t.Errorf("iceberg sees properties %v, want k=v", p)
	}
	props, err := st.NamespaceProperties(ctx, "icebergside")
	must(t, "NamespaceProperties", err)
	if !reflect.DeepEqual(props, map[string]string{"x": "y"}) {
		t.Errorf("Store sees properties %v, want x=y", props)
	}
	must(t, "DropNamespace of iceberg's", st.DropNamespace(ctx, "icebergside"))
	ok, err := other.CheckNamespaceExists(ctx, table.Identifier{"icebergside"})
	must(t, "iceberg CheckNamespaceExists", err)
	if ok {
		t.Error("iceberg still sees a namespace the Store dropped")
	}
}

func (s *suite) testTablePointers(t *testing.T) {
	ctx := context.Background()
	st, _ := s.open(t)
	must(t, "CreateNamespace", st.CreateNamespace(ctx, "app", nil))
	must(t, "CreateNamespace", st.CreateNamespace(ctx, "empty", nil))
	tbl := createTable(t, st, "app", "events")
	createTable(t, st, "app", "accounts")

	names, err := st.ListTables(ctx, "app")
	must(t, "ListTables", err)
	if want := []string{"accounts", "events"}; !slices.Equal(names, want) {
		t.Errorf("ListTables = %q, want %q", names, want)
	}
	names, err = st.ListTables(ctx, "empty")
	must(t, "ListTables empty", err)
	if len(names) != 0 {
		t.Errorf("ListTables empty = %q", names)
	}
	_, err = st.ListTables(ctx, "nope")
	wantErr(t, "ListTables of a missing namespace", err, meta.ErrNotFound)

	p0, err := st.TablePointer(ctx, "app", "events")
	must(t, "TablePointer", err)
	if p0 != tbl.MetadataLocation() {
		t.Errorf("TablePointer = %q, want the created table's %q", p0, tbl.MetadataLocation())
	}
	_, err = st.TablePointer(ctx, "app", "nope")
	wantErr(t, "TablePointer of a missing table", err, meta.ErrNotFound)

	p1 := p0 + ".next"
	must(t, "SwapTablePointer", st.SwapTablePointer(ctx, "app", "events", p0, p1))
	got, err := st.TablePointer(ctx, "app", "events")
	must(t, "TablePointer", err)
	if got != p1 {
		t.Errorf("TablePointer after swap = %q, want %q", got, p1)
	}
	wantErr(t, "SwapTablePointer from a stale pointer", st.SwapTablePointer(ctx, "app", "events", p0, "x"), meta.ErrConflict)
	got, _ = st.TablePointer(ctx, "app", "events")
	if got != p1 {
		t.Errorf("a lost swap moved the pointer to %q", got)
	}
	wantErr(t, "SwapTablePointer of a missing table", st.SwapTablePointer(ctx, "app", "nope", p0, p1), meta.ErrNotFound)
	// The old pointer is kept as previous_metadata_location.
	must(t, "swap back", st.SwapTablePointer(ctx, "app", "events", p1, p0))
}

func (s *suite) testIcebergInterop(t *testing.T) {
	ctx := context.Background()
	storeURL, wh := s.fresh(t)
	st := openAt(t, storeURL, wh)
	must(t, "CreateNamespace", st.CreateNamespace(ctx, "public", nil))
	tbl := createTable(t, st, "public", "llm_calls")

	other := independentCatalog(t, storeURL, wh)
	var listed []string
	for id, err := range other.ListTables(ctx, table.Identifier{"public"}) {
		must(t, "iceberg ListTables", err)
		listed = append(listed, strings.Join(id, "."))
	}
	if want := []string{"public.llm_calls"}; !slices.Equal(listed, want) {
		t.Fatalf("iceberg ListTables = %q, want %q", listed, want)
	}
	loaded, err := other.LoadTable(ctx, table.Identifier{"public", "llm_calls"})
	must(t, "iceberg LoadTable", err)
	if loaded.MetadataLocation() != tbl.MetadataLocation() {
		t.Errorf("iceberg loads %q, Loam created %q", loaded.MetadataLocation(), tbl.MetadataLocation())
	}
	if !loaded.Schema().Equals(tbl.Schema()) {
		t.Errorf("iceberg loads schema %v, want %v", loaded.Schema(), tbl.Schema())
	}

	// A commit through iceberg-go's own catalog moves the pointer Loam reads.
	tx := loaded.NewTransaction()
	must(t, "SetProperties", tx.SetProperties(iceberg.Properties{"written-by": "iceberg-go"}))
	committed, err := tx.Commit(ctx)
	must(t, "iceberg commit", err)
	p, err := st.TablePointer(ctx, "public", "llm_calls")
	must(t, "TablePointer", err)
	if p != committed.MetadataLocation() || p == tbl.MetadataLocation() {
		t.Errorf("TablePointer = %q after iceberg's commit to %q", p, committed.MetadataLocation())
	}
	reloaded, err := st.Catalog().LoadTable(ctx, table.Identifier{"public", "llm_calls"})
	must(t, "LoadTable", err)
	if reloaded.Properties()["written-by"] != "iceberg-go" {
		t.Errorf("Loam's catalog does not see iceberg-go's commit: %v", reloaded.Properties())
	}
}

// testViews: views are Iceberg views that iceberg-go's own catalog lists
// and loads, with the SQL in dialect "postgresql"; they share the name
// space of tables and are not listed as tables.
func (s *suite) testViews(t *testing.T) {
	ctx := context.Background()
	storeURL, wh := s.fresh(t)
	st := openAt(t, storeURL, wh)
	must(t, "CreateNamespace", st.CreateNamespace(ctx, "public", nil))
	createTable(t, st, "public", "llm_calls")
	v := meta.View{SQL: "SELECT id FROM llm_calls", Schema: iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64}), Properties: map[string]string{"k": "v"}}
	must(t, "CreateView", st.CreateView(ctx, "public", "ids", v))
	wantErr(t, "CreateView twice", st.CreateView(ctx, "public", "ids", v), meta.ErrExists)
	wantErr(t, "CreateView over a table", st.CreateView(ctx, "public", "llm_calls", v), meta.ErrExists)
	wantErr(t, "CreateView in a missing namespace", st.CreateView(ctx, "nosuch", "ids", v), meta.ErrNotFound)
	got, err := st.View(ctx, "public", "ids")
	must(t, "View", err)
	if got.SQL != v.SQL || got.Properties["k"] != "v" || len(got.Schema.Fields()) != 1 {
		t.Fatalf("View = %+v, want %+v", got, v)
	}
	tables, err := st.ListTables(ctx, "public")
	must(t, "ListTables", err)
	views, err := st.ListViews(ctx, "public")
	must(t, "ListViews", err)
	if !slices.Equal(tables, []string{"llm_calls"}) || !slices.Equal(views, []string{"ids"}) {
		t.Fatalf("ListTables = %q, ListViews = %q", tables, views)
	}

	v.SQL = "SELECT id, msg FROM llm_calls"
	v.Schema = iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "msg", Type: iceberg.PrimitiveTypes.String})
	must(t, "ReplaceView", st.ReplaceView(ctx, "public", "ids", v))
	wantErr(t, "ReplaceView of a missing view", st.ReplaceView(ctx, "public", "nosuch", v), meta.ErrNotFound)

	other := independentCatalog(t, storeURL, wh)
	var listed []string
	for id, err := range other.ListViews(ctx, table.Identifier{"public"}) {
		must(t, "iceberg ListViews", err)
		listed = append(listed, strings.Join(id, "."))
	}
	if want := []string{"public.ids"}; !slices.Equal(listed, want) {
		t.Fatalf("iceberg ListViews = %q, want %q", listed, want)
	}
	md, err := other.LoadView(ctx, table.Identifier{"public", "ids"})
	must(t, "iceberg LoadView", err)
	cur := md.CurrentVersion()
	if len(cur.Representations) != 1 || cur.Representations[0].Dialect != meta.ViewDialect || cur.Representations[0].Sql != v.SQL ||
		len(md.Versions()) != 2 || len(md.CurrentSchema().Fields()) != 2 {
		t.Fatalf("iceberg LoadView: version %+v of %d, schema %v", cur, len(md.Versions()), md.CurrentSchema())
	}

	must(t, "DropView", st.DropView(ctx, "public", "ids"))
	wantErr(t, "DropView twice", st.DropView(ctx, "public", "ids"), meta.ErrNotFound)
	wantErr(t, "View after drop", func() error { _, err := st.View(ctx, "public", "ids"); return err }(), meta.ErrNotFound)
	wantErr(t, "DropView of a table", st.DropView(ctx, "public", "llm_calls"), meta.ErrNotFound)
}

func (s *suite) testSettings(t *testing.T) {
	ctx := context.Background()
	st, _ := s.open(t)
	full := meta.TableSettings{
		PartitionBy:     []string{"day(ts)", "bucket(16, tenant)"},
		SortedBy:        []string{"tenant", "model", "ts DESC"},
		Retention:       "180 days",
		RetentionColumn: "ts",
		CommitInterval:  2500 * time.Millisecond,
		Keys:            []string{"id"},
		Defaults:        map[string]string{"tenant": "'none'::text", "ts": "now()"},
		Writer:          meta.WriterExternal,
	}
	_, err := st.TableSettings(ctx, "public", "t")
	wantErr(t, "TableSettings before Put", err, meta.ErrNotFound)
	must(t, "PutTableSettings", st.PutTableSettings(ctx, "public", "t", full))
	got, err := st.TableSettings(ctx, "public", "t")
	must(t, "TableSettings", err)
	if !reflect.DeepEqual(got, full) {
		t.Errorf("TableSettings = %+v, want %+v", got, full)
	}
	// Put replaces; empty settings round-trip as empty.
	must(t, "PutTableSettings empty", st.PutTableSettings(ctx, "public", "t", meta.TableSettings{}))
	got, err = st.TableSettings(ctx, "public", "t")
	must(t, "TableSettings", err)
	if !reflect.DeepEqual(got, meta.TableSettings{}) {
		t.Errorf("TableSettings after replacing with empty = %+v", got)
	}
	// Settings are per table.
	must(t, "PutTableSettings other", st.PutTableSettings(ctx, "other", "t", full))
	must(t, "DeleteTableSettings", st.DeleteTableSettings(ctx, "public", "t"))
	_, err = st.TableSettings(ctx, "public", "t")
	wantErr(t, "TableSettings after Delete", err, meta.ErrNotFound)
	must(t, "DeleteTableSettings again", st.DeleteTableSettings(ctx, "public", "t"))
	got, err = st.TableSettings(ctx, "other", "t")
	must(t, "TableSettings other", err)
	if !reflect.DeepEqual(got, full) {
		t.Errorf("other table's settings = %+v, want %+v", got, full)
	}
}

func (s *suite) testRoles(t *testing.T) {
	ctx := context.Background()
	st, _ := s.open(t)
	roles, err := st.ListRoles(ctx)
	must(t, "ListRoles", err)
	loam := meta.Role{Name: "loam", Superuser: true, Login: true, Inherit: true, CreateRole: true, CreateDB: true}
	if want := []meta.Role{loam}; !reflect.DeepEqual(roles, want) {
		t.Errorf("ListRoles on a new store = %+v, want the bootstrap superuser %+v", roles, want)
	}
	until := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	reader := meta.Role{Name: "reader", Login: true, Inherit: true, Password: "SCRAM-SHA-256$4096:c2FsdA==$a:b", ValidUntil: until}
	group := meta.Role{Name: "analysts", Inherit: true}
	for _, r := range []meta.Role{reader, group} {
		must(t, "CreateRole "+r.Name, st.CreateRole(ctx, r))
	}
	wantErr(t, "CreateRole twice", st.CreateRole(ctx, meta.Role{Name: "reader"}), meta.ErrExists)
	roles, err = st.ListRoles(ctx)
	must(t, "ListRoles", err)
	if want := []meta.Role{group, loam, reader}; !reflect.DeepEqual(roles, want) {
		t.Errorf("ListRoles = %+v, want %+v", roles, want)
	}
	got, err := st.Role(ctx, "reader")
	must(t, "Role", err)
	if !reflect.DeepEqual(got, reader) {
		t.Errorf("Role = %+v, want %+v", got, reader)
	}
	_, err = st.Role(ctx, "nobody")
	wantErr(t, "Role of a missing role", err, meta.ErrNotFound)

	table := meta.Object{Kind: meta.KindTable, Schema: "public", Name: "llm_calls"}
	schema := meta.Object{Kind: meta.KindSchema, Name: "public"}
	v0, err := st.AuthzVersion(ctx)
	must(t, "AuthzVersion", err)
	g1 := meta.Grant{Grantee: "reader", Privilege: "SELECT", Object: table, Grantor: "loam"}
	g2 := meta.Grant{Grantee: "analysts", Privilege: "INSERT", Object: table, Grantor: "loam", GrantOption: true}
	for _, g := range []meta.Grant{g1, g2, g1} { // granting twice is fine
		must(t, "Grant", st.Grant(ctx, g))
	}
	wantErr(t, "Grant to a missing role", st.Grant(ctx, meta.Grant{Grantee: "nobody", Privilege: "SELECT", Object: table}), meta.ErrNotFound)
	if v, err := st.AuthzVersion(ctx); err != nil || v <= v0 {
		t.Errorf("AuthzVersion after grants = %d, %v; want more than %d", v, err, v0)
	}
	grants, err := st.Grants(ctx, &table)
	must(t, "Grants", err)
	if want := []meta.Grant{g2, g1}; !reflect.DeepEqual(grants, want) {
		t.Errorf("Grants = %+v, want %+v", grants, want)
	}
	// The bootstrap grant: PUBLIC may use schema public.
	grants, err = st.Grants(ctx, &schema)
	must(t, "Grants on public", err)
	if len(grants) != 1 || grants[0].Grantee != meta.PublicRole || grants[0].Privilege != "USAGE" {
		t.Errorf("Grants on schema public = %+v, want USAGE to PUBLIC", grants)
	}

	// The built-in authorizer: grants, membership, inheritance, owners.
	az := meta.NewAuthorizer(st)
	allowed := func(role, priv string, obj meta.Object) bool {
		t.Helper()
		ok, err := az.Allowed(ctx, meta.Principal{Name: role}, priv, obj)
		must(t, "Allowed", err)
		return ok
	}
	if !allowed("reader", "SELECT", table) || allowed("reader", "INSERT", table) || !allowed("reader", "USAGE", schema) {
		t.Errorf("reader's privileges are wrong before membership")
	}
	must(t, "GrantRole", st.GrantRole(ctx, meta.Membership{Role: "analysts", Member: "reader", Grantor: "loam"}))
	wantErr(t, "GrantRole of a missing role", st.GrantRole(ctx, meta.Membership{Role: "nobody", Member: "reader"}), meta.ErrNotFound)
	if !allowed("reader", "INSERT", table) {
		t.Errorf("a member does not inherit its group's INSERT")
	}
	must(t, "AlterRole noinherit", st.AlterRole(ctx, "reader", func(r meta.Role) (meta.Role, error) { r.Inherit = false; return r, nil }))
	if allowed("reader", "INSERT", table) {
		t.Errorf("a NOINHERIT member uses its group's INSERT")
	}
	if !allowed("loam", "DELETE", table) || allowed("analysts", "DELETE", table) {
		t.Errorf("owner (bootstrap) or non-owner DELETE is wrong")
	}
	must(t, "SetOwner", st.SetOwner(ctx, table, "analysts"))
	if !allowed("analysts", "DELETE", table) {
		t.Errorf("the owner may not DELETE")
	}

	// Renames follow the role everywhere; drops clear what it held.
	must(t, "AlterRole rename", st.AlterRole(ctx, "analysts", func(r meta.Role) (meta.Role, error) { r.Name = "team"; return r, nil }))
	wantErr(t, "rename onto a taken name", st.AlterRole(ctx, "team", func(r meta.Role) (meta.Role, error) { r.Name = "reader"; return r, nil }), meta.ErrExists)
	if owner, err := st.Owner(ctx, table); err != nil || owner != "team" {
		t.Errorf("owner after rename = %q, %v", owner, err)
	}
	ms, err := st.Memberships(ctx)
	must(t, "Memberships", err)
	if len(ms) != 1 || ms[0].Role != "team" || ms[0].Member != "reader" {
		t.Errorf("Memberships after rename = %+v", ms)
	}
	must(t, "RevokeRole", st.RevokeRole(ctx, "team", "reader"))
	must(t, "RevokeRole again", st.RevokeRole(ctx, "team", "reader"))
	must(t, "Revoke grant option", st.Revoke(ctx, meta.Grant{Grantee: "team", Privilege: "INSERT", Object: table, GrantOption: true}))
	grants, err = st.Grants(ctx, &table)
	must(t, "Grants", err)
	if len(grants) != 2 || grants[1].Grantee != "team" || grants[1].GrantOption {
		t.Errorf("Grants after REVOKE GRANT OPTION FOR = %+v", grants)
	}
	must(t, "Revoke", st.Revoke(ctx, g1))
	must(t, "Revoke again", st.Revoke(ctx, g1))

	moved := meta.Object{Kind: meta.KindTable, Schema: "public", Name: "calls"}
	must(t, "MoveObject", st.MoveObject(ctx, table, moved))
	if owner, err := st.Owner(ctx, moved); err != nil || owner != "team" {
		t.Errorf("owner after move = %q, %v", owner, err)
	}
	must(t, "ForgetObject", st.ForgetObject(ctx, moved))
	_, err = st.Owner(ctx, moved)
	wantErr(t, "Owner of a forgotten object", err, meta.ErrNotFound)
	grants, err = st.Grants(ctx, &moved)
	must(t, "Grants", err)
	if len(grants) != 0 {
		t.Errorf("grants left on a forgotten object: %+v", grants)
	}

	d := meta.DefaultPrivilege{Owner: "team", Schema: "public", Kind: meta.KindTable, Grantee: "reader", Privilege: "SELECT"}
	must(t, "SetDefaultPrivilege", st.SetDefaultPrivilege(ctx, d, true))
	dps, err := st.DefaultPrivileges(ctx)
	must(t, "DefaultPrivileges", err)
	if want := []meta.DefaultPrivilege{d}; !reflect.DeepEqual(dps, want) {
		t.Errorf("DefaultPrivileges = %+v, want %+v", dps, want)
	}
	must(t, "Grant to drop", st.Grant(ctx, g1))
	must(t, "DropRole", st.DropRole(ctx, "reader"))
	wantErr(t, "DropRole twice", st.DropRole(ctx, "reader"), meta.ErrNotFound)
	dps, err = st.DefaultPrivileges(ctx)
	must(t, "DefaultPrivileges", err)
	if len(dps) != 0 {
		t.Errorf("a dropped grantee's default privileges remain: %+v", dps)
	}
	// A role made again under a dropped name starts with no grants.
	must(t, "CreateRole again", st.CreateRole(ctx, meta.Role{Name: "reader", Login: true}))
	grants, err = st.Grants(ctx, nil)
	must(t, "Grants", err)
	for _, g := range grants {
		if g.Grantee == "reader" {
			t.Errorf("a re-created role inherited grant %+v", g)
		}
	}

	// The audit trail keeps order and fields.
	t0 := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	for i, k := range []string{meta.AuditLogin, meta.AuditLoginFailed, meta.AuditGrant} {
		must(t, "AppendAudit", st.AppendAudit(ctx, meta.AuditEvent{Time: t0.Add(time.Duration(i) * time.Second),
			Role: "reader", Address: "127.0.0.1:1", Kind: k, Statement: "s", OK: i != 1, Detail: "d"}))
	}
	evs, err := st.Audit(ctx, 2)
	must(t, "Audit", err)
	if len(evs) != 2 || evs[0].Kind != meta.AuditLoginFailed || evs[0].OK || evs[1].Kind != meta.AuditGrant ||
		!evs[1].Time.Equal(t0.Add(2*time.Second)) {
		t.Errorf("Audit(2) = %+v", evs)
	}
}

func (s *suite) testLeases(t *testing.T) {
	ctx := context.Background()
	st, _ := s.open(t)
	a := meta.Holder{ID: "server-a", Address: "10.0.0.1:5433"}
	b := meta.Holder{ID: "server-b", Address: "10.0.0.2:5433"}

	_, err := st.Lease(ctx, "public", "t")
	wantErr(t, "Lease before any", err, meta.ErrNotFound)

	before := time.Now()
	l, err := st.AcquireLease(ctx, "public", "t", a, time.Minute)
	must(t, "AcquireLease", err)
	if l.Holder != a || l.Expires.Before(before.Add(time.Minute-time.Second)) || l.Expires.After(time.Now().Add(time.Minute)) {
		t.Errorf("AcquireLease = %+v, want holder %v until about a minute from now", l, a)
	}
	got, err := st.Lease(ctx, "public", "t")
	must(t, "Lease", err)
	if got.Holder != a || !got.Expires.Equal(l.Expires) {
		t.Errorf("Lease = %+v, want %+v", got, l)
	}

	// Renewal by the holder moves the expiry on.
	time.Sleep(5 * time.Millisecond)
	l2, err := st.AcquireLease(ctx, "public", "t", a, time.Minute)
	must(t, "renew", err)
	if !l2.Expires.After(l.Expires) || l2.Holder != a {
		t.Errorf("renewed lease = %+v, want later than %v", l2, l.Expires)
	}

	// Another server is refused and told who writes.
	held, err := st.AcquireLease(ctx, "public", "t", b, time.Minute)
	wantErr(t, "AcquireLease by another", err, meta.ErrLeaseHeld)
	if held.Holder != a || !held.Expires.Equal(l2.Expires) {
		t.Errorf("refused AcquireLease returned %+v, want the holder's lease %+v", held, l2)
	}
	if !strings.Contains(err.Error(), a.Address) {
		t.Errorf("refusal %q does not name the holder's address %s", err, a.Address)
	}
	// Releasing someone else's lease does nothing.
	must(t, "ReleaseLease by non-holder", st.ReleaseLease(ctx, "public", "t", b.ID))
	got, err = st.Lease(ctx, "public", "t")
	must(t, "Lease", err)
	if got.Holder != a {
		t.Errorf("a non-holder's release changed the lease to %+v", got)
	}
	// Leases are per table.
	_, err = st.AcquireLease(ctx, "public", "u", b, time.Minute)
	must(t, "AcquireLease of another table", err)
	_, err = st.AcquireLease(ctx, "other", "t", b, time.Minute)
	must(t, "AcquireLease of a same-named table in another namespace", err)

	// Release frees the table at once.
	must(t, "ReleaseLease", st.ReleaseLease(ctx, "public", "t", a.ID))
	_, err = st.Lease(ctx, "public", "t")
	wantErr(t, "Lease after release", err, meta.ErrNotFound)
	must(t, "ReleaseLease again", st.ReleaseLease(ctx, "public", "t", a.ID))

	// A lease not renewed is taken over after it expires, and not before.
	const ttl = 300 * time.Millisecond
	l, err = st.AcquireLease(ctx, "public", "t", b, ttl)
	must(t, "AcquireLease short", err)
	if _, err := st.AcquireLease(ctx, "public", "t", a, time.Minute); !errors.Is(err, meta.ErrLeaseHeld) {
		if time.Now().Before(l.Expires) {
			t.Fatalf("AcquireLease before expiry: got %v, want ErrLeaseHeld", err)
		}
	}
	time.Sleep(time.Until(l.Expires) + 20*time.Millisecond)
	l, err = st.AcquireLease(ctx, "public", "t", a, time.Minute)
	must(t, "AcquireLease after expiry", err)
	if l.Holder != a {
		t.Errorf("takeover lease = %+v, want holder %v", l, a)
	}
	_, err = st.AcquireLease(ctx, "public", "t", b, time.Minute)
	wantErr(t, "old holder after takeover", err, meta.ErrLeaseHeld)

	if _, err := st.AcquireLease(ctx, "public", "t", a, 0); err == nil {
		t.Error("AcquireLease with ttl 0 succeeded")
	}
}

// testConcurrentSwap races many goroutines on one pointer, round after
// round, all starting from the same pointer: exactly one must win each
// round, and the pointer must follow the winners.
func (s *suite) testConcurrentSwap(t *testing.T) {
	const goroutines, rounds = 16, 20
	ctx := context.Background()
	st, _ := s.open(t)
	must(t, "CreateNamespace", st.CreateNamespace(ctx, "public", nil))
	createTable(t, st, "public", "hot")
	cur, err := st.TablePointer(ctx, "public", "hot")
	must(t, "TablePointer", err)

	var chain []string
	for r := range rounds {
		var (
			wg      sync.WaitGroup
			start   = make(chan struct{})
			mu      sync.Mutex
			winners []string
			errs    []error
		)
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next := fmt.Sprintf("round-%d/goroutine-%d.metadata.json", r, g)
				<-start
				err := st.SwapTablePointer(ctx, "public", "hot", cur, next)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					winners = append(winners, next)
				case !errors.Is(err, meta.ErrConflict):
					errs = append(errs, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("round %d: swaps failed other than by conflict: %v", r, errs)
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners %q, want exactly one", r, len(winners), winners)
		}
		got, err := st.TablePointer(ctx, "public", "hot")
		must(t, "TablePointer", err)
		if got != winners[0] {
			t.Fatalf("round %d: pointer %q, winner %q", r, got, winners[0])
		}
		chain = append(chain, winners[0])
		cur = got
	}
	if cur != chain[len(chain)-1] || len(chain) != rounds {
		t.Fatalf("pointer %q is not the end of the winners' chain %q", cur, chain)
	}
}

func (s *suite) testConcurrentLease(t *testing.T) {
	const goroutines = 16
	ctx := context.Background()
	st, _ := s.open(t)
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		mu    sync.Mutex
		won   []meta.Holder
		seen  = map[meta.Holder]int{}
		errs  []error
	)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := meta.Holder{ID: fmt.Sprintf("server-%d", g), Address: fmt.Sprintf("10.0.0.%d:5433", g)}
			<-start
			l, err := st.AcquireLease(ctx, "public", "contended", h, time.Minute)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, h)
			case errors.Is(err, meta.ErrLeaseHeld):
				seen[l.Holder]++
			default:
				errs = append(errs, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("AcquireLease failed other than by ErrLeaseHeld: %v", errs)
	}
	if len(won) != 1 {
		t.Fatalf("%d servers got the lease (%v), want exactly one", len(won), won)
	}
	if seen[won[0]] != goroutines-1 || len(seen) != 1 {
		t.Errorf("refused servers were told the holders %v, want %v each time", seen, won[0])
	}
	l, err := st.Lease(ctx, "public", "contended")
	must(t, "Lease", err)
	if l.Holder != won[0] {
		t.Errorf("Lease = %+v, winner %v", l, won[0])
	}
}

// testConcurrentOpen opens one empty store from several goroutines at once,
// as servers starting together do: every Open succeeds and each migration
// is applied once.
func (s *suite) testConcurrentOpen(t *testing.T) {
	const openers = 4
	storeURL, wh := s.fresh(t)
	var (
		wg     sync.WaitGroup
		stores = make([]meta.Store, openers)
		errs   = make([]error, openers)
	)
	for i := range openers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = meta.Open(context.Background(), storeURL, wh)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
			continue
		}
		stores[i].Close()
	}
	st := openAt(t, storeURL, wh)
	v, err := st.SchemaVersion(context.Background())
	must(t, "SchemaVersion", err)
	db, _ := rawDB(t, storeURL)
	var n int
	must(t, "count migrations", db.QueryRow("SELECT COUNT(*) FROM loam_schema_migrations").Scan(&n))
	if v != meta.LatestSchemaVersion() || n != v {
		t.Errorf("after concurrent opens: version %d with %d rows, want %d", v, n, meta.LatestSchemaVersion())
	}
}

// testMigrateFromPrevious brings stores left at every earlier version up to
// date, keeping what they hold.
func (s *suite) testMigrateFromPrevious(t *testing.T) {
	ctx := context.Background()
	latest := meta.LatestSchemaVersion()
	if latest < 2 {
		t.Skip("only one schema version")
	}
	for from := latest - 1; from >= 1; from-- {
		t.Run(fmt.Sprint("from", from), func(t *testing.T) {
			storeURL, wh := s.fresh(t)
			must(t, "Migrate", meta.Migrate(ctx, storeURL, from))
			db, d := rawDB(t, storeURL)
			var v int
			must(t, "read version", db.QueryRow("SELECT MAX(version) FROM loam_schema_migrations").Scan(&v))
			if v != from {
				t.Fatalf("Migrate(%d) left version %d", from, v)
			}
			// Version 1 has the catalog and settings: data an older
			// binary wrote must survive the upgrade.
			_, err := db.Exec(rebind(d, `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value)
				VALUES (?, 'old', 'exists', 'true')`), meta.CatalogName)
			must(t, "insert namespace", err)
			_, err = db.Exec(rebind(d, `INSERT INTO loam_table_settings (namespace, name, settings)
				VALUES ('old', 't', ?)`), `{"sorted_by":["ts"],"commit_interval":"1s"}`)
			must(t, "insert settings", err)

			st := openAt(t, storeURL, wh)
			got, err := st.SchemaVersion(ctx)
			must(t, "SchemaVersion", err)
			if got != latest {
				t.Fatalf("SchemaVersion after Open = %d, want %d", got, latest)
			}
			ts, err := st.TableSettings(ctx, "old", "t")
			must(t, "TableSettings written before the upgrade", err)
			if want := (meta.TableSettings{SortedBy: []string{"ts"}, CommitInterval: time.Second}); !reflect.DeepEqual(ts, want) {
				t.Errorf("TableSettings = %+v, want %+v", ts, want)
			}
			ns, err := st.ListNamespaces(ctx)
			must(t, "ListNamespaces", err)
			if !slices.Equal(ns, []string{"old"}) {
				t.Errorf("ListNamespaces = %q", ns)
			}
			// What the later versions added works.
			must(t, "CreateRole", st.CreateRole(ctx, meta.Role{Name: "r"}))
			_, err = st.AcquireLease(ctx, "old", "t", meta.Holder{ID: "a", Address: "x"}, time.Minute)
			must(t, "AcquireLease", err)
			must(t, "CreateSequence", st.CreateSequence(ctx, "old", "s", meta.Sequence{Type: "bigint", Start: 1, Increment: 1, Min: 1, Max: 9, Last: 1}))
		})
	}
}

func (s *suite) testStoreTooNew(t *testing.T) {
	ctx := context.Background()
	storeURL, wh := s.fresh(t)
	st, err := meta.Open(ctx, storeURL, wh)
	must(t, "Open", err)
	must(t, "Close", st.Close())

	// A newer binary migrated the store one step further.
	db, d := rawDB(t, storeURL)
	var at any = time.Now()
	if d == sqlcat.SQLite {
		at = time.Now().UnixMicro()
	}
	newer := meta.LatestSchemaVersion() + 1
	_, err = db.Exec(rebind(d, "INSERT INTO loam_schema_migrations (version, name, applied_at) VALUES (?, 'from the future', ?)"), newer, at)
	must(t, "insert future version", err)

	_, err = meta.Open(ctx, storeURL, wh)
	wantErr(t, "Open of a newer store", err, meta.ErrStoreTooNew)
	want := fmt.Sprintf("metastore schema version %d is newer than this loam binary (knows %d); upgrade loam", newer, meta.LatestSchemaVersion())
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	wantErr(t, "Migrate of a newer store", meta.Migrate(ctx, storeURL, meta.LatestSchemaVersion()), meta.ErrStoreTooNew)
	// Nothing was written.
	var n int
	must(t, "count", db.QueryRow("SELECT COUNT(*) FROM loam_schema_migrations").Scan(&n))
	if n != newer {
		t.Errorf("%d migration rows after refusals, want %d", n, newer)
	}
}

// testAdopt opens a database where iceberg-go's catalog (or a Loam from
// before the store had migrations) already created the catalog tables: the
// store adopts them and keeps what they hold.
func (s *suite) testAdopt(t *testing.T) {
	ctx := context.Background()
	storeURL, wh := s.fresh(t)
	db, d := rawDB(t, storeURL)
	cat, err := sqlcat.NewCatalog(meta.CatalogName, db, d, iceberg.Properties{"warehouse": wh, "init_catalog_tables": "true"})
	must(t, "iceberg-go's sql catalog", err)
	must(t, "iceberg CreateNamespace", cat.CreateNamespace(ctx, table.Identifier{"legacy"}, nil))
	tbl, err := cat.CreateTable(ctx, table.Identifier{"legacy", "t"}, testSchema)
	must(t, "iceberg CreateTable", err)

	st := openAt(t, storeURL, wh)
	v, err := st.SchemaVersion(ctx)
	must(t, "SchemaVersion", err)
	if v != meta.LatestSchemaVersion() {
		t.Errorf("SchemaVersion = %d, want %d", v, meta.LatestSchemaVersion())
	}
	ns, err := st.ListNamespaces(ctx)
	must(t, "ListNamespaces", err)
	if !slices.Equal(ns, []string{"legacy"}) {
		t.Errorf("ListNamespaces = %q, want [legacy]", ns)
	}
	p, err := st.TablePointer(ctx, "legacy", "t")
	must(t, "TablePointer", err)
	if p != tbl.MetadataLocation() {
		t.Errorf("TablePointer = %q, want %q", p, tbl.MetadataLocation())
	}
	// The namespace had no marker of Loam's making: removing properties
	// must still leave it in place.
	must(t, "SetNamespaceProperties", st.SetNamespaceProperties(ctx, "legacy", map[string]string{"a": "1"}, nil))
	must(t, "remove", st.SetNamespaceProperties(ctx, "legacy", nil, []string{"a"}))
	ns, err = st.ListNamespaces(ctx)
	must(t, "ListNamespaces", err)
	if !slices.Equal(ns, []string{"legacy"}) {
		t.Errorf("ListNamespaces after removing properties = %q", ns)
	}
}
