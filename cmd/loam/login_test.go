package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/wire"
)

func openStore(t *testing.T) meta.Store {
	t.Helper()
	dir := t.TempDir()
	st, err := meta.Open(context.Background(), "sqlite://"+filepath.Join(dir, "meta.db"), "file://"+filepath.Join(dir, "wh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestBootstrapRole: --password sets the loam superuser's verifier, a
// restart with the same password leaves it as it is, another password
// replaces it.
func TestBootstrapRole(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	verifier := func() string {
		r, err := st.Role(ctx, meta.BootstrapRole)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Superuser || !r.Login {
			t.Errorf("bootstrap role %+v", r)
		}
		return r.Password
	}
	if err := bootstrapRole(ctx, st, "", log); err != nil {
		t.Fatal(err)
	}
	if v := verifier(); v != "" {
		t.Errorf("password without --password: %q", v)
	}
	if err := bootstrapRole(ctx, st, "first", log); err != nil {
		t.Fatal(err)
	}
	v1 := verifier()
	if sv, err := scram.Parse(v1); err != nil || !sv.VerifyPassword("first") {
		t.Fatalf("verifier %q does not verify the password: %v", v1, err)
	}
	if err := bootstrapRole(ctx, st, "first", log); err != nil {
		t.Fatal(err)
	}
	if v := verifier(); v != v1 {
		t.Error("a restart with the same password rewrote the verifier")
	}
	if err := bootstrapRole(ctx, st, "second", log); err != nil {
		t.Fatal(err)
	}
	if sv, err := scram.Parse(verifier()); err != nil || !sv.VerifyPassword("second") {
		t.Error("a new password did not replace the verifier")
	}
	// Without --password a restart keeps the password set before.
	if err := bootstrapRole(ctx, st, "", log); err != nil {
		t.Fatal(err)
	}
	if verifier() == "" {
		t.Error("a restart without --password dropped the password")
	}
}

func TestMetaRolesAndAudit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	v, _ := scram.New("pw")
	if err := st.CreateRole(ctx, meta.Role{Name: "bob", Login: true, Password: v.String()}); err != nil {
		t.Fatal(err)
	}
	roles := metaRoles{st}
	if r, err := roles.LoginRole(ctx, "bob"); err != nil || !r.Exists || !r.Login || r.Verifier != v.String() {
		t.Errorf("bob: %+v %v", r, err)
	}
	if r, err := roles.LoginRole(ctx, "ghost"); err != nil || r.Exists {
		t.Errorf("ghost: %+v %v", r, err)
	}
	for _, q := range []meta.Role{{Name: "staff"}, {Name: "admins"}} {
		if err := st.CreateRole(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []meta.Membership{{Role: "staff", Member: "bob"}, {Role: "admins", Member: "staff"}} {
		if err := st.GrantRole(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := roles.MemberOf(ctx, "bob"); err != nil || strings.Join(got, ",") != "staff,admins" {
		t.Errorf("bob is a member of %v %v", got, err)
	}
	if got, err := roles.MemberOf(ctx, "admins"); err != nil || len(got) != 0 {
		t.Errorf("admins is a member of %v %v", got, err)
	}
	rec := auditLogin(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rec(wire.LoginEvent{User: "bob", Database: "loam", Address: "127.0.0.1", Method: wire.AuthSCRAM, OK: true, SSL: true})
	rec(wire.LoginEvent{User: "bob", Database: "loam", Address: "10.0.0.9", Method: wire.AuthSCRAM,
		Code: "28P01", Reason: `password authentication failed for user "bob"`, Detail: `Password does not match for user "bob".`})
	ev, err := st.Audit(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var logins []meta.AuditEvent
	for _, e := range ev {
		if e.Kind == meta.AuditLogin || e.Kind == meta.AuditLoginFailed {
			logins = append(logins, e)
		}
	}
	if len(logins) != 2 {
		t.Fatalf("audit %+v", ev)
	}
	for _, e := range logins {
		switch e.Kind {
		case meta.AuditLogin:
			if !e.OK || e.Role != "bob" || e.Address != "127.0.0.1" || e.Detail != "database=loam; method=scram-sha-256; ssl" {
				t.Errorf("login %+v", e)
			}
		case meta.AuditLoginFailed:
			if e.OK || e.Address != "10.0.0.9" || e.Detail != `database=loam; method=scram-sha-256; 28P01: password authentication failed for user "bob"; Password does not match for user "bob".` {
				t.Errorf("failed login %+v", e)
			}
		}
	}
}
