package openfga

import (
	"context"
	"strings"
	"testing"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/authztest"
)

func open(ctx context.Context, st meta.Store) (meta.Authorizer, error) { return New(ctx, st) }

// TestAuthzOpenFGA plays the scenario the built-in authorizer plays
// (meta/authztest) against the OpenFGA one.
func TestAuthzOpenFGA(t *testing.T) { authztest.Run(t, open) }

// TestOpenFGAServerAdmin: a superuser in the Store is a server admin in
// the model, so a Check without the principal's superuser bit still
// passes; NOSUPERUSER takes it away at the next Refresh.
func TestOpenFGAServerAdmin(t *testing.T) {
	ctx := context.Background()
	st := authztest.NewStore(t)
	if err := st.CreateRole(ctx, meta.Role{Name: "root", Superuser: true}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetOwner(ctx, authztest.Orders, "someone"); err != nil {
		t.Fatal(err)
	}
	a, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	check := func(want bool) {
		t.Helper()
		for _, obj := range []meta.Object{authztest.Orders, authztest.Sales, authztest.Database, authztest.Seq} {
			got, err := a.Allowed(ctx, meta.Principal{Name: "root"}, "OWNER", obj)
			if err != nil || got != want {
				t.Errorf("root OWNER %s: %v, %v; want %v", obj, got, err, want)
			}
		}
	}
	check(true)
	if err := st.AlterRole(ctx, "root", func(r meta.Role) (meta.Role, error) { r.Superuser = false; return r, nil }); err != nil {
		t.Fatal(err)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check(false)
}

// TestOpenFGAEscape: names OpenFGA ids cannot hold, and names too long
// for them, map to distinct ids.
func TestOpenFGAEscape(t *testing.T) {
	long := strings.Repeat("x", 63)
	cases := [][2][]string{
		{{"a.b", "c"}, {"a", "b.c"}},
		{{"a b"}, {"a%20b"}},
		{{long, long, long}, {long, long, long + "y"}},
		{{"user:x#y"}, {"user_x_y"}},
	}
	for _, c := range cases {
		x, y := escape(c[0]...), escape(c[1]...)
		if x == y {
			t.Errorf("%q and %q both escape to %q", c[0], c[1], x)
		}
		for _, id := range []string{x, y} {
			if len(id) > maxID || strings.ContainsAny(id, " :#@") {
				t.Errorf("id %q is not a valid OpenFGA id", id)
			}
		}
	}
}

// TestOpenFGAConcurrentRefresh: checks run while Refresh rewrites the
// tuples (for the race detector); each check sees the grant either
// before or after a Refresh, never an error.
func TestOpenFGAConcurrentRefresh(t *testing.T) {
	ctx := context.Background()
	st := authztest.NewStore(t)
	if err := st.CreateRole(ctx, meta.Role{Name: "r", Inherit: true}); err != nil {
		t.Fatal(err)
	}
	a, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	g := meta.Grant{Grantee: "r", Privilege: "SELECT", Object: authztest.Orders, Grantor: meta.BootstrapRole}
	done := make(chan error, 1)
	go func() {
		for i := 0; i < 20; i++ {
			var err error
			if i%2 == 0 {
				err = st.Grant(ctx, g)
			} else {
				err = st.Revoke(ctx, g)
			}
			if err == nil {
				err = a.Refresh(ctx)
			}
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 200; i++ {
		if _, err := a.Allowed(ctx, meta.Principal{Name: "r"}, "SELECT", authztest.Orders); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ok, err := a.Allowed(ctx, meta.Principal{Name: "r"}, "SELECT", authztest.Orders); ok || err != nil {
		t.Errorf("after an even number of changes (revoked last): %v, %v", ok, err)
	}
}

// BenchmarkOpenFGAAllowed is one check through OpenFGA (a grant through
// one inherited role), against the built-in authorizer's.
func BenchmarkOpenFGAAllowed(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	st, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", "file://"+dir+"/wh")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for _, r := range []meta.Role{{Name: "u", Inherit: true}, {Name: "g", Inherit: true}} {
		if err := st.CreateRole(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.GrantRole(ctx, meta.Membership{Role: "g", Member: "u"}); err != nil {
		b.Fatal(err)
	}
	if err := st.Grant(ctx, meta.Grant{Grantee: "g", Privilege: "SELECT", Object: authztest.Orders}); err != nil {
		b.Fatal(err)
	}
	fga, err := New(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	defer fga.Close()
	for _, az := range []struct {
		name string
		a    meta.Authorizer
	}{{"builtin", meta.NewAuthorizer(st)}, {"openfga", fga}} {
		b.Run(az.name, func(b *testing.B) {
			sctx := meta.WithAuthzScope(ctx) // one statement's checks
			for b.Loop() {
				if ok, err := az.a.Allowed(sctx, meta.Principal{Name: "u"}, "SELECT", authztest.Orders); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
