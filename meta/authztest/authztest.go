// Package authztest is the privilege scenario every meta.Authorizer must
// pass, over a real SQLite metastore: roles, membership with and without
// INHERIT, PUBLIC grants, owners (recorded and the bootstrap default),
// superusers, odd names, revocations taking effect after Refresh, and
// another server's changes (no Refresh here) from the next check.
package authztest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loamdb/loam/meta"
)

// Open makes the Authorizer under test over st.
type Open func(ctx context.Context, st meta.Store) (meta.Authorizer, error)

// NewStore is a fresh SQLite metastore in a test directory.
func NewStore(t *testing.T) meta.Store {
	t.Helper()
	dir := t.TempDir()
	st, err := meta.Open(context.Background(), "sqlite://"+filepath.Join(dir, "meta.db"), "file://"+filepath.Join(dir, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Objects of the scenario.
var (
	Orders    = meta.Object{Kind: meta.KindTable, Schema: "sales", Name: "orders"}
	Notes     = meta.Object{Kind: meta.KindTable, Schema: "public", Name: "notes"}
	Unowned   = meta.Object{Kind: meta.KindTable, Schema: "public", Name: "unrecorded"}
	Sales     = meta.Object{Kind: meta.KindSchema, Name: "sales"}
	Public    = meta.Object{Kind: meta.KindSchema, Name: "public"}
	Weird     = meta.Object{Kind: meta.KindTable, Schema: "we.ird", Name: "x y"}
	WeirdTwin = meta.Object{Kind: meta.KindTable, Schema: "we", Name: "ird.x y"}
	Seq       = meta.Object{Kind: meta.KindSequence, Schema: "sales", Name: "orders_id_seq"}
	Database  = meta.Object{Kind: meta.KindDatabase, Name: "loam"}
)

// Check is one expected answer.
type Check struct {
	Role      string
	Superuser bool
	Priv      string
	Obj       meta.Object
	Want      bool
}

// Step changes the Store, then Refresh runs (unless the change stands
// for another server's, which this one's Refresh never hears of), then
// the checks.
type Step struct {
	Name      string
	Change    func(ctx context.Context, t *testing.T, st meta.Store)
	NoRefresh bool
	Checks    []Check
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func grant(ctx context.Context, t *testing.T, st meta.Store, grantee, priv string, obj meta.Object) {
	t.Helper()
	must(t, st.Grant(ctx, meta.Grant{Grantee: grantee, Privilege: priv, Object: obj, Grantor: meta.BootstrapRole}))
}

func member(ctx context.Context, t *testing.T, st meta.Store, role, m string) {
	t.Helper()
	must(t, st.GrantRole(ctx, meta.Membership{Role: role, Member: m, Grantor: meta.BootstrapRole}))
}

// setup is the state before the authorizer is made: its constructor must
// load it. alice (INHERIT) ∈ analysts ∈ readers; bob (NOINHERIT) ∈
// analysts; carol ∈ staff (NOINHERIT) ∈ readers; dave owns sales and
// sales.orders.
func setup(ctx context.Context, t *testing.T, st meta.Store) {
	for _, r := range []meta.Role{
		{Name: "alice", Login: true, Inherit: true},
		{Name: "bob", Login: true, Inherit: false},
		{Name: "carol", Login: true, Inherit: true},
		{Name: "dave", Login: true, Inherit: true},
		{Name: "readers", Inherit: true},
		{Name: "analysts", Inherit: true},
		{Name: "staff", Inherit: false},
		{Name: "root", Superuser: true},
	} {
		must(t, st.CreateRole(ctx, r))
	}
	member(ctx, t, st, "readers", "analysts")
	member(ctx, t, st, "analysts", "alice")
	member(ctx, t, st, "analysts", "bob")
	member(ctx, t, st, "readers", "staff")
	member(ctx, t, st, "staff", "carol")
	must(t, st.SetOwner(ctx, Orders, "dave"))
	must(t, st.SetOwner(ctx, Sales, "dave"))
	grant(ctx, t, st, "readers", "SELECT", Orders)
	grant(ctx, t, st, "readers", "USAGE", Sales)
	grant(ctx, t, st, "analysts", "INSERT", Orders)
	grant(ctx, t, st, "staff", "CREATE", Sales)
	grant(ctx, t, st, meta.PublicRole, "SELECT", Notes)
	grant(ctx, t, st, "alice", "SELECT", Weird)
	grant(ctx, t, st, "readers", "USAGE", Seq)
}

// Steps is the scenario; the first step has no change (the constructor
// loaded setup's state).
var Steps = []Step{
	{Name: "initial", Checks: []Check{
		{Role: "alice", Priv: "SELECT", Obj: Orders, Want: true}, // analysts → readers
		{Role: "alice", Priv: "INSERT", Obj: Orders, Want: true},
		{Role: "alice", Priv: "DELETE", Obj: Orders, Want: false},
		{Role: "alice", Priv: "USAGE", Obj: Sales, Want: true},
		{Role: "alice", Priv: "USAGE", Obj: Seq, Want: true},
		{Role: "alice", Priv: "UPDATE", Obj: Seq, Want: false},
		{Role: "alice", Priv: "OWNER", Obj: Orders, Want: false},
		{Role: "bob", Priv: "SELECT", Obj: Orders, Want: false}, // NOINHERIT
		{Role: "bob", Priv: "INSERT", Obj: Orders, Want: false},
		{Role: "carol", Priv: "CREATE", Obj: Sales, Want: true},   // staff's own
		{Role: "carol", Priv: "SELECT", Obj: Orders, Want: false}, // staff is NOINHERIT: stops there
		{Role: "carol", Priv: "USAGE", Obj: Sales, Want: false},
		{Role: "staff", Priv: "CREATE", Obj: Sales, Want: true},
		{Role: "staff", Priv: "SELECT", Obj: Orders, Want: false},
		{Role: "readers", Priv: "SELECT", Obj: Orders, Want: true},
		{Role: "readers", Priv: "INSERT", Obj: Orders, Want: false},
		{Role: "dave", Priv: "DELETE", Obj: Orders, Want: true}, // owner
		{Role: "dave", Priv: "TRUNCATE", Obj: Orders, Want: true},
		{Role: "dave", Priv: "OWNER", Obj: Orders, Want: true},
		{Role: "dave", Priv: "CREATE", Obj: Sales, Want: true},
		{Role: "dave", Priv: "SELECT", Obj: Notes, Want: true}, // PUBLIC
		{Role: "dave", Priv: "INSERT", Obj: Notes, Want: false},
		{Role: "dave", Priv: "OWNER", Obj: Notes, Want: false}, // the bootstrap role's
		{Role: "nobody", Priv: "SELECT", Obj: Notes, Want: true},
		{Role: "nobody", Priv: "USAGE", Obj: Public, Want: true}, // the first start's grant
		{Role: "nobody", Priv: "CREATE", Obj: Public, Want: false},
		{Role: "nobody", Priv: "SELECT", Obj: Orders, Want: false},
		{Role: "alice", Priv: "SELECT", Obj: Weird, Want: true},
		{Role: "alice", Priv: "SELECT", Obj: WeirdTwin, Want: false},
		{Role: "loam", Superuser: true, Priv: "DELETE", Obj: Orders, Want: true},
		{Role: "root", Priv: "DELETE", Obj: Orders, Want: true}, // a superuser in the Store
		{Role: "root", Priv: "OWNER", Obj: Sales, Want: true},
		{Role: "loam", Superuser: true, Priv: "CREATE", Obj: Database, Want: true},
		{Role: "loam", Priv: "OWNER", Obj: Unowned, Want: true}, // owns what no one else does
		{Role: "alice", Priv: "CREATE", Obj: Database, Want: false},
	}},
	{Name: "revoke from a group", Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		must(t, st.Revoke(ctx, meta.Grant{Grantee: "readers", Privilege: "SELECT", Object: Orders}))
	}, Checks: []Check{
		{Role: "alice", Priv: "SELECT", Obj: Orders, Want: false},
		{Role: "readers", Priv: "SELECT", Obj: Orders, Want: false},
		{Role: "alice", Priv: "INSERT", Obj: Orders, Want: true},
		{Role: "alice", Priv: "USAGE", Obj: Sales, Want: true},
	}},
	{Name: "revoke membership", Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		must(t, st.RevokeRole(ctx, "analysts", "alice"))
	}, Checks: []Check{
		{Role: "alice", Priv: "INSERT", Obj: Orders, Want: false},
		{Role: "alice", Priv: "USAGE", Obj: Sales, Want: false},
		{Role: "analysts", Priv: "INSERT", Obj: Orders, Want: true},
	}},
	{Name: "inherit switched", Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		must(t, st.AlterRole(ctx, "bob", func(r meta.Role) (meta.Role, error) { r.Inherit = true; return r, nil }))
		must(t, st.AlterRole(ctx, "staff", func(r meta.Role) (meta.Role, error) { r.Inherit = true; return r, nil }))
	}, Checks: []Check{
		{Role: "bob", Priv: "INSERT", Obj: Orders, Want: true},
		{Role: "bob", Priv: "USAGE", Obj: Sales, Want: true}, // analysts → readers
		{Role: "carol", Priv: "USAGE", Obj: Sales, Want: true},
	}},
	{Name: "another server's grant", NoRefresh: true, Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		grant(ctx, t, st, "analysts", "TRUNCATE", Orders)
		must(t, st.AlterRole(ctx, "root", func(r meta.Role) (meta.Role, error) { r.Superuser = false; return r, nil }))
	}, Checks: []Check{
		{Role: "bob", Priv: "TRUNCATE", Obj: Orders, Want: true},
		{Role: "alice", Priv: "TRUNCATE", Obj: Orders, Want: false},
		{Role: "root", Priv: "DELETE", Obj: Orders, Want: false},
	}},
	{Name: "PUBLIC revoked, owner changed", Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		must(t, st.Revoke(ctx, meta.Grant{Grantee: meta.PublicRole, Privilege: "SELECT", Object: Notes}))
		must(t, st.SetOwner(ctx, Orders, "alice"))
	}, Checks: []Check{
		{Role: "nobody", Priv: "SELECT", Obj: Notes, Want: false},
		{Role: "dave", Priv: "SELECT", Obj: Notes, Want: false},
		{Role: "dave", Priv: "DELETE", Obj: Orders, Want: false},
		{Role: "alice", Priv: "DELETE", Obj: Orders, Want: true},
		{Role: "alice", Priv: "OWNER", Obj: Orders, Want: true},
		{Role: "dave", Priv: "OWNER", Obj: Sales, Want: true},
	}},
	{Name: "owner through a role, drop role", Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		member(ctx, t, st, "dave", "carol") // carol inherits dave's ownership
		must(t, st.DropRole(ctx, "bob"))
	}, Checks: []Check{
		{Role: "carol", Priv: "OWNER", Obj: Sales, Want: true},
		{Role: "carol", Priv: "DROP", Obj: Sales, Want: true}, // a privilege no grant names: owners only
		{Role: "alice", Priv: "DROP", Obj: Sales, Want: false},
		{Role: "bob", Priv: "INSERT", Obj: Orders, Want: false},
	}},
	{Name: "bootstrap role no longer superuser", Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		must(t, st.AlterRole(ctx, meta.BootstrapRole, func(r meta.Role) (meta.Role, error) { r.Superuser = false; return r, nil }))
	}, Checks: []Check{
		{Role: "loam", Priv: "OWNER", Obj: Unowned, Want: true},
		{Role: "loam", Priv: "DELETE", Obj: Unowned, Want: true},
		{Role: "loam", Priv: "DELETE", Obj: Orders, Want: false}, // alice's
		{Role: "loam", Priv: "OWNER", Obj: Sales, Want: false},   // dave's
	}},
	{Name: "schema forgotten", Change: func(ctx context.Context, t *testing.T, st meta.Store) {
		must(t, st.ForgetObject(ctx, Sales))
	}, Checks: []Check{
		{Role: "loam", Priv: "OWNER", Obj: Sales, Want: true},   // the bootstrap role's again
		{Role: "loam", Priv: "DELETE", Obj: Orders, Want: true}, // what the schema held went with it
		{Role: "alice", Priv: "OWNER", Obj: Orders, Want: false},
		{Role: "carol", Priv: "OWNER", Obj: Sales, Want: false},
		{Role: "carol", Priv: "CREATE", Obj: Sales, Want: false}, // the grants too
		{Role: "analysts", Priv: "INSERT", Obj: Orders, Want: false},
	}},
}

// Run plays Steps against the authorizer open makes: setup, then open
// (which must load the Store), then each step's change, Refresh, checks.
func Run(t *testing.T, open Open) {
	ctx := context.Background()
	st := NewStore(t)
	setup(ctx, t, st)
	a, err := open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Steps {
		if s.Change != nil {
			s.Change(ctx, t, st)
			if !s.NoRefresh {
				if err := a.Refresh(ctx); err != nil {
					t.Fatalf("%s: refresh: %v", s.Name, err)
				}
			}
		}
		for _, c := range s.Checks {
			got, err := a.Allowed(ctx, meta.Principal{Name: c.Role, Superuser: c.Superuser}, c.Priv, c.Obj)
			if err != nil {
				t.Errorf("%s: %s %s on %s: %v", s.Name, c.Role, c.Priv, c.Obj, err)
			} else if got != c.Want {
				t.Errorf("%s: %s %s on %s: got %v, want %v", s.Name, c.Role, c.Priv, c.Obj, got, c.Want)
			}
		}
	}
}
