package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	restcat "github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/openfga"
	"github.com/loamdb/loam/meta/rest"
)

// authorizers are the ones the catalog's privilege tests run against.
var authorizers = []struct {
	name string
	mk   func(t *testing.T) func(meta.Store) meta.Authorizer
}{
	{"builtin", func(*testing.T) func(meta.Store) meta.Authorizer { return meta.NewAuthorizer }},
	{"openfga", func(t *testing.T) func(meta.Store) meta.Authorizer {
		return func(st meta.Store) meta.Authorizer {
			a, err := openfga.New(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			return a
		}
	}},
}

// TestRESTAuthz: a role with SELECT on one table of one schema loads it,
// sees only it, and is refused (403) the other schema, the other table,
// commits, creates and drops; grants and revokes take effect after the
// authorizer's Refresh, as GRANT and REVOKE in SQL do.
func TestRESTAuthz(t *testing.T) {
	for _, az := range authorizers {
		t.Run(az.name, func(t *testing.T) { testRESTAuthz(t, az.mk(t)) })
	}
}

func testRESTAuthz(t *testing.T, mk func(meta.Store) meta.Authorizer) {
	ctx := context.Background()
	var authz meta.Authorizer
	f := newFixture(t, rest.Options{Password: "s3cret"}, func(st meta.Store) meta.Authorizer {
		authz = mk(st)
		return authz
	})
	refresh := func() { must(t, authz.Refresh(ctx)) }

	// The bootstrap superuser (its password is --password while the
	// Store has no verifier for it) makes two schemas and three tables.
	admin := f.client(t, restcat.WithCredential("loam:s3cret"))
	for _, ns := range []string{"sales", "hr"} {
		must(t, admin.CreateNamespace(ctx, table.Identifier{ns}, nil))
	}
	for _, id := range []table.Identifier{{"sales", "orders"}, {"sales", "secret"}, {"hr", "salaries"}} {
		if _, err := admin.CreateTable(ctx, id, testSchema); err != nil {
			t.Fatal(err)
		}
	}

	// analyst may use sales and read sales.orders, nothing else.
	v, err := scram.New("pw")
	must(t, err)
	must(t, f.st.CreateRole(ctx, meta.Role{Name: "analyst", Login: true, Inherit: true, Password: v.String()}))
	must(t, f.st.CreateRole(ctx, meta.Role{Name: "group", Inherit: true, Password: v.String()}))
	grant := func(priv string, obj meta.Object) {
		t.Helper()
		must(t, f.st.Grant(ctx, meta.Grant{Grantee: "analyst", Privilege: priv, Object: obj, Grantor: "loam"}))
	}
	sales := meta.Object{Kind: meta.KindSchema, Name: "sales"}
	orders := meta.Object{Kind: meta.KindTable, Schema: "sales", Name: "orders"}
	grant("USAGE", sales)
	grant("SELECT", orders)
	refresh()

	// Logins: a wrong password and a role without LOGIN get no token.
	for _, cred := range []string{"analyst:wrong", "group:pw", "nobody:pw", "loam:pw"} {
		if _, err := restcat.NewCatalog(ctx, "loam", f.url, restcat.WithCredential(cred)); err == nil {
			t.Errorf("credential %q got a token", cred)
		}
	}
	evs, err := f.st.Audit(ctx, 0)
	must(t, err)
	if !slices.ContainsFunc(evs, func(e meta.AuditEvent) bool { return e.Kind == meta.AuditLoginFailed && e.Role == "analyst" }) {
		t.Errorf("no failed login of analyst in the audit trail: %+v", evs)
	}

	c := f.client(t, restcat.WithCredential("analyst:pw"))
	tbl, err := c.LoadTable(ctx, table.Identifier{"sales", "orders"})
	if err != nil {
		t.Fatalf("analyst loads sales.orders: %v", err)
	}
	if got := collect(t, c.ListTables(ctx, table.Identifier{"sales"})); !slices.Equal(got, []string{"sales.orders"}) {
		t.Errorf("analyst lists sales = %v, want only sales.orders", got)
	}
	if ok, err := c.CheckTableExists(ctx, table.Identifier{"sales", "orders"}); !ok || err != nil {
		t.Errorf("analyst: sales.orders exists = %v, %v", ok, err)
	}
	forbidden := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, restcat.ErrForbidden) {
			t.Errorf("analyst %s: %v, want 403", what, err)
		}
	}
	_, err = c.LoadTable(ctx, table.Identifier{"sales", "secret"})
	forbidden("loads sales.secret", err)
	_, err = c.LoadTable(ctx, table.Identifier{"hr", "salaries"})
	forbidden("loads hr.salaries (no USAGE on hr)", err)
	for _, err := range c.ListTables(ctx, table.Identifier{"hr"}) {
		forbidden("lists hr", err)
		break
	}
	_, err = appendRows(ctx, t, tbl, []int64{1}, []string{"one"})
	forbidden("appends to sales.orders", err)
	_, err = c.CreateTable(ctx, table.Identifier{"sales", "mine"}, testSchema)
	forbidden("creates sales.mine", err)
	forbidden("creates a namespace", c.CreateNamespace(ctx, table.Identifier{"mine"}, nil))
	forbidden("drops sales.orders", c.DropTable(ctx, table.Identifier{"sales", "orders"}))
	_, err = c.RenameTable(ctx, table.Identifier{"sales", "orders"}, table.Identifier{"sales", "o2"})
	forbidden("renames sales.orders", err)
	if _, err := c.LoadTable(ctx, table.Identifier{"sales", "nope"}); !errors.Is(err, catalog.ErrNoSuchTable) {
		t.Errorf("analyst loads a missing table: %v, want 404", err)
	}

	// The 403 body is the error model's.
	tok := token(t, f.url, url.Values{"grant_type": {"client_credentials"}, "client_id": {"analyst"}, "client_secret": {"pw"}})
	req, _ := http.NewRequest("GET", f.url+"/v1/namespaces/hr/tables/salaries", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	rsp, err := http.DefaultClient.Do(req)
	must(t, err)
	var body struct {
		Error struct {
			Message, Type string
			Code          int
		}
	}
	err = json.NewDecoder(rsp.Body).Decode(&body)
	rsp.Body.Close()
	if err != nil || rsp.StatusCode != http.StatusForbidden || body.Error.Code != 403 || body.Error.Type != "ForbiddenException" || body.Error.Message == "" {
		t.Errorf("403 body = %d %+v, %v", rsp.StatusCode, body, err)
	}

	// INSERT lets an append through (an append needs no more); the
	// admin sees it.
	grant("INSERT", orders)
	refresh()
	if _, err := appendRows(ctx, t, tbl, []int64{1}, []string{"one"}); err != nil {
		t.Fatalf("analyst appends with INSERT: %v", err)
	}
	at, err := admin.LoadTable(ctx, table.Identifier{"sales", "orders"})
	must(t, err)
	if got := scanIDs(ctx, t, at); !slices.Equal(got, []int64{1}) {
		t.Errorf("ids after the analyst's append = %v", got)
	}

	// CREATE on sales: the analyst creates a table, owns it, writes and
	// drops it.
	grant("CREATE", sales)
	refresh()
	mine, err := c.CreateTable(ctx, table.Identifier{"sales", "mine"}, testSchema)
	if err != nil {
		t.Fatalf("analyst creates with CREATE: %v", err)
	}
	if owner, err := f.st.Owner(ctx, meta.Object{Kind: meta.KindTable, Schema: "sales", Name: "mine"}); err != nil || owner != "analyst" {
		t.Errorf("owner of sales.mine = %q, %v", owner, err)
	}
	if _, err := appendRows(ctx, t, mine, []int64{2}, []string{"two"}); err != nil {
		t.Errorf("owner appends: %v", err)
	}
	if err := c.DropTable(ctx, table.Identifier{"sales", "mine"}); err != nil {
		t.Errorf("owner drops: %v", err)
	}

	// REVOKE SELECT: the next load is refused.
	must(t, f.st.Revoke(ctx, meta.Grant{Grantee: "analyst", Privilege: "SELECT", Object: orders}))
	refresh()
	_, err = c.LoadTable(ctx, table.Identifier{"sales", "orders"})
	forbidden("loads sales.orders after REVOKE", err)
	if got := collect(t, c.ListTables(ctx, table.Identifier{"sales"})); !slices.Equal(got, []string{"sales.orders"}) {
		t.Errorf("analyst (INSERT left) lists sales = %v, want sales.orders", got)
	}
}

// TestRESTTrust: without a password loopback clients act as the
// bootstrap superuser with no token, and get a token for a LOGIN role
// without its secret; with NoLoopbackTrust (a pg_hba file) nothing is
// trusted.
func TestRESTTrust(t *testing.T) {
	ctx := context.Background()
	for _, noTrust := range []bool{false, true} {
		f := newFixture(t, rest.Options{NoLoopbackTrust: noTrust})
		v, err := scram.New("pw")
		must(t, err)
		must(t, f.st.CreateRole(ctx, meta.Role{Name: "analyst", Login: true, Inherit: true, Password: v.String()}))
		rsp, err := http.Get(f.url + "/v1/namespaces")
		must(t, err)
		rsp.Body.Close()
		if want := map[bool]int{false: 200, true: 401}[noTrust]; rsp.StatusCode != want {
			t.Errorf("NoLoopbackTrust=%v, no token: status %d, want %d", noTrust, rsp.StatusCode, want)
		}
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"analyst"}, "client_secret": {"wrong"}}
		rsp, err = http.PostForm(f.url+"/v1/oauth/tokens", form)
		must(t, err)
		rsp.Body.Close()
		if want := map[bool]int{false: 200, true: 401}[noTrust]; rsp.StatusCode != want {
			t.Errorf("NoLoopbackTrust=%v, a wrong secret: status %d, want %d", noTrust, rsp.StatusCode, want)
		}
		// A token acts as its role even where no token is needed.
		c := f.client(t, restcat.WithCredential("analyst:pw"))
		if err := c.CreateNamespace(ctx, table.Identifier{"x"}, nil); !errors.Is(err, restcat.ErrForbidden) {
			t.Errorf("NoLoopbackTrust=%v: analyst creates a namespace: %v, want 403", noTrust, err)
		}
	}
}
