package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loamdb/loam/sql/engine"
)

func sessionAs(t *testing.T, e *engine.Engine, user string) *engine.Session {
	t.Helper()
	s, err := e.NewSession(user, "loam", nil)
	if err != nil {
		t.Fatalf("NewSession(%s): %v", user, err)
	}
	return s
}

// wantDenied runs query and wants PostgreSQL's 42501 with msg in it.
func wantDenied(t *testing.T, s *engine.Session, query, msg string) {
	t.Helper()
	_, err := runSQL(context.Background(), s, query)
	if err == nil || sqlstate(err) != "42501" || !strings.Contains(err.Error(), msg) {
		t.Fatalf("%s: got %v (SQLSTATE %s), want 42501 %q", query, err, sqlstate(err), msg)
	}
	runSQL(context.Background(), s, "ROLLBACK")
}

func TestSchemaPrivileges(t *testing.T) {
	e := openEngine(t)
	admin := newSession(t, e)
	mustRun(t, admin, `CREATE ROLE alice LOGIN PASSWORD 'pw'; CREATE SCHEMA s1; CREATE SCHEMA s2;
		CREATE TABLE s1.t (a int); CREATE TABLE s2.t (a int); INSERT INTO s1.t VALUES (1); INSERT INTO s2.t VALUES (2);
		GRANT USAGE ON SCHEMA s1 TO alice; GRANT SELECT ON ALL TABLES IN SCHEMA s1 TO alice`)
	alice := sessionAs(t, e, "alice")
	if r := mustRun(t, alice, "SELECT a FROM s1.t"); len(r.rows) != 1 || r.rows[0][0] != "1" {
		t.Fatalf("alice reads s1.t = %v", r.rows)
	}
	wantDenied(t, alice, "SELECT a FROM s2.t", "permission denied for schema s2")
	wantDenied(t, alice, "INSERT INTO s1.t VALUES (3)", "permission denied for table t")
	wantDenied(t, alice, "CREATE TABLE s1.u (a int)", "permission denied for schema s1")
	wantDenied(t, alice, "DROP TABLE s1.t", "must be owner of table t")

	// A prepared statement planned while allowed is refused after REVOKE.
	ctx := context.Background()
	sts, err := alice.Prepare(ctx, "SELECT a FROM s1.t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := execStmt(ctx, alice, sts[0], nil); err != nil {
		t.Fatal(err)
	}
	mustRun(t, admin, "REVOKE SELECT ON s1.t FROM alice")
	if _, err := execStmt(ctx, alice, sts[0], nil); sqlstate(err) != "42501" {
		t.Fatalf("kept plan after REVOKE: %v, want 42501", err)
	}

	// A view reads with its owner's rights.
	mustRun(t, admin, "CREATE VIEW s1.v AS SELECT a FROM s2.t; GRANT SELECT ON s1.v TO alice")
	if r := mustRun(t, alice, "SELECT a FROM s1.v"); len(r.rows) != 1 || r.rows[0][0] != "2" {
		t.Fatalf("alice reads s1.v = %v", r.rows)
	}
	// Ownership: alice owns what she creates.
	mustRun(t, admin, "GRANT CREATE ON SCHEMA s1 TO alice")
	mustRun(t, alice, "CREATE TABLE s1.mine (a int); INSERT INTO s1.mine VALUES (5); DROP TABLE s1.mine")
	// SET ROLE needs membership.
	wantDenied(t, alice, "SET ROLE loam", `permission denied to set role "loam"`)
	mustRun(t, admin, "SET ROLE alice")
	wantDenied(t, admin, "SELECT a FROM s2.t", "permission denied for schema s2")
	mustRun(t, admin, "RESET ROLE")
	mustRun(t, admin, "SELECT a FROM s2.t")
}

// BenchmarkPrivilegeCheck is a kept one-row query's execution as the
// superuser (one metastore read for the role) and as a role holding
// USAGE and SELECT through a group (the authorizer's reads per relation).
func BenchmarkPrivilegeCheck(b *testing.B) {
	e := openEngine(b)
	admin := newSession(b, e)
	mustRun(b, admin, `CREATE TABLE t (a int); INSERT INTO t VALUES (1);
		CREATE ROLE readers; CREATE ROLE r LOGIN IN ROLE readers; GRANT SELECT ON t TO readers`)
	for _, user := range []string{"loam", "r"} {
		b.Run(user, func(b *testing.B) {
			s, err := e.NewSession(user, "loam", nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			sts, err := s.Prepare(ctx, "SELECT a FROM t", nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := execStmt(ctx, s, sts[0], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRevokeAcrossServers: two servers on one metastore; a REVOKE made
// through one holds on the other's open session at its next statement.
func TestRevokeAcrossServers(t *testing.T) {
	dir := t.TempDir()
	open := func(data string) *engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{
			MetastoreURL: "sqlite://" + dir + "/meta.db", WarehouseURL: "file://" + dir + "/warehouse", DataDir: data,
		})
		if err != nil {
			t.Fatalf("engine.Open: %v", err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	a, b := open(dir+"/a"), open(dir+"/b")
	admin := newSession(t, a)
	mustRun(t, admin, "CREATE TABLE shared (x int); CREATE ROLE carol LOGIN; GRANT SELECT ON shared TO carol")
	carol := sessionAs(t, b, "carol")
	mustRun(t, carol, "SELECT x FROM shared")
	mustRun(t, admin, "REVOKE SELECT ON shared FROM carol")
	wantDenied(t, carol, "SELECT x FROM shared", "permission denied for table shared")
	mustRun(t, admin, "GRANT SELECT ON shared TO carol")
	mustRun(t, carol, "SELECT x FROM shared")
}
