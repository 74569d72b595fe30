// Package catalog checks Loam's emulated pg_catalog and information_schema
// against a throwaway PostgreSQL 15 (meta/pgtest): each query must return
// the same column names and types from both, and, where the answer does not
// depend on the server (owners, OIDs), the same rows.
//
//	LOAM_BIN=$PWD/bin/loam go test -count=1 ./regress/catalog/
package catalog

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loamdb/loam/meta/pgtest"
)

// setup runs on both servers before the queries.
const setup = `CREATE TABLE llm_calls (ts timestamptz NOT NULL, model text, tokens int,
	cost numeric(10,4), latency_ms float8, ok bool, note varchar(20))`

// keysSetup is a table with a two-column primary key, for the queries
// of PgJDBC's key and index metadata.
const keysSetup = `CREATE TABLE llm_keys (id int, model text, day date, PRIMARY KEY (model, id))`

// defaultsSetup is a table whose columns have DEFAULTs of the kinds
// applications declare (and SQLAlchemy's server_default emits).
const defaultsSetup = `CREATE TABLE llm_usage (id uuid DEFAULT gen_random_uuid(), created_at timestamptz NOT NULL DEFAULT now(),
	tenant text DEFAULT 'none', tokens int DEFAULT 0, neg int DEFAULT -1, total bigint DEFAULT 1 + 1, at2 timestamptz DEFAULT current_timestamp,
	day date DEFAULT CURRENT_DATE, score float8 DEFAULT 1.5, loss float8 DEFAULT -0.5, note varchar(20) DEFAULT 'it''s', ok bool DEFAULT true,
	since timestamptz DEFAULT '2026-01-01', up text DEFAULT upper('a'), nothing int DEFAULT NULL, plain text,
	prec int DEFAULT 1 + 2 * 3, paren int DEFAULT (1 + 2) * 3, c0 bigint DEFAULT 0::bigint, c1 bigint DEFAULT (1 + 1)::bigint,
	vc varchar(10) DEFAULT 'n'::varchar(10), nul text DEFAULT NULL::text, tomorrow date DEFAULT current_date + 1,
	big bigint DEFAULT 5000000000, num numeric DEFAULT '0', later timestamptz DEFAULT now() + interval '1 day',
	cat text DEFAULT 'a' || lower('B'), lt timestamp DEFAULT localtimestamp(3), who text DEFAULT current_user)`

// commentSetup documents llm_calls as data teams do (COMMENT ON), so the
// queries of psql, PgJDBC and SQLAlchemy that read comments compare them.
var commentSetup = []string{
	`COMMENT ON TABLE llm_calls IS 'one row per LLM call'`,
	`COMMENT ON COLUMN llm_calls.model IS 'model id, as the provider names it'`,
	`COMMENT ON COLUMN public.llm_calls.cost IS 'USD'`,
	`COMMENT ON COLUMN llm_calls.tokens IS 'dropped'`,
	`COMMENT ON COLUMN llm_calls.tokens IS NULL`,
	`COMMENT ON COLUMN llm_keys.id IS ''`,
}

// standIns are PostgreSQL catalog column types Loam does not have yet,
// and the type it reports those columns as instead.
var standIns = map[uint32]uint32{
	24: 25, 28: 25, 194: 25, 2277: 25, 869: 25, // regproc, xid, pg_node_tree, anyarray, inet: text
	22: 1005, 30: 1028, 1034: 1009, // int2vector: smallint[]; oidvector: oid[]; aclitem[]: text[]
}

type query struct {
	sql  string
	rows bool // compare the rows too
	// oid: sql is a template whose %[1]s is llm_calls' OID on each server,
	// as psql inlines it.
	oid bool
}

var queries = []query{
	{sql: `SELECT * FROM pg_catalog.pg_namespace`},
	{sql: `SELECT * FROM pg_catalog.pg_class`},
	{sql: `SELECT * FROM pg_catalog.pg_attribute`},
	{sql: `SELECT * FROM pg_catalog.pg_type`},
	{sql: `SELECT * FROM pg_catalog.pg_database`},
	{sql: `SELECT * FROM pg_catalog.pg_roles`},
	{sql: `SELECT * FROM pg_catalog.pg_user`},
	{sql: `SELECT * FROM pg_catalog.pg_settings`},
	{sql: `SELECT * FROM pg_catalog.pg_index`},
	{sql: `SELECT * FROM pg_catalog.pg_constraint`},
	{sql: `SELECT * FROM pg_catalog.pg_description`},
	{sql: `SELECT * FROM pg_catalog.pg_am`},
	{sql: `SELECT * FROM pg_catalog.pg_attrdef`},
	{sql: `SELECT * FROM pg_catalog.pg_inherits`},
	{sql: `SELECT * FROM pg_catalog.pg_extension`},
	{sql: `SELECT * FROM pg_catalog.pg_authid`},
	{sql: `SELECT * FROM pg_catalog.pg_auth_members`},
	{sql: `SELECT * FROM pg_catalog.pg_language`},
	{sql: `SELECT e.extname, d.description FROM pg_extension e JOIN pg_description d ON d.objoid = e.oid AND d.classoid = 'pg_extension'::regclass`, rows: true},
	{sql: `SELECT * FROM pg_partition_tree('llm_calls')`, rows: true},
	{sql: `SELECT count(*) FROM pg_partition_tree('pg_class')`, rows: true},
	{sql: `SELECT pg_size_pretty(12345678::numeric), pg_size_pretty(sum(x)) FROM (VALUES (1::bigint), (2047)) v(x)`, rows: true},
	{sql: `SELECT * FROM pg_catalog.pg_tables`},
	{sql: `SELECT * FROM pg_catalog.pg_views`},
	{sql: `SELECT * FROM pg_catalog.pg_matviews`},
	{sql: `SELECT * FROM pg_catalog.pg_tablespace`},
	{sql: `SELECT * FROM pg_catalog.pg_proc`},
	{sql: `SELECT * FROM pg_catalog.pg_enum`},
	{sql: `SELECT * FROM pg_catalog.pg_range`},
	{sql: `SELECT * FROM pg_catalog.pg_rewrite`},
	{sql: `SELECT * FROM pg_catalog.pg_sequence`},
	{sql: `SELECT * FROM pg_catalog.pg_trigger`},
	{sql: `SELECT * FROM pg_catalog.pg_stat_activity`},
	{sql: `SELECT * FROM information_schema.views`},
	{sql: `SELECT schemaname, tablename, hasindexes FROM pg_tables WHERE schemaname = 'public'`, rows: true},
	{sql: `SELECT spcname FROM pg_tablespace ORDER BY oid`, rows: true},
	{sql: `SELECT count(*) FROM information_schema.views WHERE table_schema = 'public'`, rows: true},
	{sql: `SELECT state, backend_type FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'`, rows: true},
	{sql: `SELECT * FROM information_schema.schemata`},
	{sql: `SELECT * FROM information_schema.tables`},
	{sql: `SELECT * FROM information_schema.columns`},
	// Unqualified: pg_catalog is implicitly first on the search path.
	{sql: `SELECT * FROM pg_namespace`},
	{sql: `SELECT nspname FROM pg_namespace WHERE nspname IN ('pg_catalog', 'public', 'information_schema') ORDER BY 1`, rows: true},
	{sql: `SELECT n.nspname, c.relname, c.relkind, c.relnatts, c.relpersistence
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 2`, rows: true},
	{sql: `SELECT a.attname, a.attnum, a.atttypid, a.atttypmod, a.attlen, a.attnotnull, a.attisdropped,
		pg_catalog.format_type(a.atttypid, a.atttypmod)
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
		WHERE c.relname = 'llm_calls' AND a.attnum > 0 ORDER BY a.attnum`, rows: true},
	{sql: `SELECT table_schema, table_name, table_type, is_insertable_into FROM information_schema.tables
		WHERE table_schema = 'public' ORDER BY table_name`, rows: true},
	{sql: `SELECT column_name, ordinal_position, is_nullable, data_type, character_maximum_length,
		numeric_precision, numeric_precision_radix, numeric_scale, datetime_precision, udt_schema, udt_name
		FROM information_schema.columns WHERE table_name = 'llm_calls' ORDER BY ordinal_position`, rows: true},
	{sql: `SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'public'`, rows: true},
	// Column DEFAULTs: pg_attrdef, atthasdef, the deparsed expressions.
	{sql: `SELECT a.attname, a.atthasdef, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true), d.adnum = a.attnum
		FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE a.attrelid = 'llm_usage'::regclass AND a.attnum > 0 ORDER BY a.attnum`, rows: true},
	{sql: `SELECT column_name, column_default, is_nullable FROM information_schema.columns
		WHERE table_name = 'llm_usage' ORDER BY ordinal_position`, rows: true},
	{sql: `SELECT count(*), count(DISTINCT oid) FROM pg_attrdef WHERE adrelid = 'llm_usage'::regclass`, rows: true},
	{sql: `SELECT t.oid, t.typname, t.typlen, t.typbyval, t.typcategory, t.typelem, t.typarray FROM pg_type t
		WHERE t.typname IN ('int4', 'text', 'name', 'oid', 'char', 'bool', 'timestamptz', 'numeric', '_int4', 'varchar')
		ORDER BY t.oid`, rows: true},
	{sql: `SELECT extname FROM pg_extension WHERE extname IN ('plpgsql', 'timescaledb')`, rows: true},
	{sql: `SELECT amname, amtype FROM pg_am WHERE amname = 'heap'`, rows: true},
	{sql: `SELECT count(*) FROM pg_inherits`, rows: true},
	{sql: `SELECT count(*) FROM pg_description WHERE objoid = (SELECT oid FROM pg_class WHERE relname = 'llm_calls')`, rows: true},
	{sql: `SELECT c.relname, d.objsubid, d.description FROM pg_description d JOIN pg_class c ON c.oid = d.objoid
		AND d.classoid = 'pg_class'::regclass WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1, 2`, rows: true},
	{sql: `SELECT n.nspname, d.description FROM pg_namespace n JOIN pg_description d ON d.objoid = n.oid
		AND d.classoid = 'pg_namespace'::regclass WHERE n.nspname IN ('public', 'pg_catalog', 'information_schema') ORDER BY 1`, rows: true},
	{sql: `SELECT a.attname, col_description(a.attrelid, a.attnum), obj_description(a.attrelid, 'pg_class'),
		obj_description(a.attrelid, 'pg_namespace'), obj_description(a.attrelid) FROM pg_attribute a
		WHERE a.attrelid = 'llm_calls'::regclass AND a.attnum > 0 ORDER BY a.attnum`, rows: true},
	{sql: `SELECT obj_description('public'::regnamespace, 'pg_namespace'), obj_description('pg_catalog'::regnamespace),
		col_description('llm_calls'::regclass, 0), col_description('llm_calls'::regclass, 99), obj_description(NULL, 'pg_class')`, rows: true},
	{sql: `SELECT 'abc'::name, 26::oid, '-1'::oid, 'xy'::"char", 5::oid = 5, (3::oid)::int8`, rows: true},
	// psql's \dt+ and \d+ print sizes through pg_size_pretty: its units
	// and rounding at each boundary.
	{sql: `SELECT v, pg_size_pretty(v) FROM (VALUES (0::int8), (1), (-1), (10239), (10240), (-10240), (-10241),
		(10485247), (10485248), (10485760), (20971007), (20971008), (123456789), (1099511627776),
		(9223372036854775807), (-9223372036854775807)) t(v)`, rows: true},
	{sql: `SELECT current_database()`},
	{sql: `SELECT current_schema(), current_schemas(true), current_schemas(false),
		pg_catalog.format_type(1043, 24), format_type(1700, 655366), format_type(1184, NULL), format_type(18, -1), format_type(1007, -1),
		obj_description(1::oid, 'pg_class'), col_description(1::oid, 1), has_table_privilege('llm_calls', 'select'),
		has_schema_privilege('public', 'usage')`, rows: true},
	{sql: `SELECT current_user, session_user, user, current_catalog, current_schema, pg_get_userbyid(10), version()`},
	{sql: `SELECT setting FROM pg_settings WHERE name = 'server_version_num'`},
	// psql 15's \dt, verbatim.
	{sql: `SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;`},
	// psql 15's \d llm_calls, verbatim, as far as Loam answers it so far.
	{sql: `SELECT c.oid,
  n.nspname,
  c.relname
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(llm_calls)$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 2, 3;`},
	{oid: true, sql: `SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false AS relhasoids, c.relispartition, '', c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, c.relreplident, am.amname
FROM pg_catalog.pg_class c
 LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid)
LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
WHERE c.oid = '%[1]s';`, rows: true},
	{oid: true, sql: `SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = '%[1]s' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;`, rows: true},
	{oid: true, sql: `SELECT c.oid::pg_catalog.regclass
FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhparent AND i.inhrelid = '%[1]s'
  AND c.relkind != 'p' AND c.relkind != 'I'
ORDER BY inhseqno;`, rows: true},
	{oid: true, sql: `SELECT oid, stxrelid::pg_catalog.regclass, stxnamespace::pg_catalog.regnamespace::pg_catalog.text AS nsp, stxname,
pg_catalog.pg_get_statisticsobjdef_columns(oid) AS columns,
  'd' = any(stxkind) AS ndist_enabled,
  'f' = any(stxkind) AS deps_enabled,
  'm' = any(stxkind) AS mcv_enabled,
stxstattarget
FROM pg_catalog.pg_statistic_ext
WHERE stxrelid = '%[1]s'
ORDER BY nsp, stxname;`, rows: true},
	{oid: true, sql: `SELECT pubname
     , NULL
     , NULL
FROM pg_catalog.pg_publication p
     JOIN pg_catalog.pg_publication_namespace pn ON p.oid = pn.pnpubid
     JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.pnnspid
WHERE pc.oid ='%[1]s' and pg_catalog.pg_relation_is_publishable('%[1]s')
UNION
SELECT pubname
     , pg_get_expr(pr.prqual, c.oid)
     , (CASE WHEN pr.prattrs IS NOT NULL THEN
         (SELECT string_agg(attname, ', ')
           FROM pg_catalog.generate_series(0, pg_catalog.array_upper(pr.prattrs::pg_catalog.int2[], 1)) s,
                pg_catalog.pg_attribute
          WHERE attrelid = pr.prrelid AND attnum = prattrs[s])
        ELSE NULL END) FROM pg_catalog.pg_publication p
     JOIN pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid
     JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid
WHERE pr.prrelid = '%[1]s'
UNION
SELECT pubname
     , NULL
     , NULL
FROM pg_catalog.pg_publication p
WHERE p.puballtables AND pg_catalog.pg_relation_is_publishable('%[1]s')
ORDER BY 1;`, rows: true},
	{oid: true, sql: `SELECT c.oid::pg_catalog.regclass, c.relkind, inhdetachpending, pg_catalog.pg_get_expr(c.relpartbound, c.oid)
FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhrelid AND i.inhparent = '%[1]s'
ORDER BY pg_catalog.pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT', c.oid::pg_catalog.regclass::pg_catalog.text;`, rows: true},
	{sql: `SELECT 'llm_calls'::regclass, 'llm_calls'::regclass::oid = oid, oid::regclass, 23::regtype, 'int4'::regtype,
		'pg_class'::regclass, 'varchar'::regtype, 1043::regtype::text FROM pg_class WHERE relname = 'llm_calls'`, rows: true},
	{sql: `SELECT attname FROM pg_attribute WHERE attrelid = 'llm_calls'::regclass AND attnum > 0 ORDER BY attnum`, rows: true},
	{sql: `SELECT collname, collprovider FROM pg_collation WHERE oid IN (100, 950, 951) ORDER BY oid`, rows: true},
	{sql: `SELECT * FROM pg_catalog.pg_collation`},
	{sql: `SELECT * FROM pg_catalog.pg_policy`},
	{sql: `SELECT * FROM pg_catalog.pg_statistic_ext`},
	{sql: `SELECT * FROM pg_catalog.pg_publication`},
	{sql: `SELECT * FROM pg_catalog.pg_publication_rel`},
	{sql: `SELECT * FROM pg_catalog.pg_publication_namespace`},
	// Grafana's query builder (its older texts).
	{sql: `SELECT quote_ident(schema_name) FROM information_schema.schemata WHERE schema_name NOT LIKE 'pg_%' AND schema_name NOT LIKE '\_%' AND schema_name <> 'information_schema';`, rows: true},
	{sql: `SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = 'public'`, rows: true},
	{sql: `SELECT quote_ident(column_name) AS column, data_type AS type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'llm_calls' ORDER BY ordinal_position`, rows: true},
	{sql: `SELECT upper(relname), length(relkind), relname || '!' FROM pg_class WHERE relname = 'llm_calls'`, rows: true},
	{sql: `SELECT parse_ident('public."Llm""x"'), parse_ident('A . b'), parse_ident('a.b junk', false), (parse_ident('x.y'))[2],
		('{4,5,6}'::int[])[2], 2 = ANY('{1,2}'::int[]), 3 <> ALL('{1,2}'), 3 = ANY('{1,NULL}'), array_upper('{4,5}'::int2[], 1)`, rows: true},
	{sql: `SELECT * FROM upper('x') u`, rows: true},
	{sql: `SELECT '{a}'::text[] || '{b,c}'::text[], '{1}'::int[] || 2, 0 || '{1}'::int[], NULL::text[] || '{x}'::text[], '{a}'::text[] || NULL::text`, rows: true},
	{sql: `SELECT x FROM unnest('{3,1,NULL}'::int[]) x`, rows: true},
	{sql: `SELECT * FROM unnest('{a,"b c"}'::text[])`, rows: true},
	{sql: `SELECT array(SELECT relname FROM pg_class WHERE relnamespace = 2200 ORDER BY 1)`, rows: true},
	// Grafana's current table and column lists, as its data source sends them.
	{sql: grafanaTables, rows: true},
	{sql: fmt.Sprintf(grafanaColumns, "'llm_calls'", "'llm_calls'", "'llm_calls'", "'llm_calls'", grafanaSchema), rows: true},
	{sql: fmt.Sprintf(grafanaColumns, "'public.llm_calls'", "'public.llm_calls'", "'public.llm_calls'", "'public.llm_calls'", grafanaSchema), rows: true},
	// Grafana's version probe.
	{sql: `SELECT current_setting('server_version_num')::int/100`, rows: true},
	{sql: `SELECT current_setting('no_such_setting', true), current_setting('TimeZone'), current_setting('search_path')`},
	{sql: `SELECT pg_encoding_to_char(6), 'B' COLLATE "C" < 'a', pg_get_expr(NULL, 0)`, rows: true},
	// Every catalog table clients read, by its columns' names and types.
	{sql: `SELECT * FROM pg_catalog.pg_publication_tables LIMIT 0`},
	{sql: `SELECT * FROM information_schema.views LIMIT 0`},
	{sql: `SELECT * FROM pg_catalog.pg_authid LIMIT 0`},
	{sql: `SELECT * FROM pg_catalog.pg_stat_activity LIMIT 0`},
	// The functions and casts of the checklist, one query each so
	// a failure names its function.
	{sql: `SELECT format_type('llm_calls'::regclass::oid, NULL), format_type(25, NULL), format_type(1043, -1), format_type(0, NULL)`, rows: true},
	{sql: `SELECT pg_get_userbyid(0) IS NOT NULL, pg_table_is_visible('llm_calls'::regclass), pg_table_is_visible('pg_class'::regclass)`, rows: true},
	{sql: `SELECT pg_get_indexdef(0), pg_get_constraintdef(0), pg_get_expr(NULL, 'llm_calls'::regclass)`, rows: true},
	{sql: `SELECT obj_description('llm_calls'::regclass, 'pg_class'), obj_description('llm_calls'::regclass), col_description('llm_calls'::regclass, 1)`, rows: true},
	{sql: `SELECT pg_encoding_to_char(0), pg_encoding_to_char(6)`, rows: true},
	// SQLAlchemy's reflection (clients/python/sqlalchemy_client.py).
	{sql: `SELECT pg_type_is_visible(25), pg_type_is_visible(1007), pg_type_is_visible(0), pg_get_serial_sequence('llm_calls', 'model')`, rows: true},
	// SQLAlchemy 1.4's reflection queries, verbatim (get_columns, domains,
	// enums, get_pk_constraint, get_foreign_keys, get_indexes,
	// get_unique_constraints, get_check_constraints, get_table_comment).
	{sql: `SELECT a.attname,
	  pg_catalog.format_type(a.atttypid, a.atttypmod),
	  (
	    SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid)
	    FROM pg_catalog.pg_attrdef d
	    WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum
	    AND a.atthasdef
	  ) AS DEFAULT,
	  a.attnotnull,
	  a.attrelid as table_oid,
	  pgd.description as comment,
	  a.attgenerated as generated,
	                  (SELECT json_build_object(
	        'always', a.attidentity = 'a',
	        'start', s.seqstart,
	        'increment', s.seqincrement,
	        'minvalue', s.seqmin,
	        'maxvalue', s.seqmax,
	        'cache', s.seqcache,
	        'cycle', s.seqcycle)
	    FROM pg_catalog.pg_sequence s
	    JOIN pg_catalog.pg_class c on s.seqrelid = c."oid"
	    WHERE c.relkind = 'S'
	    AND a.attidentity != ''
	    AND s.seqrelid = pg_catalog.pg_get_serial_sequence(
	        a.attrelid::regclass::text, a.attname
	    )::regclass::oid
	    ) as identity_options
	FROM pg_catalog.pg_attribute a
	LEFT JOIN pg_catalog.pg_description pgd ON (
	    pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum)
	WHERE a.attrelid = %[1]s
	AND a.attnum > 0 AND NOT a.attisdropped
	ORDER BY a.attnum`, oid: true},
	{sql: `SELECT t.typname as "name",
	   pg_catalog.format_type(t.typbasetype, t.typtypmod) as "attype",
	   not t.typnotnull as "nullable",
	   t.typdefault as "default",
	   pg_catalog.pg_type_is_visible(t.oid) as "visible",
	   n.nspname as "schema"
	FROM pg_catalog.pg_type t
	   LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
	WHERE t.typtype = 'd'`}, // PostgreSQL's rows: information_schema's domains, which Loam lacks
	{sql: `SELECT t.typname as "name",
	   -- no enum defaults in 8.4 at least
	   -- t.typdefault as "default",
	   pg_catalog.pg_type_is_visible(t.oid) as "visible",
	   n.nspname as "schema",
	   e.enumlabel as "label"
	FROM pg_catalog.pg_type t
	     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
	     LEFT JOIN pg_catalog.pg_enum e ON t.oid = e.enumtypid
	WHERE t.typtype = 'e'
	ORDER BY "schema", "name", e.oid`, rows: true},
	{sql: `SELECT a.attname
	FROM pg_attribute a JOIN (
	    SELECT unnest(ix.indkey) attnum,
	           generate_subscripts(ix.indkey, 1) ord
	    FROM pg_index ix
	    WHERE ix.indrelid = %[1]s AND ix.indisprimary
	    ) k ON a.attnum=k.attnum
	WHERE a.attrelid = %[1]s
	ORDER BY k.ord`, oid: true, rows: true},
	{sql: `SELECT conname
	   FROM  pg_catalog.pg_constraint r
	   WHERE r.conrelid = %[1]s AND r.contype = 'p'
	   ORDER BY 1`, oid: true, rows: true},
	{sql: `SELECT r.conname,
	        pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
	        n.nspname as conschema
	  FROM  pg_catalog.pg_constraint r,
	        pg_namespace n,
	        pg_class c
	  WHERE r.conrelid = %[1]s AND
	        r.contype = 'f' AND
	        c.oid = confrelid AND
	        n.oid = c.relnamespace
	  ORDER BY 1`, oid: true, rows: true},
	{sql: `SELECT
	      i.relname as relname,
	      ix.indisunique, ix.indexprs,
	      a.attname, a.attnum, c.conrelid, ix.indkey::varchar,
	      ix.indoption::varchar, i.reloptions, am.amname,
	      pg_get_expr(ix.indpred, ix.indrelid),
	      ix.indnkeyatts as indnkeyatts
	  FROM
	      pg_class t
	            join pg_index ix on t.oid = ix.indrelid
	            join pg_class i on i.oid = ix.indexrelid
	            left outer join
	                pg_attribute a
	                on t.oid = a.attrelid and a.attnum = ANY(ix.indkey)
	            left outer join
	                pg_constraint c
	                on (ix.indrelid = c.conrelid and
	                    ix.indexrelid = c.conindid and
	                    c.contype in ('p', 'u', 'x'))
	            left outer join
	                pg_am am
	                on i.relam = am.oid
	  WHERE
	      t.relkind IN ('r', 'v', 'f', 'm', 'p')
	      and t.oid = %[1]s
	      and ix.indisprimary = 'f'
	  ORDER BY
	      t.relname,
	      i.relname`, oid: true, rows: true},
	{sql: `SELECT
	    cons.conname as name,
	    cons.conkey as key,
	    a.attnum as col_num,
	    a.attname as col_name
	FROM
	    pg_catalog.pg_constraint cons
	    join pg_attribute a
	      on cons.conrelid = a.attrelid AND
	        a.attnum = ANY(cons.conkey)
	WHERE
	    cons.conrelid = %[1]s AND
	    cons.contype = 'u'`, oid: true, rows: true},
	{sql: `SELECT
	    cons.conname as name,
	    pg_get_constraintdef(cons.oid) as src
	FROM
	    pg_catalog.pg_constraint cons
	WHERE
	    cons.conrelid = %[1]s AND
	    cons.contype = 'c'`, oid: true, rows: true},
	{sql: `SELECT
	    pgd.description as table_comment
	FROM
	    pg_catalog.pg_description pgd
	WHERE
	    pgd.objsubid = 0 AND
	    pgd.objoid = %[1]s`, oid: true, rows: true},
	{sql: `SELECT has_table_privilege('llm_calls', 'SELECT'), has_table_privilege('public.llm_calls', 'INSERT'),
		has_table_privilege(current_user, 'llm_calls', 'SELECT'), has_table_privilege('llm_calls'::regclass, 'SELECT')`, rows: true},
	{sql: `SELECT has_schema_privilege('public', 'USAGE'), has_schema_privilege('public', 'CREATE'), has_schema_privilege(current_user, 'public', 'USAGE')`, rows: true},
	{sql: `SELECT has_database_privilege(current_database(), 'CONNECT'), has_database_privilege(current_user, current_database(), 'CREATE')`, rows: true},
	{sql: `SELECT has_column_privilege('llm_calls', 'model', 'SELECT'), has_column_privilege('llm_calls'::regclass, 'cost', 'UPDATE')`, rows: true},
	{sql: `SELECT has_table_privilege('llm_calls', 'select, INSERT'), has_table_privilege('public.llm_calls', 'UPDATE WITH GRANT OPTION'),
		has_table_privilege(99999::oid, 'SELECT'), has_table_privilege('"llm_calls"', 'delete'), has_table_privilege('pg_catalog.pg_class', 'select')`, rows: true},
	{sql: `SELECT has_table_privilege('public', 'llm_calls', 'SELECT'), has_schema_privilege(2200::oid, 'USAGE'), has_schema_privilege(99999::oid, 'USAGE'),
		has_schema_privilege('public', 'public', 'USAGE'), has_schema_privilege('public', 'public', 'CREATE'),
		has_database_privilege('public', current_database(), 'CONNECT'), has_database_privilege('public', current_database(), 'CREATE')`, rows: true},
	{sql: `SELECT has_column_privilege('llm_calls', 2::int2, 'SELECT'), has_column_privilege('llm_calls', 99::int2, 'SELECT'),
		has_column_privilege(current_user, 'llm_calls', 'tokens', 'UPDATE'), has_column_privilege('public', 'llm_calls', 'model', 'SELECT')`, rows: true},
	{sql: `SELECT current_schema, current_schema(), current_schemas(true), current_schemas(false)`, rows: true},
	{sql: `SELECT current_user = session_user, user = current_user, current_database() = current_catalog`, rows: true},
	{sql: `SELECT current_setting('search_path'), current_setting('no.such', true), current_setting('standard_conforming_strings', false)`, rows: true},
	{sql: `SELECT set_config('search_path', 'public', false), set_config('application_name', 'cat', true), current_setting('search_path')`, rows: true},
	{sql: `SELECT version() LIKE 'PostgreSQL 15.%', split_part(version(), ' ', 1)`, rows: true},
	{sql: `SELECT quote_ident('llm_calls'), quote_ident('Llm Calls'), quote_ident('select'), quote_ident('a"b'), quote_ident('')`, rows: true},
	{sql: `SELECT parse_ident('public.llm_calls'), parse_ident('"Public"."X y"'), parse_ident('x')`, rows: true},
	{sql: `SELECT string_to_array('a,b,,c', ','), string_to_array('a b', NULL), string_to_array('', ','), string_to_array('x-y', '-', 'y')`, rows: true},
	{sql: `SELECT array_lower('{7,8,9}'::int[], 1), array_upper('{7,8,9}'::int[], 1), array_length('{7,8,9}'::int[], 1),
		array_length('{}'::int[], 1), array_upper('{a}'::text[], 2)`, rows: true},
	{sql: `SELECT ('{7,8,9}'::int[])[1], ('{7,8,9}'::int[])[4], ('{a,b}'::text[])[0], (string_to_array('a.b', '.'))[2]`, rows: true},
	{sql: `SELECT s, s * 2 FROM generate_series(1, 3) s`, rows: true},
	{sql: `SELECT g.i FROM generate_series(10, 1, -4) AS g(i)`, rows: true},
	{sql: `SELECT * FROM generate_series(1, 2)`, rows: true},
	{sql: `SELECT 'llm_calls'::regclass::oid = c.oid, c.oid::regclass::text, c.relname::regclass = c.oid
		FROM pg_class c WHERE c.relname = 'llm_calls'`, rows: true},
	{sql: `SELECT 'pg_catalog'::regnamespace::oid, 11::regnamespace, 2200::regnamespace::text, 'public'::regnamespace`, rows: true},
	{sql: `SELECT 'int4'::regtype::oid, 'integer'::regtype, 'character varying'::regtype::oid, 1184::regtype::text, 'text[]'::regtype::oid`, rows: true},
	{sql: `SELECT 'pg_class'::regclass::oid, 1259::regclass, 'pg_catalog.pg_type'::regclass::oid, '-'::regclass, '-'::regclass::oid, 0::regclass, 0::regtype, '-'::regnamespace`, rows: true},
	{sql: `SELECT pg_encoding_to_char(0), pg_encoding_to_char(8), pg_encoding_to_char(41), pg_encoding_to_char(42), pg_encoding_to_char(-1)`, rows: true},
	{sql: `SELECT 'llm_calls' OPERATOR(pg_catalog.~) '^llm', 'x' OPERATOR(pg_catalog.~) '^(llm_calls)$' COLLATE pg_catalog.default,
		1 OPERATOR(pg_catalog.=) 1, 'a' OPERATOR(pg_catalog.<>) 'b'`, rows: true},
	{sql: `SELECT relname FROM pg_class WHERE relname OPERATOR(pg_catalog.~) '^(llm_.*)$' COLLATE pg_catalog.default ORDER BY relname COLLATE "C"`, rows: true},
	// PgJDBC's TypeInfoCache (getTypeInfo, array types).
	{sql: `SELECT typname, typinput = 'pg_catalog.array_in'::regproc FROM pg_type WHERE typname IN ('_int4', 'text', '_varchar') ORDER BY 1`, rows: true},
	{sql: `SELECT 'array_in'::regproc, 'pg_catalog.int4in'::regproc`, rows: true},
	{sql: `SELECT pg_sleep(0), pg_typeof(pg_sleep(0)), pg_sleep(NULL), pg_backend_pid() > 0`, rows: true},
	{sql: `SELECT 'a' < 'B' COLLATE "C", 'a' COLLATE "default" = 'a', 'x' COLLATE "POSIX" > 'X'`, rows: true},
	// A primary key: its index and constraint in the catalogs.
	{sql: `SELECT c.relname, c.relkind, c.relnatts, c.relhasindex, am.amname, t.relname, i.indnatts, i.indnkeyatts, i.indisunique,
		i.indisprimary, i.indimmediate, i.indisvalid, i.indisready, i.indislive, pg_get_indexdef(i.indexrelid),
		pg_get_indexdef(i.indexrelid, 1, true), pg_get_indexdef(i.indexrelid, 2, false), pg_get_indexdef(i.indexrelid, 0, true)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am am ON am.oid = c.relam
		WHERE t.relname = 'llm_keys'`, rows: true},
	{sql: `SELECT conname, contype, condeferrable, condeferred, convalidated, conrelid = 'llm_keys'::regclass, conindid = 'llm_keys_pkey'::regclass,
		confupdtype, confdeltype, confmatchtype, conislocal, coninhcount, connoinherit, conkey, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true)
		FROM pg_constraint WHERE conrelid = 'llm_keys'::regclass`, rows: true},
	{sql: `SELECT a.attname, a.attnum, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = 'llm_keys_pkey'::regclass ORDER BY a.attnum`, rows: true},
	{sql: `SELECT relname, relhasindex FROM pg_class WHERE relname LIKE 'llm%' ORDER BY 1`, rows: true},
	{sql: `SELECT tablename, hasindexes FROM pg_tables WHERE tablename LIKE 'llm%' ORDER BY 1`, rows: true},
	{sql: `SELECT amname, amtype, amhandler FROM pg_am ORDER BY oid`, rows: true},
	{sql: `SELECT setting FROM pg_settings WHERE name = 'max_index_keys'`, rows: true},
	// Tables' row types and their array types.
	{sql: `SELECT t.typname, t.typtype, t.typcategory, t.typlen, t.typbyval, t.typrelid = c.oid, c.reltype = t.oid, t.typinput, t.typoutput,
		t.typalign, t.typstorage, e.typname, e.typtype, e.typcategory, e.typelem = t.oid, e.typinput
		FROM pg_type t JOIN pg_class c ON c.relname = t.typname JOIN pg_type e ON e.oid = t.typarray
		WHERE t.typname LIKE 'llm%' ORDER BY 1`, rows: true},
	// Set-returning functions in the select list, in lockstep, and the
	// composite rows of information_schema._pg_expandarray.
	{sql: `SELECT generate_series(1, 3), unnest('{a,b}'::text[]), information_schema._pg_expandarray('{5,6,7}'::int2[])`, rows: true},
	{sql: `SELECT (information_schema._pg_expandarray('{5,6}'::int2[])).n, (s.k).x, (s.k).n
		FROM (SELECT information_schema._pg_expandarray('{"a b",NULL,"",x}'::text[]) k) s`, rows: true},
	{sql: `SELECT x, generate_series(1, x), x * 10 + generate_series(0, 1) FROM (VALUES (1), (2), (0)) v(x) ORDER BY 1, 2, 3`, rows: true},
	{sql: `SELECT count(*), generate_series(1, count(*)::int) FROM (VALUES (1), (2)) v(x)`, rows: true},
	{sql: `SELECT information_schema._pg_expandarray(NULL::int[]), 1`, rows: true},
	{sql: `SELECT pg_typeof(information_schema._pg_expandarray('{1}'::int[])), pg_typeof((information_schema._pg_expandarray('{1}'::int[])).x)`, rows: true},
	{sql: `SELECT DISTINCT unnest('{3,1,3,NULL}'::int[]) u ORDER BY 1`, rows: true},
	{sql: `SELECT * FROM information_schema._pg_expandarray('{5,NULL,7}'::int2[])`, rows: true},
	{sql: `SELECT k, pos, e.pos * 2 FROM information_schema._pg_expandarray('{a,"b c"}'::text[]) e(k, pos)`, rows: true},
	// PostgreSQL 15's keywords, and PgJDBC's getSQLKeywords (DBeaver and
	// SQuirreL ask on connecting), verbatim.
	{sql: `SELECT * FROM pg_get_keywords()`, rows: true},
	{sql: `SELECT k.word, k.catcode FROM pg_catalog.pg_get_keywords() k WHERE k.catcode = 'R' ORDER BY k.word COLLATE "C" LIMIT 5`, rows: true},
	{sql: `select string_agg(word, ',') from pg_catalog.pg_get_keywords() where word <> ALL ('{a,abs,absolute,action,ada,add,admin,after,all,allocate,alter,always,and,any,are,array,as,asc,asensitive,assertion,assignment,asymmetric,at,atomic,attribute,attributes,authorization,avg,before,begin,bernoulli,between,bigint,binary,blob,boolean,both,breadth,by,c,call,called,cardinality,cascade,cascaded,case,cast,catalog,catalog_name,ceil,ceiling,chain,char,char_length,character,character_length,character_set_catalog,character_set_name,character_set_schema,characteristics,characters,check,checked,class_origin,clob,close,coalesce,cobol,code_units,collate,collation,collation_catalog,collation_name,collation_schema,collect,column,column_name,command_function,command_function_code,commit,committed,condition,condition_number,connect,connection_name,constraint,constraint_catalog,constraint_name,constraint_schema,constraints,constructors,contains,continue,convert,corr,corresponding,count,covar_pop,covar_samp,create,cross,cube,cume_dist,current,current_collation,current_date,current_default_transform_group,current_path,current_role,current_time,current_timestamp,current_transform_group_for_type,current_user,cursor,cursor_name,cycle,data,date,datetime_interval_code,datetime_interval_precision,day,deallocate,dec,decimal,declare,default,defaults,deferrable,deferred,defined,definer,degree,delete,dense_rank,depth,deref,derived,desc,describe,descriptor,deterministic,diagnostics,disconnect,dispatch,distinct,domain,double,drop,dynamic,dynamic_function,dynamic_function_code,each,element,else,end,end-exec,equals,escape,every,except,exception,exclude,excluding,exec,execute,exists,exp,external,extract,false,fetch,filter,final,first,float,floor,following,for,foreign,fortran,found,free,from,full,function,fusion,g,general,get,global,go,goto,grant,granted,group,grouping,having,hierarchy,hold,hour,identity,immediate,implementation,in,including,increment,indicator,initially,inner,inout,input,insensitive,insert,instance,instantiable,int,integer,intersect,intersection,interval,into,invoker,is,isolation,join,k,key,key_member,key_type,language,large,last,lateral,leading,left,length,level,like,ln,local,localtime,localtimestamp,locator,lower,m,map,match,matched,max,maxvalue,member,merge,message_length,message_octet_length,message_text,method,min,minute,minvalue,mod,modifies,module,month,more,multiset,mumps,name,names,national,natural,nchar,nclob,nesting,new,next,no,none,normalize,normalized,not,"null",nullable,nullif,nulls,number,numeric,object,octet_length,octets,of,old,on,only,open,option,options,or,order,ordering,ordinality,others,out,outer,output,over,overlaps,overlay,overriding,pad,parameter,parameter_mode,parameter_name,parameter_ordinal_position,parameter_specific_catalog,parameter_specific_name,parameter_specific_schema,partial,partition,pascal,path,percent_rank,percentile_cont,percentile_disc,placing,pli,position,power,preceding,precision,prepare,preserve,primary,prior,privileges,procedure,public,range,rank,read,reads,real,recursive,ref,references,referencing,regr_avgx,regr_avgy,regr_count,regr_intercept,regr_r2,regr_slope,regr_sxx,regr_sxy,regr_syy,relative,release,repeatable,restart,result,return,returned_cardinality,returned_length,returned_octet_length,returned_sqlstate,returns,revoke,right,role,rollback,rollup,routine,routine_catalog,routine_name,routine_schema,row,row_count,row_number,rows,savepoint,scale,schema,schema_name,scope_catalog,scope_name,scope_schema,scroll,search,second,section,security,select,self,sensitive,sequence,serializable,server_name,session,session_user,set,sets,similar,simple,size,smallint,some,source,space,specific,specific_name,specifictype,sql,sqlexception,sqlstate,sqlwarning,sqrt,start,state,statement,static,stddev_pop,stddev_samp,structure,style,subclass_origin,submultiset,substring,sum,symmetric,system,system_user,table,table_name,tablesample,temporary,then,ties,time,timestamp,timezone_hour,timezone_minute,to,top_level_count,trailing,transaction,transaction_active,transactions_committed,transactions_rolled_back,transform,transforms,translate,translation,treat,trigger,trigger_catalog,trigger_name,trigger_schema,trim,true,type,uescape,unbounded,uncommitted,under,union,unique,unknown,unnamed,unnest,update,upper,usage,user,user_defined_type_catalog,user_defined_type_code,user_defined_type_name,user_defined_type_schema,using,value,values,var_pop,var_samp,varchar,varying,view,when,whenever,where,width_bucket,window,with,within,without,work,write,year,zone}'::text[])`, rows: true},
	// Integer bitwise operators (PgJDBC's getIndexInfo tests indoption & 1).
	{sql: `SELECT 5 & 3, 5::int8 | 2, 6 # 3, 1 << 3, 16 >> 2, 3::int2 & 1::smallint, pg_typeof(3::int2 & 1::smallint), (-1)::int2 << 4,
		1::int2 << 15, 1 << 33, 5 & '1', pg_typeof(1::int2 << 2), 1::int8 << 40, -8 >> 1, 1::int2 << 17, 1 << 31, NULL::int & 1`, rows: true},
	// PgJDBC 42.5's getPrimaryKeys, verbatim.
	{sql: `SELECT        result.TABLE_CAT,        result.TABLE_SCHEM,        result.TABLE_NAME,        result.COLUMN_NAME,        result.KEY_SEQ,        result.PK_NAME FROM      (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM,   ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME,   (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME,   information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM FROM pg_catalog.pg_class ct   JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)   JOIN pg_catalog.pg_index i ON ( a.attrelid = i.indrelid)   JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) WHERE true  AND n.nspname = 'public' AND ct.relname = 'llm_keys' AND i.indisprimary  ) result where  result.A_ATTNUM = (result.KEYS).x  ORDER BY result.table_name, result.pk_name, result.key_seq`, rows: true},
	// PgJDBC 42.5's getIndexInfo, verbatim.
	{sql: `SELECT     tmp.TABLE_CAT,     tmp.TABLE_SCHEM,     tmp.TABLE_NAME,     tmp.NON_UNIQUE,     tmp.INDEX_QUALIFIER,     tmp.INDEX_NAME,     tmp.TYPE,     tmp.ORDINAL_POSITION,     trim(both '"' from pg_catalog.pg_get_indexdef(tmp.CI_OID, tmp.ORDINAL_POSITION, false)) AS COLUMN_NAME,   CASE tmp.AM_NAME     WHEN 'btree' THEN CASE tmp.I_INDOPTION[tmp.ORDINAL_POSITION - 1] & 1::smallint       WHEN 1 THEN 'D'       ELSE 'A'     END     ELSE NULL   END AS ASC_OR_DESC,     tmp.CARDINALITY,     tmp.PAGES,     tmp.FILTER_CONDITION FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM,   ct.relname AS TABLE_NAME, NOT i.indisunique AS NON_UNIQUE,   NULL AS INDEX_QUALIFIER, ci.relname AS INDEX_NAME,   CASE i.indisclustered     WHEN true THEN 1    ELSE CASE am.amname       WHEN 'hash' THEN 2      ELSE 3    END   END AS TYPE,   (information_schema._pg_expandarray(i.indkey)).n AS ORDINAL_POSITION,   ci.reltuples AS CARDINALITY,   ci.relpages AS PAGES,   pg_catalog.pg_get_expr(i.indpred, i.indrelid) AS FILTER_CONDITION,   ci.oid AS CI_OID,   i.indoption AS I_INDOPTION,   am.amname AS AM_NAME FROM pg_catalog.pg_class ct   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)   JOIN pg_catalog.pg_index i ON (ct.oid = i.indrelid)   JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid)   JOIN pg_catalog.pg_am am ON (ci.relam = am.oid) WHERE true  AND n.nspname = 'public' AND ct.relname = 'llm_keys') AS tmp ORDER BY NON_UNIQUE, TYPE, INDEX_NAME, ORDINAL_POSITION`, rows: true},
	// PgJDBC 42.5's getImportedKeys, verbatim.
	{sql: `SELECT NULL::text AS PKTABLE_CAT, pkn.nspname AS PKTABLE_SCHEM, pkc.relname AS PKTABLE_NAME, pka.attname AS PKCOLUMN_NAME, NULL::text AS FKTABLE_CAT, fkn.nspname AS FKTABLE_SCHEM, fkc.relname AS FKTABLE_NAME, fka.attname AS FKCOLUMN_NAME, pos.n AS KEY_SEQ, CASE con.confupdtype  WHEN 'c' THEN 0 WHEN 'n' THEN 2 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1 WHEN 'a' THEN 3 ELSE NULL END AS UPDATE_RULE, CASE con.confdeltype  WHEN 'c' THEN 0 WHEN 'n' THEN 2 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1 WHEN 'a' THEN 3 ELSE NULL END AS DELETE_RULE, con.conname AS FK_NAME, pkic.relname AS PK_NAME, CASE  WHEN con.condeferrable AND con.condeferred THEN 5 WHEN con.condeferrable THEN 6 ELSE 7 END AS DEFERRABILITY  FROM  pg_catalog.pg_namespace pkn, pg_catalog.pg_class pkc, pg_catalog.pg_attribute pka,  pg_catalog.pg_namespace fkn, pg_catalog.pg_class fkc, pg_catalog.pg_attribute fka,  pg_catalog.pg_constraint con,  pg_catalog.generate_series(1, 32) pos(n),  pg_catalog.pg_class pkic WHERE pkn.oid = pkc.relnamespace AND pkc.oid = pka.attrelid AND pka.attnum = con.confkey[pos.n] AND con.confrelid = pkc.oid  AND fkn.oid = fkc.relnamespace AND fkc.oid = fka.attrelid AND fka.attnum = con.conkey[pos.n] AND con.conrelid = fkc.oid  AND con.contype = 'f' AND (pkic.relkind = 'i' OR pkic.relkind = 'I') AND pkic.oid = con.conindid  AND fkn.nspname = 'public' AND fkc.relname = 'llm_keys' ORDER BY pkn.nspname,pkc.relname, con.conname,pos.n`, rows: true},
	// PgJDBC 42.5's getBestRowIdentifier, verbatim.
	{sql: `SELECT a.attname, a.atttypid, atttypmod FROM pg_catalog.pg_class ct   JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)   JOIN (SELECT i.indexrelid, i.indrelid, i.indisprimary,              information_schema._pg_expandarray(i.indkey) AS keys         FROM pg_catalog.pg_index i) i     ON (a.attnum = (i.keys).x AND a.attrelid = i.indrelid) WHERE true  AND n.nspname = 'public' AND ct.relname = 'llm_keys' AND i.indisprimary  ORDER BY a.attnum`, rows: true},
	// PgJDBC 42.5's getFunctions, verbatim.
	{sql: `SELECT current_database() AS FUNCTION_CAT, n.nspname AS FUNCTION_SCHEM, p.proname AS FUNCTION_NAME,  d.description AS REMARKS,  CASE    WHEN (format_type(p.prorettype, null) = 'unknown') THEN 0   WHEN      (substring(pg_get_function_result(p.oid) from 0 for 6) = 'TABLE') OR      (substring(pg_get_function_result(p.oid) from 0 for 6) = 'SETOF') THEN 2   ELSE 1 END  AS FUNCTION_TYPE,  p.proname || '_' || p.oid AS SPECIFIC_NAME FROM pg_catalog.pg_proc p INNER JOIN pg_catalog.pg_namespace n ON p.pronamespace=n.oid LEFT JOIN pg_catalog.pg_description d ON p.oid=d.objoid WHERE true   AND p.prokind='f' AND n.nspname LIKE 'public' AND p.proname LIKE '%' ORDER BY FUNCTION_SCHEM, FUNCTION_NAME, p.oid::text`, rows: true},
	// PgJDBC 42.5's getUDTs, verbatim.
	{sql: `select null as type_cat, n.nspname as type_schem, t.typname as type_name,  null as class_name, CASE WHEN t.typtype='c' then 2002 else 2001 end as data_type, pg_catalog.obj_description(t.oid, 'pg_type')  as remarks, CASE WHEN t.typtype = 'd' then  (select CASE when base_type.oid = 1028 then 2003 when base_type.oid = 2950 then 1111 when base_type.oid = 2951 then 2003 when base_type.oid = 142 then 2009 when base_type.oid = 143 then 2003 when base_type.oid = 16 then -7 when base_type.oid = 17 then -2 when base_type.oid = 18 then 1 when base_type.oid = 1042 then 1 when base_type.oid = 1043 then 12 when base_type.oid = 19 then 12 when base_type.oid = 20 then -5 when base_type.oid = 21 then 5 when base_type.oid = 790 then 8 when base_type.oid = 23 then 4 when base_type.oid = 791 then 2003 when base_type.oid = 1560 then -7 when base_type.oid = 25 then 12 when base_type.oid = 1561 then 2003 when base_type.oid = 2201 then 2003 when base_type.oid = 26 then -5 when base_type.oid = 1182 then 2003 when base_type.oid = 1183 then 2003 when base_type.oid = 1184 then 93 when base_type.oid = 1185 then 2003 when base_type.oid = 1700 then 2 when base_type.oid = 1082 then 91 when base_type.oid = 1083 then 92 when base_type.oid = 700 then 7 when base_type.oid = 701 then 8 when base_type.oid = 199 then 2003 when base_type.oid = 1231 then 2003 when base_type.oid = 600 then 1111 when base_type.oid = 1114 then 93 when base_type.oid = 1115 then 2003 when base_type.oid = 603 then 1111 when base_type.oid = 1000 then 2003 when base_type.oid = 1001 then 2003 when base_type.oid = 1002 then 2003 when base_type.oid = 1003 then 2003 when base_type.oid = 1005 then 2003 when base_type.oid = 1007 then 2003 when base_type.oid = 1009 then 2003 when base_type.oid = 1266 then 92 when base_type.oid = 114 then 1111 when base_type.oid = 1014 then 2003 when base_type.oid = 1270 then 2003 when base_type.oid = 1015 then 2003 when base_type.oid = 1016 then 2003 when base_type.oid = 1017 then 2003 when base_type.oid = 1020 then 2003 when base_type.oid = 1021 then 2003 when base_type.oid = 1022 then 2003 when base_type.oid = 1790 then 2012 else 1111 end from pg_type base_type where base_type.oid=t.typbasetype) else null end as base_type from pg_catalog.pg_type t, pg_catalog.pg_namespace n where t.typnamespace = n.oid and n.nspname != 'pg_catalog' and n.nspname != 'pg_toast' and t.typtype IN ('c','d')  and t.typname like '%' and n.nspname like 'public' order by data_type, type_schem, type_name`, rows: true},
	// PgJDBC 42.5's getProcedures, verbatim.
	{sql: `SELECT NULL AS PROCEDURE_CAT, n.nspname AS PROCEDURE_SCHEM, p.proname AS PROCEDURE_NAME, NULL, NULL, NULL, d.description AS REMARKS, 2 AS PROCEDURE_TYPE,  p.proname || '_' || p.oid AS SPECIFIC_NAME  FROM pg_catalog.pg_namespace n, pg_catalog.pg_proc p  LEFT JOIN pg_catalog.pg_description d ON (p.oid=d.objoid)  LEFT JOIN pg_catalog.pg_class c ON (d.classoid=c.oid AND c.relname='pg_proc')  LEFT JOIN pg_catalog.pg_namespace pn ON (c.relnamespace=pn.oid AND pn.nspname='pg_catalog')  WHERE p.pronamespace=n.oid  AND p.prokind='p' AND n.nspname LIKE 'public' AND p.proname LIKE '%' ORDER BY PROCEDURE_SCHEM, PROCEDURE_NAME, p.oid::text`, rows: true},
	// PgJDBC 42.5's getColumnPrivileges, verbatim.
	{sql: `SELECT n.nspname,c.relname,r.rolname,c.relacl, a.attacl,  a.attname  FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c,  pg_catalog.pg_roles r, pg_catalog.pg_attribute a  WHERE c.relnamespace = n.oid  AND c.relowner = r.oid  AND c.oid = a.attrelid  AND c.relkind = 'r'  AND a.attnum > 0 AND NOT a.attisdropped  AND n.nspname = 'public' AND c.relname = 'llm_keys' AND a.attname LIKE '%' ORDER BY attname`, rows: false},
}

// grafanaSchema is the search-path condition of Grafana's PostgreSQL data
// source (buildSchemaConstraint), verbatim.
const grafanaSchema = `
          quote_ident(table_schema) IN (
          SELECT
            CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
          FROM
            generate_series(
              array_lower(string_to_array(current_setting('search_path'),','),1),
              array_upper(string_to_array(current_setting('search_path'),','),1)
            ) as i,
            string_to_array(current_setting('search_path'),',') s
          )`

var grafanaTables = `SELECT
    CASE WHEN ` + grafanaSchema + `
      THEN quote_ident(table_name)
      ELSE quote_ident(table_schema) || '.' || quote_ident(table_name)
    END AS "table"
    FROM information_schema.tables
    WHERE quote_ident(table_schema) NOT IN ('information_schema',
                             'pg_catalog',
                             '_timescaledb_cache',
                             '_timescaledb_catalog',
                             '_timescaledb_internal',
                             '_timescaledb_config',
                             'timescaledb_information',
                             'timescaledb_experimental')
    ORDER BY CASE WHEN ` + grafanaSchema + ` THEN 0 ELSE 1 END, 1`

const grafanaColumns = `SELECT quote_ident(column_name) AS "column", data_type AS "type"
    FROM information_schema.columns
    WHERE
      CASE WHEN array_length(parse_ident(%s),1) = 2
        THEN quote_ident(table_schema) = (parse_ident(%s))[1]
          AND quote_ident(table_name) = (parse_ident(%s))[2]
        ELSE quote_ident(table_name) = (parse_ident(%s))[1]
          AND %s
      END`

// base resolves a PostgreSQL type OID to what Loam reports for it: a
// domain (information_schema's sql_identifier, cardinal_number, …) to its
// base type.
func base(ctx context.Context, pgc *pgx.Conn, oid uint32) (uint32, error) {
	var b uint32
	err := pgc.QueryRow(ctx, `SELECT CASE WHEN typtype = 'd' THEN typbasetype ELSE oid END FROM pg_type WHERE oid = $1`, oid).Scan(&b)
	return b, err
}

func shape(ctx context.Context, c *pgx.Conn, pgc *pgx.Conn, sql string) ([]string, []string, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	fds := append([]pgconnFD(nil), toFD(rows.FieldDescriptions())...)
	var data []string
	for rows.Next() {
		var vals []string
		for _, v := range rows.RawValues() {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		data = append(data, strings.Join(vals, "|"))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	var cols []string
	for _, fd := range fds {
		oid := fd.oid
		if pgc != nil {
			if oid, err = base(ctx, pgc, oid); err != nil {
				return nil, nil, err
			}
			if s, ok := standIns[oid]; ok {
				oid = s
			}
		}
		cols = append(cols, fmt.Sprintf("%s:%d", fd.name, oid))
	}
	return cols, data, nil
}

type pgconnFD struct {
	name string
	oid  uint32
}

func toFD(fds []pgconn.FieldDescription) []pgconnFD {
	out := make([]pgconnFD, len(fds))
	for i, f := range fds {
		out[i] = pgconnFD{f.Name, f.DataTypeOID}
	}
	return out
}

func connect(t *testing.T, ctx context.Context, url string, simple bool) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if simple {
		// Text results, so rows compare byte for byte.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func TestCatalogAgainstPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pgURL := pgtest.Database(t)
	loamURL := startLoam(t)
	for _, mode := range []struct {
		name   string
		simple bool
	}{{"extended", false}, {"simple", true}} {
		t.Run(mode.name, func(t *testing.T) {
			pgc := connect(t, ctx, pgURL, mode.simple)
			lc := connect(t, ctx, loamURL, mode.simple)
			// Types resolve on a connection of their own: pgc may be mid-query.
			meta := connect(t, ctx, pgURL, false)
			if mode.name == "extended" {
				for _, c := range []*pgx.Conn{pgc, lc} {
					for _, q := range append([]string{setup, keysSetup, defaultsSetup}, commentSetup...) {
						if _, err := c.Exec(ctx, q); err != nil {
							t.Fatalf("setup: %v", err)
						}
					}
				}
			}
			var pgOID, loamOID string
			for _, x := range []struct {
				c   *pgx.Conn
				oid *string
			}{{pgc, &pgOID}, {lc, &loamOID}} {
				var o uint32
				if err := x.c.QueryRow(ctx, `SELECT oid FROM pg_catalog.pg_class WHERE relname = 'llm_calls'`, pgx.QueryExecModeSimpleProtocol).Scan(&o); err != nil {
					t.Fatalf("llm_calls' oid: %v", err)
				}
				*x.oid = fmt.Sprint(o)
			}
			for i, q := range queries {
				psql, lsql := q.sql, q.sql
				if q.oid {
					psql, lsql = fmt.Sprintf(q.sql, pgOID), fmt.Sprintf(q.sql, loamOID)
				}
				pcols, prows, err := shape(ctx, pgc, meta, psql)
				if err != nil {
					t.Fatalf("query %d on PostgreSQL: %v\n%s", i, err, psql)
				}
				lcols, lrows, err := shape(ctx, lc, nil, lsql)
				if err != nil {
					t.Errorf("query %d on Loam: %v\n%s", i, err, q.sql)
					continue
				}
				if strings.Join(pcols, " ") != strings.Join(lcols, " ") {
					t.Errorf("query %d: columns differ\n%s\nPostgreSQL: %v\nLoam:       %v", i, q.sql, pcols, lcols)
				}
				if q.rows && mode.simple && strings.Join(prows, "\n") != strings.Join(lrows, "\n") {
					t.Errorf("query %d: rows differ\n%s\nPostgreSQL:\n%s\nLoam:\n%s", i, q.sql, strings.Join(prows, "\n"), strings.Join(lrows, "\n"))
				}
			}
		})
	}
}
