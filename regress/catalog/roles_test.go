package catalog

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/meta/pgtest"
)

// rolesSetup makes roles, a schema, objects, grants and default
// privileges on both servers. Default ACLs list grantees by OID, and
// Loam's role OIDs are hashes of the names (pgcatalog.RoleOID), so the
// names are ones whose hashes sort as PostgreSQL's creation order does
// (analyst before dave).
var rolesSetup = `CREATE ROLE analyst;
CREATE ROLE bob LOGIN PASSWORD 'x' VALID UNTIL '2030-01-01 00:00:00+00';
CREATE ROLE carol SUPERUSER LOGIN;
CREATE ROLE dave NOINHERIT CREATEDB CREATEROLE;
CREATE ROLE "Mixed Case" LOGIN;
GRANT analyst TO bob;
GRANT analyst TO dave WITH ADMIN OPTION;
CREATE SCHEMA sales;
CREATE TABLE sales.orders (id int, amount numeric);
CREATE TABLE public.t1 (a int);
CREATE TABLE public.t2 (a int);
CREATE TABLE public.t3 (a int);
CREATE SEQUENCE public.s1;
CREATE VIEW public.v1 AS SELECT * FROM t1;
GRANT USAGE ON SCHEMA sales TO analyst;
GRANT SELECT ON ALL TABLES IN SCHEMA sales TO analyst;
GRANT SELECT, INSERT ON t1 TO bob WITH GRANT OPTION;
GRANT SELECT ON t1 TO PUBLIC;
GRANT ALL ON t3 TO "Mixed Case";
GRANT USAGE ON SEQUENCE s1 TO bob;
GRANT SELECT ON v1 TO analyst;
ALTER TABLE t2 OWNER TO bob;
ALTER DEFAULT PRIVILEGES IN SCHEMA sales GRANT SELECT ON TABLES TO analyst;
ALTER DEFAULT PRIVILEGES FOR ROLE dave GRANT INSERT ON TABLES TO analyst;
ALTER DEFAULT PRIVILEGES GRANT USAGE ON SEQUENCES TO bob;
CREATE SCHEMA secret;
CREATE TABLE secret.plans (id int, plan text);
CREATE TABLE secret.deletable (id int);
CREATE SEQUENCE secret.sq;
CREATE VIEW secret.sv AS SELECT 1 AS x;
GRANT DELETE ON secret.deletable TO bob;
`

// rolesCleanup drops the roles from PostgreSQL's cluster, which the
// package's other tests share (\du lists every role of it).
const rolesCleanup = `DROP SCHEMA secret CASCADE; DROP OWNED BY analyst, bob, carol, dave, "Mixed Case"; DROP ROLE analyst, bob, carol, dave, "Mixed Case"`

// TestPsqlRoles runs psql 15's role and privilege commands, and the
// catalog queries behind has_*_privilege and information_schema, against
// Loam and PostgreSQL after the same GRANTs: the output must be the
// same, the bootstrap superuser's name aside (postgres there, loam here;
// both print as SUPER, unaligned so that the names' lengths do not show,
// and queries list it last by its OID, 10 on both).
func TestPsqlRoles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pgURL := pgtest.Database(t)
	loamURL := startLoam(t)
	urls := []string{pgURL, loamURL}
	t.Cleanup(func() { psqlRun(t, context.Background(), "", pgURL, rolesCleanup) })
	super := map[string]*regexp.Regexp{pgURL: regexp.MustCompile(`\bpostgres\b`), loamURL: regexp.MustCompile(`\bloam\b`)}
	as := func(u, role string) string {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		p.User = url.User(role)
		return p.String()
	}
	// both runs psql as role (the superuser when "") on each server.
	both := func(t *testing.T, role, stdin string, args ...string) (pg, loam string) {
		t.Helper()
		out := map[string]string{}
		for _, u := range urls {
			c := u
			if role != "" {
				c = as(u, role)
			}
			out[u] = super[u].ReplaceAllString(psqlRun(t, ctx, "", c, stdin, args...), "SUPER")
		}
		return out[pgURL], out[loamURL]
	}
	if pg, loam := both(t, "", rolesSetup); pg != loam {
		t.Fatalf("setup differs\nPostgreSQL:\n%s\nLoam:\n%s", pg, loam)
	}
	check := func(t *testing.T, role string, cmds [][]string) {
		t.Helper()
		for _, cmd := range cmds {
			if pg, loam := both(t, role, "", cmd...); pg != loam {
				t.Errorf("psql as %s: %s differs\nPostgreSQL:\n%s\nLoam:\n%s", role, strings.Join(cmd, " "), pg, loam)
			}
		}
	}
	t.Run("superuser", func(t *testing.T) {
		check(t, "", [][]string{
			{"-A", "-c", `\du`}, {"-A", "-c", `\dg`}, {"-A", "-c", `\du+`}, {"-A", "-c", `\du bob`}, {"-A", "-c", `\dp`}, {"-A", "-c", `\dp sales.*`},
			{"-A", "-c", `\z t1`}, {"-A", "-c", `\ddp`}, {"-A", "-c", `\dn+`}, {"-A", "-c", `\dt`}, {"-A", "-c", `\ds`}, {"-A", "-c", `\dv`},
			{"-A", "-c", `SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolconnlimit,
				rolpassword, rolvaliduntil, rolbypassrls, rolconfig, oid < 16384 AS builtin FROM pg_roles ORDER BY oid = 10, 1`},
			{"-A", "-c", `SELECT usename, usecreatedb, usesuper, userepl, usebypassrls, passwd, valuntil FROM pg_user ORDER BY usesysid = 10, 1`},
			{"-A", "-c", `SELECT rolname, rolpassword IS NULL FROM pg_authid ORDER BY oid = 10, 1`},
			{"-A", "-c", `SELECT usename, passwd IS NULL FROM pg_shadow ORDER BY usesysid = 10, 1`},
			{"-A", "-c", `SELECT r.rolname, m.rolname, g.rolname, a.admin_option FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid
				JOIN pg_roles m ON m.oid = a.member JOIN pg_roles g ON g.oid = a.grantor ORDER BY 1, 2`},
			{"-A", "-c", `SELECT c.relname, pg_get_userbyid(c.relowner), c.relacl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE n.nspname IN ('public', 'sales') ORDER BY 1`},
			// The aclitem type: its arrays, casts and pg_typeof.
			{"-A", "-c", `SELECT relname, relacl, relacl::text, array_to_string(relacl, ', '), relacl[1], pg_typeof(relacl), pg_typeof(relacl[1])
				FROM pg_class WHERE relname IN ('t1', 't2') ORDER BY 1`},
			{"-A", "-c", `SELECT unnest(relacl) FROM pg_class WHERE relname = 't1'`},
			{"-c", `SELECT 'bob=r/carol'::aclitem, '=rw/carol'::aclitem::text, '{bob=r/carol}'::aclitem[], format_type('aclitem[]'::regtype, NULL),
				'aclitem'::regtype::oid`},
			{"-A", "-c", `SELECT typname, typlen, typcategory FROM pg_type WHERE typname IN ('aclitem', '_aclitem') ORDER BY 1`},
			// aclexplode and acldefault, as pgAdmin and DBeaver read ACLs.
			{"-A", "-c", `SELECT acldefault('f', 10), acldefault('T', 10), acldefault('d', 10), acldefault('c', 10), acldefault('l', 10),
				acldefault('r', 10), acldefault('s', 10), acldefault('n', 10)`},
			{"-A", "-c", `SELECT c.relname, gr.rolname, ge.rolname, a.privilege_type, a.is_grantable FROM pg_class c, aclexplode(c.relacl) a
				LEFT JOIN pg_roles ge ON ge.oid = a.grantee JOIN pg_roles gr ON gr.oid = a.grantor WHERE c.relname IN ('t1', 'orders') ORDER BY 1, 3, 4`},
			{"-A", "-c", `SELECT n.nspname, r.rolname, x.p, x.g FROM pg_namespace n, aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) x(gr, ge, p, g)
				JOIN pg_roles r ON r.oid = x.ge WHERE n.nspname IN ('sales', 'secret') ORDER BY 1, 2, 3`},
			{"-A", "-c", `SELECT count(*) FROM aclexplode(NULL)`},
			{"-c", `SELECT acldefault('x', 10)`},
			// regrole.
			{"-A", "-c", `SELECT 'bob'::regrole, 'BOB'::regrole::text, '"Mixed Case"'::regrole, 10::regrole, 10::regrole::oid,
				pg_typeof('bob'::regrole), 0::regrole, 'bob'::regrole = 'bob'::regrole`},
			{"-A", "-c", `SELECT relname, relowner::regrole FROM pg_class WHERE relname IN ('t1', 't2') ORDER BY 1`},
			{"-A", "-c", `SELECT a.grantor::regrole, a.grantee::regrole, a.privilege_type FROM aclexplode((SELECT relacl FROM pg_class WHERE relname = 't1')) a
				ORDER BY 3, a.grantee`},
			{"-c", `SELECT 'nobody'::regrole`},
			{"-A", "-c", `SELECT tablename, tableowner FROM pg_tables WHERE schemaname IN ('public', 'sales') ORDER BY 1`},
			{"-A", "-c", `SELECT viewname, viewowner FROM pg_views WHERE schemaname = 'public' ORDER BY 1`},
			{"-A", "-c", `SELECT relname, relacl FROM pg_class WHERE relname IN ('pg_class', 'pg_authid', 'pg_shadow', 'pg_roles', 'tables', 'table_privileges') ORDER BY 1`},
			{"-A", "-c", `SELECT has_table_privilege('bob', 't1', 'SELECT'), has_table_privilege('bob', 't2', 'DELETE'),
				has_table_privilege('bob', 'sales.orders', 'SELECT'), has_table_privilege('dave', 'sales.orders', 'SELECT'),
				has_table_privilege('bob', 't1', 'INSERT WITH GRANT OPTION'), has_table_privilege('analyst', 'v1', 'SELECT WITH GRANT OPTION'),
				has_table_privilege('public', 't1', 'SELECT'), has_table_privilege('public', 't2', 'SELECT'), has_table_privilege('carol', 't2', 'DELETE'),
				has_table_privilege('analyst', 't1', 'UPDATE, SELECT'), has_table_privilege('Mixed Case', 't3', 'TRUNCATE')`},
			{"-A", "-c", `SELECT has_schema_privilege('analyst', 'sales', 'USAGE'), has_schema_privilege('bob', 'sales', 'CREATE'),
				has_schema_privilege('bob', 'public', 'USAGE'), has_schema_privilege('bob', 'public', 'CREATE'), has_sequence_privilege('bob', 's1', 'USAGE'),
				has_sequence_privilege('bob', 's1', 'UPDATE'), pg_has_role('bob', 'analyst', 'MEMBER'), pg_has_role('dave', 'analyst', 'USAGE'),
				pg_has_role('dave', 'analyst', 'MEMBER'), pg_has_role('dave', 'analyst', 'MEMBER WITH ADMIN OPTION'),
				has_column_privilege('analyst', 'sales.orders', 'amount', 'SELECT'), has_database_privilege('bob', current_database(), 'CREATE'),
				has_database_privilege('bob', current_database(), 'CONNECT')`},
			{"-c", `SELECT has_table_privilege('nobody', 't1', 'SELECT')`},
			{"-c", `SELECT has_sequence_privilege('t1', 'USAGE')`},
			{"-c", `SELECT pg_has_role('bob', 'nobody', 'MEMBER')`},
			{"-A", "-c", `SELECT grantor, grantee, table_schema, table_name, privilege_type, is_grantable, with_hierarchy
				FROM information_schema.table_privileges WHERE table_schema IN ('public', 'sales') ORDER BY table_schema, table_name, grantee, privilege_type`},
			{"-A", "-c", `SELECT count(*) FROM information_schema.role_table_grants WHERE table_schema IN ('public', 'sales')`},
			{"-A", "-c", `SELECT * FROM information_schema.applicable_roles ORDER BY grantee = current_user, 1, 2`},
			{"-A", "-c", `SELECT role_name FROM information_schema.enabled_roles ORDER BY role_name = current_user, 1`},
			{"-A", "-c", `SELECT grantor, grantee, object_schema, object_name, object_type, privilege_type, is_grantable
				FROM information_schema.usage_privileges WHERE object_type = 'SEQUENCE' ORDER BY 4, 2`},
			{"-A", "-c", `SELECT schema_name, schema_owner FROM information_schema.schemata WHERE schema_name <> 'pg_toast' ORDER BY 1`},
			{"-A", "-c", `SELECT grantor, grantee, table_schema, table_name, column_name, privilege_type, is_grantable FROM information_schema.column_privileges
				WHERE table_schema IN ('public', 'sales', 'secret') ORDER BY 3, 4, 5, 2, 6`},
			{"-A", "-c", `SELECT count(*) FROM information_schema.role_column_grants WHERE table_schema IN ('public', 'sales', 'secret')`},
			{"-A", "-c", `SELECT grantor, grantee, object_schema, object_name, object_type, privilege_type, is_grantable FROM information_schema.role_usage_grants
				WHERE object_type = 'SEQUENCE' ORDER BY 4, 2`},
			{"-A", "-c", `SELECT * FROM information_schema.administrable_role_authorizations ORDER BY 1, 2`},
		})
	})
	t.Run("bob", func(t *testing.T) {
		check(t, "bob", [][]string{
			{"-A", "-c", `SELECT current_user, session_user`},
			{"-A", "-c", `\dp`},
			{"-A", "-c", `SELECT table_schema, table_name, grantor, grantee, privilege_type, is_grantable FROM information_schema.table_privileges
				WHERE table_schema IN ('public', 'sales') ORDER BY 1, 2, 4, 5`},
			{"-A", "-c", `SELECT table_schema, table_name, grantor, grantee, privilege_type FROM information_schema.role_table_grants
				WHERE table_schema IN ('public', 'sales') ORDER BY 1, 2, 4, 5`},
			{"-A", "-c", `SELECT * FROM information_schema.applicable_roles ORDER BY 1, 2`},
			{"-A", "-c", `SELECT role_name FROM information_schema.enabled_roles ORDER BY 1`},
			{"-A", "-c", `SELECT schema_name, schema_owner FROM information_schema.schemata WHERE schema_name <> 'pg_toast' ORDER BY 1`},
			{"-A", "-c", `SELECT has_table_privilege('t1', 'SELECT'), has_table_privilege('t1', 'UPDATE'), has_table_privilege('sales.orders', 'SELECT'),
				has_table_privilege('pg_class', 'SELECT'), has_table_privilege('pg_authid', 'SELECT'), has_schema_privilege('pg_catalog', 'CREATE'),
				has_table_privilege('t2', 'TRUNCATE WITH GRANT OPTION')`},
			// information_schema shows bob what he owns or holds a
			// privilege on (columns: SELECT, INSERT, UPDATE or
			// REFERENCES), not what pg_class lists.
			{"-A", "-c", `SELECT table_schema, table_name, table_type FROM information_schema.tables
				WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`},
			{"-A", "-c", `SELECT table_schema, table_name, column_name FROM information_schema.columns
				WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3`},
			{"-A", "-c", `SELECT table_schema, table_name, view_definition IS NULL FROM information_schema.views
				WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`},
			{"-A", "-c", `SELECT sequence_schema, sequence_name FROM information_schema.sequences ORDER BY 1, 2`},
			{"-A", "-c", `SELECT grantor, grantee, table_schema, table_name, column_name, privilege_type, is_grantable FROM information_schema.column_privileges
				WHERE table_schema IN ('public', 'sales', 'secret') ORDER BY 3, 4, 5, 2, 6`},
			{"-A", "-c", `SELECT grantor, grantee, table_schema, table_name, column_name, privilege_type FROM information_schema.role_column_grants
				WHERE table_schema IN ('public', 'sales', 'secret') ORDER BY 3, 4, 5, 2, 6`},
			{"-A", "-c", `SELECT grantor, grantee, object_schema, object_name, privilege_type FROM information_schema.role_usage_grants
				WHERE object_type = 'SEQUENCE' ORDER BY 4, 2`},
			{"-A", "-c", `SELECT * FROM information_schema.administrable_role_authorizations ORDER BY 1, 2`},
			{"-A", "-c", `SELECT count(*) FROM pg_class WHERE relnamespace = 'secret'::regnamespace`},
			{"-A", "-c", `SELECT has_tablespace_privilege('pg_default', 'CREATE'), has_tablespace_privilege('pg_global', 'CREATE'),
				has_language_privilege('sql', 'USAGE'), has_language_privilege('c', 'USAGE'), has_function_privilege('now()', 'EXECUTE'),
				has_type_privilege('int4', 'USAGE'), has_tablespace_privilege('carol', 'pg_default', 'CREATE')`},
			{"-c", `SELECT has_tablespace_privilege('nope', 'CREATE')`},
			{"-c", `SELECT rolname FROM pg_authid`},
			{"-c", `SELECT usename FROM pg_shadow`},
			{"-A", "-c", `SELECT rolname, rolpassword FROM pg_roles WHERE rolname = 'bob'`},
			{"-A", "-c", `SET ROLE analyst`, "-c", `SELECT current_user, session_user, has_table_privilege('t1', 'INSERT'), has_table_privilege('v1', 'SELECT')`},
		})
	})
	t.Run("database", func(t *testing.T) {
		const grant = `SELECT current_database() AS db \gset
GRANT CREATE ON DATABASE :"db" TO bob;
\pset format unaligned
SELECT datacl, has_database_privilege('bob', :'db', 'CREATE'), has_database_privilege('analyst', :'db', 'CREATE, CONNECT') FROM pg_database WHERE datname = :'db';
REVOKE CREATE ON DATABASE :"db" FROM bob;
SELECT datacl, has_database_privilege('bob', :'db', 'CREATE') FROM pg_database WHERE datname = :'db';
`
		// PostgreSQL keeps the list it made for the grant; Loam, which
		// records grants, shows NULL again (see below).
		pg, loam := both(t, "", grant)
		if pg = strings.Replace(pg, "{=Tc/SUPER,SUPER=CTc/SUPER}|f", "|f", 1); pg != loam {
			t.Errorf("database privileges differ\nPostgreSQL (Loam's NULL in place):\n%s\nLoam:\n%s", pg, loam)
		}
	})
	t.Run("schema public", func(t *testing.T) {
		// PUBLIC's USAGE, granted at the first start, leads the list;
		// a superuser grants as the owner, pg_database_owner.
		if pg, loam := both(t, "", "", "-A", "-c", `GRANT CREATE ON SCHEMA public TO bob`, "-c", `\dn+ public`,
			"-c", `SELECT has_schema_privilege('bob', 'public', 'CREATE')`, "-c", `REVOKE CREATE ON SCHEMA public FROM bob`, "-c", `\dn+ public`); pg != loam {
			t.Errorf("schema public differs\nPostgreSQL:\n%s\nLoam:\n%s", pg, loam)
		}
	})
	t.Run("revoke", func(t *testing.T) {
		if pg, loam := both(t, "", `REVOKE SELECT ON t1 FROM PUBLIC; REVOKE INSERT ON t1 FROM bob; REVOKE GRANT OPTION FOR SELECT ON t1 FROM bob;
			REVOKE USAGE ON SCHEMA sales FROM analyst; ALTER DEFAULT PRIVILEGES FOR ROLE dave REVOKE INSERT ON TABLES FROM analyst;`); pg != loam {
			t.Fatalf("revokes differ\nPostgreSQL:\n%s\nLoam:\n%s", pg, loam)
		}
		// Once every grant on sales is revoked, PostgreSQL keeps the
		// owner's privileges in nspacl and Loam, which records grants and
		// not lists, shows NULL as for a schema never granted on.
		pg, loam := both(t, "", "", "-A", "-c", `\dn+ sales`)
		if pg = strings.Replace(pg, "sales|SUPER|SUPER=UC/SUPER|", "sales|SUPER||", 1); pg != loam {
			t.Errorf("psql \\dn+ sales differs\nPostgreSQL (Loam's NULL in place):\n%s\nLoam:\n%s", pg, loam)
		}
		check(t, "", [][]string{{"-A", "-c", `\z t1`}, {"-A", "-c", `\ddp`},
			{"-A", "-c", `SELECT has_table_privilege('bob', 't1', 'INSERT'), has_table_privilege('bob', 't1', 'SELECT WITH GRANT OPTION'),
				has_table_privilege('analyst', 't1', 'SELECT'), has_schema_privilege('analyst', 'sales', 'USAGE')`}})
	})
}
