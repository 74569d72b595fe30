package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	restcat "github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/rest"
	"github.com/loamdb/loam/storage/s3test"
)

// fixture is a REST catalog on loopback over a fresh SQLite metastore and
// file:// warehouse.
type fixture struct {
	st  meta.Store
	url string
}

// newFixture starts the catalog; authz, when given, makes its
// Authorizer over the fixture's Store.
func newFixture(t *testing.T, opts rest.Options, authz ...func(meta.Store) meta.Authorizer) *fixture {
	t.Helper()
	dir := t.TempDir()
	// The warehouse is on the test S3 server under LOAM_TEST_WAREHOUSE=s3;
	// its settings and keys then reach the client only through the
	// load-table config, as an outside reader's would.
	wh, io := s3test.Warehouse(t, dir)
	st, err := meta.Open(context.Background(), "sqlite://"+filepath.Join(dir, "meta.db"), wh, io)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := maps.Clone(io)
	if cfg == nil {
		cfg = map[string]string{}
	}
	maps.Copy(cfg, opts.TableConfig)
	opts.TableConfig = cfg
	if opts.Warehouse == "" {
		opts.Warehouse = wh
	}
	for _, mk := range authz {
		opts.Authorizer = mk(st)
	}
	srv := httptest.NewServer(rest.New(st, opts))
	t.Cleanup(srv.Close)
	return &fixture{st: st, url: srv.URL}
}

// client is iceberg-go's REST catalog client, as an outside engine uses it.
func (f *fixture) client(t *testing.T, opts ...restcat.Option) *restcat.Catalog {
	t.Helper()
	c, err := restcat.NewCatalog(context.Background(), "loam", f.url, opts...)
	if err != nil {
		t.Fatalf("rest.NewCatalog: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "msg", Type: iceberg.PrimitiveTypes.String},
)

// rows is an Arrow batch of (id, msg) rows for testSchema.
func rows(t *testing.T, tbl *table.Table, ids []int64, msgs []string) arrow.RecordBatch {
	t.Helper()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.StringBuilder).AppendValues(msgs, nil)
	return b.NewRecordBatch()
}

func appendRows(ctx context.Context, t *testing.T, tbl *table.Table, ids []int64, msgs []string) (*table.Table, error) {
	t.Helper()
	rec := rows(t, tbl, ids, msgs)
	defer rec.Release()
	rdr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	tx := tbl.NewTransaction()
	if err := tx.Append(ctx, rdr, nil); err != nil {
		t.Fatalf("Append: %v", err)
	}
	return tx.Commit(ctx)
}

// scanIDs reads a table through the client and returns its ids, sorted.
func scanIDs(ctx context.Context, t *testing.T, tbl *table.Table) []int64 {
	t.Helper()
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	defer at.Release()
	var ids []int64
	col := at.Column(at.Schema().FieldIndices("id")[0])
	for _, ch := range col.Data().Chunks() {
		ids = append(ids, ch.(*array.Int64).Int64Values()...)
	}
	slices.Sort(ids)
	return ids
}

func collect(t *testing.T, seq func(func(table.Identifier, error) bool)) []string {
	t.Helper()
	var out []string
	for id, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join(id, "."))
	}
	return out
}

func TestNamespaces(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{})
	c := f.client(t)

	if err := c.CreateNamespace(ctx, table.Identifier{"app"}, iceberg.Properties{"owner": "ana"}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, table.Identifier{"app"}, nil); !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		t.Errorf("creating app twice: %v, want ErrNamespaceAlreadyExists", err)
	}
	if err := c.CreateNamespace(ctx, table.Identifier{"a", "b"}, nil); err == nil {
		t.Error("a nested namespace was created")
	}
	nss, err := c.ListNamespaces(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(nss, func(id table.Identifier) bool { return slices.Equal(id, table.Identifier{"app"}) }) {
		t.Errorf("ListNamespaces = %v, want app among them", nss)
	}
	if sub, err := c.ListNamespaces(ctx, table.Identifier{"app"}); err != nil || len(sub) != 0 {
		t.Errorf("ListNamespaces under app = %v, %v; want none", sub, err)
	}
	if _, err := c.ListNamespaces(ctx, table.Identifier{"nope"}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Errorf("ListNamespaces under a missing parent: %v", err)
	}
	props, err := c.LoadNamespaceProperties(ctx, table.Identifier{"app"})
	if err != nil || props["owner"] != "ana" {
		t.Errorf("LoadNamespaceProperties = %v, %v", props, err)
	}
	sum, err := c.UpdateNamespaceProperties(ctx, table.Identifier{"app"}, []string{"owner", "absent"}, iceberg.Properties{"team": "data"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Updated, []string{"team"}) || !slices.Equal(sum.Removed, []string{"owner"}) || !slices.Equal(sum.Missing, []string{"absent"}) {
		t.Errorf("UpdateNamespaceProperties = %+v", sum)
	}
	if ok, err := c.CheckNamespaceExists(ctx, table.Identifier{"app"}); !ok || err != nil {
		t.Errorf("CheckNamespaceExists(app) = %v, %v", ok, err)
	}
	if ok, err := c.CheckNamespaceExists(ctx, table.Identifier{"nope"}); ok || err != nil {
		t.Errorf("CheckNamespaceExists(nope) = %v, %v", ok, err)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"app", "t"}, testSchema); err != nil {
		t.Fatal(err)
	}
	if err := c.DropNamespace(ctx, table.Identifier{"app"}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Errorf("dropping a namespace with a table: %v, want ErrNamespaceNotEmpty", err)
	}
	if err := c.DropTable(ctx, table.Identifier{"app", "t"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DropNamespace(ctx, table.Identifier{"app"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DropNamespace(ctx, table.Identifier{"app"}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Errorf("dropping a dropped namespace: %v", err)
	}
}

// TestExternalTable: a table created through the catalog is external; the
// client appends to it, renames it, reads it back and drops it.
func TestExternalTable(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{})
	must(t, f.st.CreateNamespace(ctx, "app", nil))
	c := f.client(t)

	tbl, err := c.CreateTable(ctx, table.Identifier{"app", "events"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"app", "events"}, testSchema); !errors.Is(err, catalog.ErrTableAlreadyExists) {
		t.Errorf("creating events twice: %v", err)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"nope", "events"}, testSchema); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Errorf("creating in a missing namespace: %v", err)
	}
	ts, err := f.st.TableSettings(ctx, "app", "events")
	if err != nil || ts.Writer != meta.WriterExternal {
		t.Errorf("settings of a table created through REST = %+v, %v; want writer external", ts, err)
	}

	if tbl, err = appendRows(ctx, t, tbl, []int64{1, 2}, []string{"a", "b"}); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if tbl, err = appendRows(ctx, t, tbl, []int64{3}, []string{"c"}); err != nil {
		t.Fatalf("second commit: %v", err)
	}
	ptr, err := f.st.TablePointer(ctx, "app", "events")
	if err != nil || ptr != tbl.MetadataLocation() {
		t.Errorf("pointer after commit = %q, %v; want the commit's %q", ptr, err, tbl.MetadataLocation())
	}

	if got := collect(t, c.ListTables(ctx, table.Identifier{"app"})); !slices.Equal(got, []string{"app.events"}) {
		t.Errorf("ListTables = %v", got)
	}
	loaded, err := c.LoadTable(ctx, table.Identifier{"app", "events"})
	if err != nil {
		t.Fatal(err)
	}
	if got := scanIDs(ctx, t, loaded); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("scan = %v, want [1 2 3]", got)
	}
	if _, err := c.LoadTable(ctx, table.Identifier{"app", "nope"}); !errors.Is(err, catalog.ErrNoSuchTable) {
		t.Errorf("loading a missing table: %v", err)
	}

	if _, err := c.RenameTable(ctx, table.Identifier{"app", "events"}, table.Identifier{"app", "renamed"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.CheckTableExists(ctx, table.Identifier{"app", "events"}); ok {
		t.Error("the old name exists after rename")
	}
	if ts, err := f.st.TableSettings(ctx, "app", "renamed"); err != nil || ts.Writer != meta.WriterExternal {
		t.Errorf("settings after rename = %+v, %v", ts, err)
	}
	if err := c.PurgeTable(ctx, table.Identifier{"app", "renamed"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.CheckTableExists(ctx, table.Identifier{"app", "renamed"}); ok {
		t.Error("the table exists after drop")
	}
	if _, err := f.st.TableSettings(ctx, "app", "renamed"); !errors.Is(err, meta.ErrNotFound) {
		t.Errorf("settings after drop: %v, want none", err)
	}
}

// loamTable makes a table as Loam's CREATE TABLE does: in the catalog,
// with settings that name no writer (Loam's link writes it).
func loamTable(t *testing.T, st meta.Store, ns, name string) *table.Table {
	t.Helper()
	ctx := context.Background()
	must(t, st.PutTableSettings(ctx, ns, name, meta.TableSettings{}))
	tbl, err := st.Catalog().CreateTable(ctx, table.Identifier{ns, name}, testSchema,
		// One attempt (iceberg-go's default too): the refusal is final.
		catalog.WithProperties(iceberg.Properties{"commit.retry.num-retries": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestLoamTableRefusesCommits: one writer per table.
func TestLoamTableRefusesCommits(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{})
	must(t, f.st.CreateNamespace(ctx, "app", nil))
	loamTable(t, f.st, "app", "calls")
	before, _ := f.st.TablePointer(ctx, "app", "calls")
	c := f.client(t)

	tbl, err := c.LoadTable(ctx, table.Identifier{"app", "calls"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = appendRows(ctx, t, tbl, []int64{1}, []string{"x"})
	if !errors.Is(err, restcat.ErrCommitFailed) || !strings.Contains(err.Error(), "written by Loam") ||
		!strings.Contains(err.Error(), "writer = 'external'") {
		t.Fatalf("commit to a Loam table: %v; want a 409 CommitFailedException saying Loam writes it", err)
	}
	if after, _ := f.st.TablePointer(ctx, "app", "calls"); after != before {
		t.Errorf("a refused commit moved the pointer from %q to %q", before, after)
	}
	if err := c.DropTable(ctx, table.Identifier{"app", "calls"}); !errors.Is(err, restcat.ErrRESTError) {
		t.Errorf("dropping a Loam table through REST: %v, want refused", err)
	}

	// A Loam table briefly without its settings row (a DROP being rolled
	// back) is still Loam's: its properties say Loam made it. A table
	// another engine made through the SQL catalog layout is external.
	for _, c2 := range []struct {
		name   string
		props  iceberg.Properties
		refuse bool
	}{
		{"rowless_loam", iceberg.Properties{meta.LoamTypesProperty: "{}", "commit.retry.num-retries": "0"}, true},
		{"outsiders", iceberg.Properties{"commit.retry.num-retries": "0"}, false},
	} {
		if _, err := f.st.Catalog().CreateTable(ctx, table.Identifier{"app", c2.name}, testSchema, catalog.WithProperties(c2.props)); err != nil {
			t.Fatal(err)
		}
		tb, err := c.LoadTable(ctx, table.Identifier{"app", c2.name})
		if err != nil {
			t.Fatal(err)
		}
		_, err = appendRows(ctx, t, tb, []int64{1}, []string{"x"})
		if refused := errors.Is(err, restcat.ErrCommitFailed); refused != c2.refuse || (!c2.refuse && err != nil) {
			t.Errorf("commit to %s: %v; want refused %v", c2.name, err, c2.refuse)
		}
	}

	// WITH (writer = 'external'): the same table takes the commit.
	must(t, f.st.PutTableSettings(ctx, "app", "calls", meta.TableSettings{Writer: meta.WriterExternal}))
	if _, err := appendRows(ctx, t, tbl, []int64{1}, []string{"x"}); err != nil {
		t.Fatalf("commit to an external table: %v", err)
	}
}

// TestTransaction: all tables commit or none.
func TestTransaction(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{})
	must(t, f.st.CreateNamespace(ctx, "app", nil))
	c := f.client(t)
	a, err := c.CreateTable(ctx, table.Identifier{"app", "a"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.CreateTable(ctx, table.Identifier{"app", "b"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := a.MetadataLocation(), b.MetadataLocation()

	props := func(k string) []table.Update {
		return []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": k})}
	}
	// b's requirement names another table's UUID: neither changes.
	err = c.CommitTransaction(ctx, []table.TableCommit{
		{Identifier: table.Identifier{"app", "a"}, Requirements: []table.Requirement{table.AssertTableUUID(a.Metadata().TableUUID())}, Updates: props("1")},
		{Identifier: table.Identifier{"app", "b"}, Requirements: []table.Requirement{table.AssertTableUUID(a.Metadata().TableUUID())}, Updates: props("1")},
	})
	if !errors.Is(err, restcat.ErrCommitFailed) {
		t.Fatalf("transaction with a failing requirement: %v, want 409", err)
	}
	if got, _ := f.st.TablePointer(ctx, "app", "a"); got != pa {
		t.Errorf("a failed transaction moved a to %q", got)
	}
	if got, _ := f.st.TablePointer(ctx, "app", "b"); got != pb {
		t.Errorf("a failed transaction moved b to %q", got)
	}

	must(t, c.CommitTransaction(ctx, []table.TableCommit{
		{Identifier: table.Identifier{"app", "a"}, Requirements: []table.Requirement{table.AssertTableUUID(a.Metadata().TableUUID())}, Updates: props("2")},
		{Identifier: table.Identifier{"app", "b"}, Requirements: []table.Requirement{table.AssertTableUUID(b.Metadata().TableUUID())}, Updates: props("2")},
	}))
	for _, n := range []string{"a", "b"} {
		tbl, err := c.LoadTable(ctx, table.Identifier{"app", n})
		if err != nil {
			t.Fatal(err)
		}
		if got := tbl.Properties()["k"]; got != "2" {
			t.Errorf("%s after the transaction: k = %q, want 2", n, got)
		}
	}
}

// TestAuth: with a password every route wants a token from the OAuth2
// client-credentials endpoint.
func TestAuth(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{Password: "s3cret"})

	rsp, err := http.Get(f.url + "/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	rsp.Body.Close()
	if rsp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", rsp.StatusCode)
	}
	if _, err := restcat.NewCatalog(ctx, "loam", f.url); !errors.Is(err, restcat.ErrUnauthorized) {
		t.Errorf("client without credentials: %v, want 401", err)
	}
	if _, err := restcat.NewCatalog(ctx, "loam", f.url, restcat.WithCredential("loam:wrong")); err == nil {
		t.Error("client with a wrong secret connected")
	}
	if _, err := restcat.NewCatalog(ctx, "loam", f.url, restcat.WithOAuthToken("made-up")); !errors.Is(err, restcat.ErrUnauthorized) {
		t.Errorf("client with a made-up token: %v, want 401", err)
	}
	// A live token is exchanged for a fresh one (how Java clients refresh).
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"loam"}, "client_secret": {"s3cret"}}
	tok := token(t, f.url, form)
	form = url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}, "subject_token": {tok},
		"subject_token_type": {"urn:ietf:params:oauth:token-type:access_token"}}
	if fresh := token(t, f.url, form); fresh == "" || fresh == tok {
		t.Errorf("token exchange gave %q for %q", fresh, tok)
	}
	form.Set("subject_token", "made-up")
	if rsp, err := http.PostForm(f.url+"/v1/oauth/tokens", form); err != nil || rsp.StatusCode != http.StatusUnauthorized {
		t.Errorf("exchanging a made-up token: %v, %v", rsp.Status, err)
	}

	// ClickHouse sends the fields as query parameters, with its own scope.
	q := url.Values{"grant_type": {"client_credentials"}, "client_id": {"loam"}, "client_secret": {"s3cret"}, "scope": {"PRINCIPAL_ROLE:ALL"}}
	if rsp, err := http.Post(f.url+"/v1/oauth/tokens?"+q.Encode(), "application/x-www-form-urlencoded", nil); err != nil || rsp.StatusCode != http.StatusOK {
		t.Errorf("credentials in the query: %v, %v", rsp.Status, err)
	}

	c := f.client(t, restcat.WithCredential("loam:s3cret"))
	if _, err := c.ListNamespaces(ctx, nil); err != nil {
		t.Errorf("client with credentials: %v", err)
	}
}

// token posts form to the token endpoint and returns the access token.
func token(t *testing.T, base string, form url.Values) string {
	t.Helper()
	rsp, err := http.PostForm(base+"/v1/oauth/tokens", form)
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.NewDecoder(rsp.Body).Decode(&body); err != nil || rsp.StatusCode != http.StatusOK {
		t.Fatalf("token endpoint: status %d, %v", rsp.StatusCode, err)
	}
	if body.TokenType != "bearer" || body.ExpiresIn <= 0 {
		t.Errorf("token response %+v", body)
	}
	return body.AccessToken
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
