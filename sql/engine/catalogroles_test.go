package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

// rolesFixture writes into the metastore what this script leaves in
// PostgreSQL 15, whose answers the tests below expect:
//
//	CREATE ROLE analyst;
//	CREATE ROLE bob LOGIN PASSWORD 'x' VALID UNTIL '2030-01-01 00:00:00+00';
//	CREATE ROLE carol SUPERUSER LOGIN;
//	CREATE ROLE dave NOINHERIT CREATEDB CREATEROLE;
//	GRANT analyst TO bob;
//	GRANT analyst TO dave WITH ADMIN OPTION;
//	CREATE SCHEMA sales;
//	CREATE TABLE sales.orders (id int, amount numeric);
//	CREATE TABLE public.t1 (a int);
//	CREATE TABLE public.t2 (a int);
//	CREATE SEQUENCE public.s1;
//	CREATE VIEW public.v1 AS SELECT * FROM t1;
//	GRANT USAGE ON SCHEMA sales TO analyst;
//	GRANT SELECT ON ALL TABLES IN SCHEMA sales TO analyst;
//	GRANT SELECT, INSERT ON t1 TO bob WITH GRANT OPTION;
//	GRANT SELECT ON t1 TO PUBLIC;
//	GRANT USAGE ON SEQUENCE s1 TO bob;
//	GRANT SELECT ON v1 TO analyst;
//	ALTER TABLE t2 OWNER TO bob;
//	ALTER DEFAULT PRIVILEGES IN SCHEMA sales GRANT SELECT ON TABLES TO analyst;
//	ALTER DEFAULT PRIVILEGES FOR ROLE bob GRANT INSERT ON TABLES TO analyst;
//	ALTER DEFAULT PRIVILEGES GRANT USAGE ON SEQUENCES TO bob;
//
// (the roles and grants straight into the store, until the statements
// are Loam's too).
func rolesFixture(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	s := newSession(t, e)
	mustRun(t, s, `CREATE SCHEMA sales; CREATE TABLE sales.orders (id int, amount numeric); CREATE TABLE public.t1 (a int);
		CREATE TABLE public.t2 (a int); CREATE SEQUENCE public.s1; CREATE VIEW public.v1 AS SELECT * FROM t1`)
	st := e.Meta()
	for _, r := range []meta.Role{
		{Name: "analyst", Inherit: true},
		{Name: "bob", Login: true, Inherit: true, Password: "SCRAM-SHA-256$4096:c2FsdA==$a2V5:a2V5", ValidUntil: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Name: "carol", Superuser: true, Login: true, Inherit: true},
		{Name: "dave", CreateDB: true, CreateRole: true},
	} {
		if err := st.CreateRole(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []meta.Membership{{Role: "analyst", Member: "bob", Grantor: "loam"}, {Role: "analyst", Member: "dave", Grantor: "loam", Admin: true}} {
		if err := st.GrantRole(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	table := func(ns, name string) meta.Object { return meta.Object{Kind: meta.KindTable, Schema: ns, Name: name} }
	for _, g := range []meta.Grant{
		{Grantee: "analyst", Privilege: "USAGE", Object: meta.Object{Kind: meta.KindSchema, Name: "sales"}},
		{Grantee: "analyst", Privilege: "SELECT", Object: table("sales", "orders")},
		{Grantee: "bob", Privilege: "SELECT", Object: table("public", "t1"), GrantOption: true},
		{Grantee: "bob", Privilege: "INSERT", Object: table("public", "t1"), GrantOption: true},
		{Grantee: meta.PublicRole, Privilege: "SELECT", Object: table("public", "t1")},
		{Grantee: "bob", Privilege: "USAGE", Object: meta.Object{Kind: meta.KindSequence, Schema: "public", Name: "s1"}},
		{Grantee: "analyst", Privilege: "SELECT", Object: table("public", "v1")},
	} {
		g.Grantor = meta.BootstrapRole
		if err := st.Grant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetOwner(ctx, table("public", "t2"), "bob"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []meta.DefaultPrivilege{
		{Owner: "loam", Schema: "sales", Kind: meta.KindTable, Grantee: "analyst", Privilege: "SELECT"},
		{Owner: "bob", Kind: meta.KindTable, Grantee: "analyst", Privilege: "INSERT"},
		{Owner: "loam", Kind: meta.KindSequence, Grantee: "bob", Privilege: "USAGE"},
	} {
		if err := st.SetDefaultPrivilege(ctx, d, true); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCatalogRoles: the catalogs show the metastore's roles, owners and
// privileges as PostgreSQL 15 shows the same (see rolesFixture), to the
// bootstrap superuser and to bob.
func TestCatalogRoles(t *testing.T) {
	e := openEngine(t)
	rolesFixture(t, e)
	loam := newSession(t, e)
	bob, err := e.NewSession("bob", "loam", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    *engine.Session
		sql  string
		want string // PostgreSQL's rows, | between columns
	}{
		{"du", loam, `SELECT r.rolname, r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin, r.rolconnlimit, r.rolvaliduntil,
			ARRAY(SELECT b.rolname FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles b ON (m.roleid = b.oid) WHERE m.member = r.oid) as memberof,
			r.rolreplication, r.rolbypassrls FROM pg_catalog.pg_roles r WHERE r.rolname !~ '^pg_' ORDER BY 1`,
			`analyst|f|t|f|f|f|-1|NULL|{}|f|f
bob|f|t|f|f|t|-1|2030-01-01 00:00:00+00|{analyst}|f|f
carol|t|t|f|f|t|-1|NULL|{}|f|f
dave|f|f|t|t|f|-1|NULL|{analyst}|f|f
loam|t|t|t|t|t|-1|NULL|{}|t|t`},
		{"relacl", loam, `SELECT c.relname, c.relkind, pg_get_userbyid(c.relowner), c.relacl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname IN ('public', 'sales') ORDER BY 1`,
			`orders|r|loam|{loam=arwdDxt/loam,analyst=r/loam}
s1|S|loam|{loam=rwU/loam,bob=U/loam}
t1|r|loam|{loam=arwdDxt/loam,bob=a*r*/loam,=r/loam}
t2|r|bob|NULL
v1|v|loam|{loam=arwdDxt/loam,analyst=r/loam}`},
		{"nspacl", loam, `SELECT nspname, pg_get_userbyid(nspowner), nspacl FROM pg_namespace WHERE nspname IN ('public', 'sales', 'pg_catalog') ORDER BY 1`,
			`pg_catalog|loam|{loam=UC/loam,=U/loam}
public|pg_database_owner|{pg_database_owner=UC/pg_database_owner,=U/pg_database_owner}
sales|loam|{loam=UC/loam,analyst=U/loam}`},
		{"system relacl", loam, `SELECT relname, relacl FROM pg_class WHERE relname IN ('pg_class', 'pg_authid', 'pg_roles', 'tables') ORDER BY 1`,
			`pg_authid|{loam=arwdDxt/loam}
pg_class|{loam=arwdDxt/loam,=r/loam}
pg_roles|{loam=arwdDxt/loam,=r/loam}
tables|{loam=arwdDxt/loam,=r/loam}`},
		// PostgreSQL sorts a default ACL by the grantees' OIDs: analyst's
		// is less than bob's there, bob's less than analyst's here (see
		// RoleOID), so bob's global list is in the other order.
		{"default acl", loam, `SELECT pg_get_userbyid(d.defaclrole), n.nspname, d.defaclobjtype, d.defaclacl FROM pg_default_acl d
			LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace ORDER BY 1, 2, 3`,
			`bob|NULL|r|{bob=arwdDxt/bob,analyst=a/bob}
loam|sales|r|{analyst=r/loam}
loam|NULL|S|{loam=rwU/loam,bob=U/loam}`},
		{"has table", loam, `SELECT has_table_privilege('bob', 't1', 'SELECT'), has_table_privilege('bob', 't2', 'DELETE'),
			has_table_privilege('bob', 'sales.orders', 'SELECT'), has_table_privilege('dave', 'sales.orders', 'SELECT'),
			has_table_privilege('bob', 't1', 'INSERT WITH GRANT OPTION'), has_table_privilege('analyst', 'v1', 'SELECT WITH GRANT OPTION'),
			has_table_privilege('public', 't1', 'SELECT'), has_table_privilege('public', 't2', 'SELECT'), has_table_privilege('carol', 't2', 'DELETE'),
			has_table_privilege('analyst', 't1', 'UPDATE, SELECT')`, `t|t|t|f|t|f|t|f|t|t`},
		{"has other", loam, `SELECT has_schema_privilege('analyst', 'sales', 'USAGE'), has_schema_privilege('bob', 'sales', 'CREATE'),
			has_schema_privilege('bob', 'public', 'USAGE'), has_schema_privilege('bob', 'public', 'CREATE'), has_sequence_privilege('bob', 's1', 'USAGE'),
			has_sequence_privilege('bob', 's1', 'UPDATE'), pg_has_role('bob', 'analyst', 'MEMBER'), pg_has_role('dave', 'analyst', 'USAGE'),
			pg_has_role('dave', 'analyst', 'MEMBER'), pg_has_role('dave', 'analyst', 'MEMBER WITH ADMIN OPTION'),
			has_column_privilege('analyst', 'sales.orders', 'amount', 'SELECT'), has_database_privilege('bob', current_database(), 'CREATE'),
			has_database_privilege('bob', current_database(), 'CONNECT')`, `t|f|t|f|t|f|t|f|t|t|t|f|t`},
		{"table_privileges", loam, `SELECT * FROM information_schema.table_privileges WHERE table_schema IN ('public', 'sales')
			ORDER BY table_schema, table_name, grantee, privilege_type`, `loam|PUBLIC|loam|public|t1|SELECT|NO|YES
loam|bob|loam|public|t1|INSERT|YES|NO
loam|bob|loam|public|t1|SELECT|YES|YES
loam|loam|loam|public|t1|DELETE|YES|NO
loam|loam|loam|public|t1|INSERT|YES|NO
loam|loam|loam|public|t1|REFERENCES|YES|NO
loam|loam|loam|public|t1|SELECT|YES|YES
loam|loam|loam|public|t1|TRIGGER|YES|NO
loam|loam|loam|public|t1|TRUNCATE|YES|NO
loam|loam|loam|public|t1|UPDATE|YES|NO
bob|bob|loam|public|t2|DELETE|YES|NO
bob|bob|loam|public|t2|INSERT|YES|NO
bob|bob|loam|public|t2|REFERENCES|YES|NO
bob|bob|loam|public|t2|SELECT|YES|YES
bob|bob|loam|public|t2|TRIGGER|YES|NO
bob|bob|loam|public|t2|TRUNCATE|YES|NO
bob|bob|loam|public|t2|UPDATE|YES|NO
loam|analyst|loam|public|v1|SELECT|NO|YES
loam|loam|loam|public|v1|DELETE|YES|NO
loam|loam|loam|public|v1|INSERT|YES|NO
loam|loam|loam|public|v1|REFERENCES|YES|NO
loam|loam|loam|public|v1|SELECT|YES|YES
loam|loam|loam|public|v1|TRIGGER|YES|NO
loam|loam|loam|public|v1|TRUNCATE|YES|NO
loam|loam|loam|public|v1|UPDATE|YES|NO
loam|analyst|loam|sales|orders|SELECT|NO|YES
loam|loam|loam|sales|orders|DELETE|YES|NO
loam|loam|loam|sales|orders|INSERT|YES|NO
loam|loam|loam|sales|orders|REFERENCES|YES|NO
loam|loam|loam|sales|orders|SELECT|YES|YES
loam|loam|loam|sales|orders|TRIGGER|YES|NO
loam|loam|loam|sales|orders|TRUNCATE|YES|NO
loam|loam|loam|sales|orders|UPDATE|YES|NO`},
		{"applicable_roles", loam, `SELECT grantee, role_name, is_grantable FROM information_schema.applicable_roles ORDER BY 1, 2`,
			`bob|analyst|NO
dave|analyst|YES
loam|pg_database_owner|NO
pg_monitor|pg_read_all_settings|NO
pg_monitor|pg_read_all_stats|NO
pg_monitor|pg_stat_scan_tables|NO`},
		{"enabled_roles", loam, `SELECT count(*) FROM information_schema.enabled_roles`, `17`},
		{"bob's user", bob, `SELECT current_user, session_user`, `bob|bob`},
		{"bob's table_privileges", bob, `SELECT table_schema, table_name, grantor, grantee, privilege_type, is_grantable FROM information_schema.table_privileges
			WHERE table_schema IN ('public', 'sales') ORDER BY 1, 2, 4, 5`, `public|t1|loam|PUBLIC|SELECT|NO
public|t1|loam|bob|INSERT|YES
public|t1|loam|bob|SELECT|YES
public|t2|bob|bob|DELETE|YES
public|t2|bob|bob|INSERT|YES
public|t2|bob|bob|REFERENCES|YES
public|t2|bob|bob|SELECT|YES
public|t2|bob|bob|TRIGGER|YES
public|t2|bob|bob|TRUNCATE|YES
public|t2|bob|bob|UPDATE|YES
public|v1|loam|analyst|SELECT|NO
sales|orders|loam|analyst|SELECT|NO`},
		{"bob's role_table_grants", bob, `SELECT table_schema, table_name, grantor, grantee, privilege_type FROM information_schema.role_table_grants
			WHERE table_schema IN ('public', 'sales') ORDER BY 1, 2, 4, 5`, `public|t1|loam|bob|INSERT
public|t1|loam|bob|SELECT
public|t2|bob|bob|DELETE
public|t2|bob|bob|INSERT
public|t2|bob|bob|REFERENCES
public|t2|bob|bob|SELECT
public|t2|bob|bob|TRIGGER
public|t2|bob|bob|TRUNCATE
public|t2|bob|bob|UPDATE
public|v1|loam|analyst|SELECT
sales|orders|loam|analyst|SELECT`},
		{"bob's applicable_roles", bob, `SELECT grantee, role_name, is_grantable FROM information_schema.applicable_roles ORDER BY 1, 2`, `bob|analyst|NO`},
		{"bob's enabled_roles", bob, `SELECT role_name FROM information_schema.enabled_roles ORDER BY 1`, "analyst\nbob"},
		{"bob's schemata", bob, `SELECT schema_name, schema_owner FROM information_schema.schemata ORDER BY 1`, `information_schema|loam
pg_catalog|loam
public|pg_database_owner
sales|loam`},
		{"bob's has", bob, `SELECT has_table_privilege('t1', 'SELECT'), has_table_privilege('t1', 'UPDATE'), has_table_privilege('sales.orders', 'SELECT'),
			has_table_privilege('pg_class', 'SELECT'), has_table_privilege('pg_authid', 'SELECT'), has_schema_privilege('pg_catalog', 'CREATE')`, `t|f|t|t|f|f`},
		{"bob's usage", bob, `SELECT object_schema, object_name, object_type, grantee FROM information_schema.usage_privileges WHERE object_type = 'SEQUENCE' ORDER BY 1, 2, 4`,
			`public|s1|SEQUENCE|bob`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustRun(t, c.s, c.sql)
			if got := psqlRows(r.rows); got != c.want {
				t.Errorf("got\n%s\nwant (PostgreSQL's)\n%s", got, c.want)
			}
		})
	}
}

// TestCatalogSuperuserOnly: pg_authid, pg_shadow and loam_audit are the
// superusers', as in PostgreSQL (42501); loam_audit lists the audit
// trail.
func TestCatalogSuperuserOnly(t *testing.T) {
	e := openEngine(t)
	ctx := context.Background()
	st := e.Meta()
	if err := st.CreateRole(ctx, meta.Role{Name: "bob", Login: true, Inherit: true}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	for _, ev := range []meta.AuditEvent{
		{Time: at, Role: "bob", Address: "127.0.0.1:5000", Kind: meta.AuditLoginFailed, Detail: "password authentication failed"},
		{Time: at.Add(time.Second), Role: "loam", Kind: meta.AuditDDL, Statement: "CREATE TABLE t (a int)", OK: true},
	} {
		if err := st.AppendAudit(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	loam := newSession(t, e)
	bob, err := e.NewSession("bob", "loam", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, loam, `SELECT at, role, address, kind, statement, ok, detail FROM loam_audit ORDER BY at`)
	got := psqlRows(r.rows)
	for _, want := range []string{"2026-12-02 07:00:00+00|bob|127.0.0.1:5000|login_failed||f|password authentication failed",
		"2026-12-02 07:00:01+00|loam||ddl|CREATE TABLE t (a int)|t|"} {
		if !strings.Contains(got, want) {
			t.Errorf("loam_audit lacks %q:\n%s", want, got)
		}
	}
	if r := mustRun(t, loam, `SELECT rolname, rolpassword IS NULL FROM pg_authid WHERE rolname = 'bob'`); psqlRows(r.rows) != "bob|t" {
		t.Errorf("pg_authid for the superuser: %q", psqlRows(r.rows))
	}
	for _, rel := range []string{"loam_audit", "pg_catalog.loam_audit", "pg_authid"} {
		_, err := runSQL(ctx, bob, "SELECT * FROM "+rel)
		name := strings.TrimPrefix(rel, "pg_catalog.")
		if pe := pgerr.From(err); err == nil || pe.Code != pgerr.InsufficientPrivilege || pe.Message != "permission denied for table "+name {
			t.Errorf("bob reading %s: %v, want 42501 permission denied for table %s", rel, err, name)
		}
	}
	// What every role may read of roles hides the verifiers.
	if r := mustRun(t, bob, `SELECT rolname, rolpassword FROM pg_roles WHERE rolname = 'bob'`); psqlRows(r.rows) != "bob|********" {
		t.Errorf("pg_roles for bob: %q", psqlRows(r.rows))
	}
}

// TestCatalogRevokeSeen: has_table_privilege answers from the metastore
// as of the statement, so a revoke shows at once in a session's next
// statement, and a grant too.
func TestCatalogRevokeSeen(t *testing.T) {
	e := openEngine(t)
	ctx := context.Background()
	loam := newSession(t, e)
	mustRun(t, loam, `CREATE TABLE t (a int)`)
	if err := e.Meta().CreateRole(ctx, meta.Role{Name: "bob", Login: true, Inherit: true}); err != nil {
		t.Fatal(err)
	}
	bob, err := e.NewSession("bob", "loam", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := meta.Grant{Grantee: "bob", Privilege: "SELECT", Object: meta.Object{Kind: meta.KindTable, Schema: "public", Name: "t"}, Grantor: "loam"}
	const q = `SELECT has_table_privilege('t', 'SELECT'), (SELECT relacl FROM pg_class WHERE relname = 't')`
	for _, step := range []struct {
		grant bool
		want  string
	}{{false, "f|" + null}, {true, "t|{loam=arwdDxt/loam,bob=r/loam}"}, {false, "f|" + null}} {
		var err error
		if step.grant {
			err = e.Meta().Grant(ctx, g)
		} else {
			err = e.Meta().Revoke(ctx, g)
		}
		if err != nil {
			t.Fatal(err)
		}
		if r := mustRun(t, bob, q); strings.Join(r.rows[0], "|") != step.want {
			t.Errorf("after grant=%v: %q, want %q", step.grant, strings.Join(r.rows[0], "|"), step.want)
		}
	}
}

// psqlRows is rows as psql -A -t prints them, NULL as NULL.
func psqlRows(rows [][]string) string {
	var lines []string
	for _, row := range rows {
		lines = append(lines, strings.ReplaceAll(strings.Join(row, "|"), null, "NULL"))
	}
	return strings.Join(lines, "\n")
}

// TestCatalogPrivilegeKeptPlan: a has_table_privilege call alone, planned
// again or prepared once and run again, answers as of each execution.
func TestCatalogPrivilegeKeptPlan(t *testing.T) {
	e := openEngine(t)
	ctx := context.Background()
	loam := newSession(t, e)
	mustRun(t, loam, `CREATE TABLE t (a int)`)
	if err := e.Meta().CreateRole(ctx, meta.Role{Name: "bob", Login: true, Inherit: true}); err != nil {
		t.Fatal(err)
	}
	bob, err := e.NewSession("bob", "loam", nil)
	if err != nil {
		t.Fatal(err)
	}
	const q = `SELECT has_table_privilege('t', 'SELECT')`
	stmts, err := bob.Prepare(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := meta.Grant{Grantee: "bob", Privilege: "SELECT", Object: meta.Object{Kind: meta.KindTable, Schema: "public", Name: "t"}, Grantor: "loam"}
	for i, want := range []string{"f", "t", "f"} {
		switch i {
		case 1:
			err = e.Meta().Grant(ctx, g)
		case 2:
			err = e.Meta().Revoke(ctx, g)
		}
		if err != nil {
			t.Fatal(err)
		}
		if r := mustRun(t, bob, q); psqlRows(r.rows) != want {
			t.Errorf("step %d, planned again: %q, want %q", i, psqlRows(r.rows), want)
		}
		r, err := execStmt(ctx, bob, stmts[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		if psqlRows(r.rows) != want {
			t.Errorf("step %d, prepared: %q, want %q", i, psqlRows(r.rows), want)
		}
	}
}

// TestCatalogCurrentUserKeptPlan: current_user and session_user answer as
// of each execution, after SET ROLE too.
func TestCatalogCurrentUserKeptPlan(t *testing.T) {
	e := openEngine(t)
	ctx := context.Background()
	if err := e.Meta().CreateRole(ctx, meta.Role{Name: "bob", Login: true, Inherit: true}); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, e)
	const q = `SELECT current_user, session_user`
	stmts, err := s.Prepare(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ set, want string }{{"", "loam|loam"}, {"SET ROLE bob", "bob|loam"}, {"RESET ROLE", "loam|loam"}} {
		if step.set != "" {
			mustRun(t, s, step.set)
		}
		if r := mustRun(t, s, q); psqlRows(r.rows) != step.want {
			t.Errorf("after %q, planned again: %q, want %q", step.set, psqlRows(r.rows), step.want)
		}
		r, err := execStmt(ctx, s, stmts[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		if psqlRows(r.rows) != step.want {
			t.Errorf("after %q, prepared: %q, want %q", step.set, psqlRows(r.rows), step.want)
		}
	}
}
