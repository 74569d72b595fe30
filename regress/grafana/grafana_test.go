// Package grafana runs what Grafana's PostgreSQL data source sends against
// Loam and a throwaway PostgreSQL 15 holding the same data, and compares
// column names, result type OIDs and rows.
//
//	LOAM_BIN=$PWD/bin/loam go test -count=1 ./regress/grafana/
//
// The texts and the way they are sent come from grafana/grafana:
//
//   - pkg/tsdb/grafana-postgresql-datasource/pgx/sql_engine.go
//     (commit 124e2418015eed89dfc39a7f1702f6c90f5f712e): a panel's or the
//     query editor's rawSql is interpolated, then sent with
//     pool.Acquire().Conn().PgConn().Exec(ctx, sql).ReadAll(): the simple
//     query protocol, text results, possibly several statements; the frame
//     is typed from each field's OID (int2/4/8, float4/8 and numeric as
//     numbers, timestamptz/timestamp/date as time, everything else as
//     string), and a time series needs a column named "time" (numeric
//     epoch seconds or a timestamp) and, optionally, a text "metric".
//     Ping (the health check in pgx/handler_checkhealth.go, commit
//     1b13755cdccfbc5420c9fcb7d6cf2dad7b2888e6) is pgxpool's Ping, which
//     pgx v5 sends as the simple query "-- ping"; the older lib/pq data
//     source pinged with ";".
//   - pkg/tsdb/grafana-postgresql-datasource/postgres.go, the version with
//     newPostgresPGX (pgx behind the postgresDSUsePGX feature flag, lib/pq
//     otherwise; the index did not show that version's commit; commit
//     e75b5e7dd36309964a1ec33494cc10c9fd2929d6 is the lib/pq-only one):
//     pgxpool.ParseConfig on a key=value string with pgx's defaults, so
//     pool.Query runs in the statement-cache (extended protocol) mode.
//   - pkg/tsdb/grafana-postgresql-datasource/schema.go (commit
//     043dd88a47944c35205994c4da317e100dc9b12e): the newer schema queries,
//     sent with pool.Query and $1/$2 parameters (extended protocol), and
//     ColumnValues' DISTINCT … UNION ALL text.
//   - pkg/tsdb/grafana-postgresql-datasource/macros.go (commit
//     02ab314b81e2adc656bd7d08cc0533304a0037ff) for the macro expansions;
//     dashboard_test.go ports them.
//   - public/app/plugins/datasource/grafana-postgresql-datasource/
//     postgresMetaQuery.ts (commit 12f912ab8d010f4d95a4043a0efaa20fc4ca0100)
//     and datasource.ts (commit 04282cd93150390a7d83089cc520d96546d576a8):
//     the version and TimescaleDB probes and the query builder's schema,
//     table and column lists. The frontend inlines names as quoted
//     literals and runs the text through the backend as a rawSql query, so
//     these reach the server as simple-protocol text with no parameters.
//     (The older quote_ident/parse_ident/search_path texts are also in
//     regress/catalog.)
package grafana

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/lib/pq" // database/sql driver "postgres", for the ";" ping
)

// searchPath is buildSchemaConstraint() in postgresMetaQuery.ts.
const searchPath = `
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

// getSchema is postgresMetaQuery.ts' getSchema(table) with table inlined
// as the frontend does ('…' with quotes doubled).
func getSchema(table string) string {
	lit := "'" + strings.ReplaceAll(table, "'", "''") + "'"
	return `SELECT quote_ident(column_name) AS "column", data_type AS "type"
    FROM information_schema.columns
    WHERE
      CASE WHEN array_length(parse_ident(` + lit + `),1) = 2
        THEN quote_ident(table_schema) = (parse_ident(` + lit + `))[1]
          AND quote_ident(table_name) = (parse_ident(` + lit + `))[2]
        ELSE quote_ident(table_name) = ` + lit + `
          AND ` + searchPath + `
      END`
}

// metaQueries are the frontend's texts, sent as rawSql (simple protocol).
var metaQueries = []string{
	`SELECT current_setting('server_version_num')::int/100 as version`,
	`SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'`,
	`SELECT schema_name AS "name"
    FROM information_schema.schemata
    WHERE schema_name NOT IN ('information_schema',
                              'pg_catalog',
                              'pg_toast',
                              '_timescaledb_cache',
                              '_timescaledb_catalog',
                              '_timescaledb_internal',
                              '_timescaledb_config',
                              'timescaledb_information',
                              'timescaledb_experimental')
    ORDER BY schema_name`,
	`SELECT quote_ident(table_name) AS "table"
      FROM information_schema.tables
      WHERE quote_ident(table_schema) = 'public'
      ORDER BY 1`,
	`SELECT
    CASE WHEN ` + searchPath + `
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
    ORDER BY CASE WHEN ` + searchPath + ` THEN 0 ELSE 1 END, 1`,
	getSchema("llm_calls"),
	getSchema("public.llm_calls"),
	getSchema("llm_calls_epoch"),
	getSchema("no_such'table"),
	// schema.go's ColumnValues: literal text, sent with pool.Query.
	`SELECT 'model' AS col_name, "model"::text AS val FROM (SELECT DISTINCT "model" FROM "public"."llm_calls" WHERE "model" IS NOT NULL ORDER BY "model" LIMIT 100) sub_0 UNION ALL SELECT 'latency_ms' AS col_name, "latency_ms"::text AS val FROM (SELECT DISTINCT "latency_ms" FROM "public"."llm_calls" WHERE "latency_ms" IS NOT NULL ORDER BY "latency_ms" LIMIT 100) sub_1`,
}

// paramQueries are schema.go's parameterized queries with the arguments
// its callers pass.
var paramQueries = []struct {
	sql  string
	args []any
}{
	{`SELECT schema_name FROM information_schema.schemata
		 WHERE schema_name NOT LIKE 'pg_%' AND schema_name != 'information_schema'
		 ORDER BY schema_name`, nil},
	{`SELECT table_name FROM information_schema.tables
		 WHERE table_schema = $1 AND table_type IN ('BASE TABLE', 'VIEW')
		 ORDER BY table_name`, []any{"public"}},
	{`SELECT column_name, data_type, udt_name, numeric_precision, numeric_scale
		 FROM information_schema.columns
		 WHERE table_schema = $1 AND table_name = $2
		 ORDER BY ordinal_position`, []any{"public", "llm_calls"}},
	{`SELECT column_name, data_type, udt_name, numeric_precision, numeric_scale
		 FROM information_schema.columns
		 WHERE table_schema = $1 AND table_name = $2
		 ORDER BY ordinal_position`, []any{"public", "llm_calls_epoch"}},
	{`SELECT 'model' AS col_name, "model"::text AS val FROM (SELECT DISTINCT "model" FROM "public"."llm_calls" WHERE "model" IS NOT NULL ORDER BY "model" LIMIT 100) sub_0 UNION ALL SELECT 'tenant' AS col_name, "tenant"::text AS val FROM (SELECT DISTINCT "tenant" FROM "public"."llm_calls" WHERE "tenant" IS NOT NULL ORDER BY "tenant" LIMIT 100) sub_1`, nil},
}

// panelQuery is a panel's SQL as macros.go expands it; series says the
// result must have the time-series shape. raw, where set, is the text a
// user writes, which expands to sql for 2026-11-01T00:00:00Z –
// 2026-11-02T00:00:00Z (epoch: 1700000000 – 1700003600) and a 5m
// interval (TestMacros checks).
type panelQuery struct {
	sql    string
	series bool
	raw    string
	epoch  bool
}

var panelQueries = []panelQuery{
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", model AS metric, sum(cost_usd) AS cost_usd
FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z'
GROUP BY 1, 2 ORDER BY 1, 2`, series: true,
		raw: `SELECT $__timeGroupAlias(ts, $__interval), model AS metric, sum(cost_usd) AS cost_usd
FROM llm_calls WHERE $__timeFilter(ts)
GROUP BY 1, 2 ORDER BY 1, 2`},
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z'
GROUP BY 1 ORDER BY 1`, series: true,
		raw: `SELECT $__timeGroupAlias(ts, 5m), percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
FROM llm_calls WHERE $__timeFilter(ts)
GROUP BY 1 ORDER BY 1`},
	// The pre-5.3 form: $__timeGroup followed by a comma gets the alias.
	{sql: `SELECT floor(extract(epoch from ts)/60)*60 AS "time", count(*) AS calls
FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z'
GROUP BY 1 ORDER BY 1`, series: true,
		raw: `SELECT $__timeGroup(ts, 1m), count(*) AS calls
FROM llm_calls WHERE $__timeFilter(ts)
GROUP BY 1 ORDER BY 1`},
	{sql: `SELECT extract(epoch from ts) as "time", latency_ms FROM llm_calls
WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' ORDER BY 1 LIMIT 50`, series: true,
		raw: `SELECT $__timeEpoch(ts), latency_ms FROM llm_calls
WHERE $__timeFilter(ts) ORDER BY 1 LIMIT 50`},
	{sql: `SELECT ts AS "time", model AS metric, cost_usd FROM llm_calls
WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T00:30:00Z' ORDER BY 1, 2`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", tenant, model, sum(prompt_tokens + completion_tokens) AS tokens
FROM llm_calls WHERE ts >= '2026-11-01T00:00:00Z' AND ts <= '2026-11-02T00:00:00Z'
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
		raw: `SELECT $__timeGroupAlias(ts, '5m'), tenant, model, sum(prompt_tokens + completion_tokens) AS tokens
FROM llm_calls WHERE ts >= $__timeFrom() AND ts <= $__timeTo()
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`},
	{sql: `SELECT floor((ts)/300)*300 AS "time", model AS metric, avg(latency_ms) AS latency_ms
FROM llm_calls_epoch WHERE ts >= 1700000000 AND ts <= 1700003600 GROUP BY 1, 2 ORDER BY 1, 2`, series: true, epoch: true,
		raw: `SELECT $__unixEpochGroupAlias(ts, 5m), model AS metric, avg(latency_ms) AS latency_ms
FROM llm_calls_epoch WHERE $__unixEpochFilter(ts) GROUP BY 1, 2 ORDER BY 1, 2`},
	{sql: `SELECT ts AS "time", cost_usd FROM llm_calls_epoch WHERE ts >= 1700000000 AND ts <= 1700003600 ORDER BY 1`, series: true, epoch: true,
		raw: `SELECT $__time(ts), cost_usd FROM llm_calls_epoch WHERE $__unixEpochFilter(ts) ORDER BY 1`},
	{sql: `SELECT ts AS "time", cost_usd FROM llm_calls_epoch WHERE ts >= 1700000000 AND ts <= 1700003600 AND latency_ms > 200 ORDER BY 1`, series: true, epoch: true,
		raw: `SELECT ts AS "time", cost_usd FROM llm_calls_epoch WHERE ts >= $__unixEpochFrom() AND ts <= $__unixEpochTo() AND latency_ms > 200 ORDER BY 1`},
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", count(*) * 60000.0 / 300000 AS calls_per_minute
FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' GROUP BY 1 ORDER BY 1`, series: true,
		raw: `SELECT $__timeGroupAlias(ts, $__interval), count(*) * 60000.0 / $__interval_ms AS calls_per_minute
FROM llm_calls WHERE $__timeFilter(ts) GROUP BY 1 ORDER BY 1`},
	{sql: `SELECT min(ts) AS "time", count(*) AS calls FROM llm_calls
WHERE ts >= '2026-11-01T00:00:00Z' AND ts < '2026-11-02T00:00:00Z'`, series: true,
		raw: `SELECT min(ts) AS "time", count(*) AS calls FROM llm_calls
WHERE ts >= $__timeFrom() AND ts < $__timeTo()`},
	// In the visual query builder's form (toRawSql: arguments joined by
	// bare commas, each clause followed by a space).
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", model AS metric, SUM(cost_usd) AS cost_usd FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' GROUP BY 1, model ORDER BY 1, 2 LIMIT 50 `, series: true,
		raw: `SELECT $__timeGroupAlias(ts,$__interval), model AS metric, SUM(cost_usd) AS cost_usd FROM llm_calls WHERE $__timeFilter(ts) GROUP BY 1, model ORDER BY 1, 2 LIMIT 50 `},
	// Several statements in one rawSql: Grafana reads every result and
	// frames the SELECTs.
	{sql: `SET TIME ZONE 'UTC'; SELECT floor(extract(epoch from ts)/3600)*3600 AS "time", model AS metric, max(latency_ms) AS worst
FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' GROUP BY 1, 2 ORDER BY 1, 2`, series: true,
		raw: `SET TIME ZONE 'UTC'; SELECT $__timeGroupAlias(ts, 1h), model AS metric, max(latency_ms) AS worst
FROM llm_calls WHERE $__timeFilter(ts) GROUP BY 1, 2 ORDER BY 1, 2`},
}

// otherPanels are more queries users write in panels, with the macros
// expanded: other time column types, annotations and variables.
var otherPanels = []panelQuery{
	{sql: `SELECT date_trunc('minute', ts) AS time, sum(cost_usd) FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T03:00:00Z' GROUP BY 1 ORDER BY 1`, series: true},
	// $__timeFilter and $__timeGroup on timestamp and date columns.
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", avg(v) FROM ev WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' GROUP BY 1 ORDER BY 1`, series: true},
	{sql: `SELECT d AS "time", count(*) FROM ev WHERE d BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' GROUP BY 1 ORDER BY 1`, series: true},
	// $__unixEpochNanoFilter and $__unixEpochGroup on nanoseconds.
	{sql: `SELECT floor((ns)/300000000000)*300000000000 AS "time", host AS metric, sum(v) FROM ev WHERE ns >= 1700000000000000000 AND ns <= 1700003600000000000 GROUP BY 1, 2 ORDER BY 1, 2`, series: true},
	{sql: `SELECT to_timestamp(ts) AS "time", cost_usd FROM llm_calls_epoch WHERE ts >= 1700000000 AND ts <= 1700003600 ORDER BY 1`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/86400)*86400 AS "time", model AS metric, sum(cost_usd) FROM llm_calls WHERE ts BETWEEN '2026-10-01T00:00:00Z' AND '2026-12-01T00:00:00Z' GROUP BY 1, 2 ORDER BY 1, 2`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/0.5)*0.5 AS "time", latency_ms FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T00:10:00Z' ORDER BY 1`, series: true},
	{sql: `SELECT extract(epoch from ts)*1000 AS "time", cost_usd FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T00:10:00Z' ORDER BY 1`, series: true},
	{sql: `SELECT ts AT TIME ZONE 'UTC' AS "time", cost_usd FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T00:10:00Z' ORDER BY 1`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/3600)*3600 AS "time", count(*) FILTER (WHERE latency_ms > 1000) AS slow, count(*) AS total FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' GROUP BY 1 ORDER BY 1`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/3600)*3600 AS "time", sum(prompt_tokens)::float / nullif(sum(completion_tokens), 0) AS ratio FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z' GROUP BY 1 ORDER BY 1`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", avg(latency_ms) AS avg, stddev(latency_ms) AS sd, max(latency_ms) - min(latency_ms) AS spread FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T06:00:00Z' GROUP BY 1 ORDER BY 1`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", tenant || '/' || model AS metric, percentile_disc(0.5) WITHIN GROUP (ORDER BY latency_ms) FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T02:00:00Z' GROUP BY 1, 2 ORDER BY 1, 2`, series: true},
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", model AS metric, sum(cost_usd) OVER (PARTITION BY model ORDER BY ts) AS running FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T01:00:00Z' ORDER BY 1, 2, 3`, series: true},
	// Fractional seconds in the range.
	{sql: `SELECT floor(extract(epoch from ts)/300)*300 AS "time", model AS metric, sum(cost_usd) FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00.123Z' AND '2026-11-01T01:59:59.999Z' AND model IN ('gpt-4o','claude-sonnet') GROUP BY 1, 2 ORDER BY 1, 2`, series: true},
	// Annotations (time, timeend, text, tags) and a variable (__text, __value).
	{sql: `SELECT extract(epoch from ts) AS time, model AS text, tenant AS tags FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T00:20:00Z' ORDER BY 1`},
	{sql: `SELECT ts AS time, ts + interval '5 minutes' AS timeend, model AS text FROM llm_calls WHERE ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-01T00:20:00Z' ORDER BY 1`},
	{sql: `SELECT DISTINCT model AS __text, model AS __value FROM llm_calls ORDER BY 1`},
}

// badPanels fail on PostgreSQL; Loam must fail the same way (SQLSTATE,
// message, position): a $n (the simple protocol has no parameters), a
// macro Grafana left alone, a variable with no value.
var badPanels = []string{
	`SELECT $1`,
	`SELECT ts AS "time", cost_usd FROM llm_calls WHERE ts > $2 ORDER BY 1`,
	`SELECT 1; SELECT $1`,
	`SELECT ts AS "time" FROM llm_calls WHERE ts > $__timeFrom ORDER BY 1`,
	`SELECT ts AS "time" FROM llm_calls WHERE tenant IN ($tenant)`,
	`SELECT ts AS "time" FROM llm_calls WHERE tenant IN ()`,
	`SELECT floor(extract(epoch from ts)/0)*0 AS "time" FROM llm_calls`,
}

// result is one statement's answer: "name:oid" per column, rows as text.
type result struct {
	tag  string
	cols []string
	oids []uint32
	rows []string
}

func (r result) String() string {
	return fmt.Sprintf("%s %v\n%s", r.tag, r.cols, strings.Join(r.rows, "\n"))
}

// simple sends sql the way Grafana's backend sends rawSql.
func simple(ctx context.Context, c *pgx.Conn, sql string) ([]result, error) {
	rs, err := c.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	out := make([]result, len(rs))
	for i, r := range rs {
		out[i] = fromPgconn(r)
	}
	return out, nil
}

func fromPgconn(r *pgconn.Result) result {
	var res result
	res.tag = r.CommandTag.String()
	for _, fd := range r.FieldDescriptions {
		res.cols = append(res.cols, fmt.Sprintf("%s:%d", fd.Name, fd.DataTypeOID))
		res.oids = append(res.oids, fd.DataTypeOID)
	}
	for _, row := range r.Rows {
		vals := make([]string, len(row))
		for j, v := range row {
			if v == nil {
				vals[j] = "NULL"
			} else {
				vals[j] = string(v)
			}
		}
		res.rows = append(res.rows, strings.Join(vals, "|"))
	}
	return res
}

// sameResults compares Loam's answer to PostgreSQL's.
func sameResults(t *testing.T, what string, loam, pg []result) {
	t.Helper()
	if len(loam) != len(pg) {
		t.Errorf("%s: %d results from Loam, %d from PostgreSQL", what, len(loam), len(pg))
		return
	}
	for i := range pg {
		if loam[i].String() != pg[i].String() {
			t.Errorf("%s: result %d differs\nPostgreSQL: %s\nLoam:       %s", what, i, pg[i], loam[i])
		}
	}
}

// Grafana's field types by OID (getFieldTypesFromDescriptions).
var (
	numberOIDs = map[uint32]bool{21: true, 23: true, 20: true, 700: true, 701: true, 1700: true}
	timeOIDs   = map[uint32]bool{1184: true, 1114: true, 1082: true}
	stringOIDs = map[uint32]bool{25: true, 1043: true, 1042: true, 19: true}
)

// checkSeries fails unless r has the shape Grafana turns into time series:
// a "time" column that is numeric (epoch seconds) or a timestamp, and every
// other column a number, or text for the series name.
func checkSeries(t *testing.T, what string, r result) {
	t.Helper()
	if len(r.rows) == 0 {
		t.Errorf("%s: no rows", what)
	}
	timeAt := -1
	for i, c := range r.cols {
		name := c[:strings.LastIndexByte(c, ':')]
		oid := r.oids[i]
		switch {
		case name == "time":
			timeAt = i
			if !numberOIDs[oid] && !timeOIDs[oid] {
				t.Errorf("%s: time column has type OID %d, not a number or timestamp", what, oid)
			}
		case name == "metric" || stringOIDs[oid]:
			if !stringOIDs[oid] {
				t.Errorf("%s: metric column has type OID %d, not text", what, oid)
			}
		case !numberOIDs[oid]:
			t.Errorf("%s: value column %s is not numeric", what, c)
		}
	}
	if timeAt != 0 {
		t.Errorf("%s: columns %v: want \"time\" first", what, r.cols)
	}
}

func TestGrafanaDataSource(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	loam, pg := servers(t, ctx, table, table)

	t.Run("health", func(t *testing.T) {
		for _, c := range []*pgx.Conn{loam, pg} {
			if err := c.Ping(ctx); err != nil {
				t.Errorf("-- ping on %s: %v", c.Config().Host, err)
			}
		}
		for _, q := range []string{"-- ping", ";", "SELECT 1"} {
			l, err := simple(ctx, loam, q)
			if err != nil {
				t.Errorf("%q on Loam: %v", q, err)
				continue
			}
			p, err := simple(ctx, pg, q)
			if err != nil {
				t.Fatalf("%q on PostgreSQL: %v", q, err)
			}
			sameResults(t, q, l, p)
		}
		// Grafana's own connection: its key=value string
		// (buildBaseConnectionString + sslmode) through pgxpool, a
		// health-check Ping, then a query on an acquired connection.
		host, port, _ := strings.Cut(loam.Config().Host+":"+fmt.Sprint(loam.Config().Port), ":")
		cfg, err := pgxpool.ParseConfig(fmt.Sprintf("user='%s' host='%s' dbname='%s' port=%s sslmode='%s'", "loam", host, "loam", port, "disable"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		if err := pool.Ping(ctx); err != nil {
			t.Errorf("pgxpool ping: %v", err)
		}
		pc, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := pc.Conn().PgConn().Exec(ctx, metaQueries[0]).ReadAll()
		pc.Release()
		want, perr := simple(ctx, pg, metaQueries[0])
		if err != nil || perr != nil || len(rs) != 1 {
			t.Errorf("version probe through the pool: %v %v; on PostgreSQL: %v", rs, err, perr)
		} else {
			sameResults(t, "version probe through the pool", []result{fromPgconn(rs[0])}, want)
		}
		// The lib/pq data source (Grafana before pgx) pings with ";".
		db, err := sql.Open("postgres", loam.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.PingContext(ctx); err != nil {
			t.Errorf("lib/pq ping: %v", err)
		}
	})

	t.Run("meta", func(t *testing.T) {
		for i, q := range metaQueries {
			what := fmt.Sprintf("meta query %d", i)
			p, perr := simple(ctx, pg, q)
			l, lerr := simple(ctx, loam, q)
			if perr != nil || lerr != nil {
				// An error must be PostgreSQL's, SQLSTATE and message.
				if pe, le := errText(perr), errText(lerr); pe != le {
					t.Errorf("%s: errors differ\n%s\nPostgreSQL: %s\nLoam:       %s", what, q, pe, le)
				}
				continue
			}
			sameResults(t, what, l, p)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, q := range badPanels {
			_, perr := simple(ctx, pg, q)
			_, lerr := simple(ctx, loam, q)
			if perr == nil {
				t.Fatalf("%s: no error from PostgreSQL", q)
			}
			if pe, le := errText(perr), errText(lerr); pe != le {
				t.Errorf("%s: errors differ\nPostgreSQL: %s\nLoam:       %s", q, pe, le)
			}
			// The connection stays usable.
			if _, err := simple(ctx, loam, "SELECT 1"); err != nil {
				t.Fatalf("after %s: %v", q, err)
			}
		}
	})

	t.Run("schema", func(t *testing.T) {
		for i, q := range paramQueries {
			p, err := values(ctx, pg, q.sql, q.args)
			if err != nil {
				t.Fatalf("schema query %d on PostgreSQL: %v\n%s", i, err, q.sql)
			}
			l, err := values(ctx, loam, q.sql, q.args)
			if err != nil {
				t.Errorf("schema query %d on Loam: %v\n%s", i, err, q.sql)
				continue
			}
			if l != p {
				t.Errorf("schema query %d differs\n%s\nPostgreSQL:\n%s\nLoam:\n%s", i, q.sql, p, l)
			}
		}
	})

	t.Run("panels", func(t *testing.T) {
		for i, q := range append(panelQueries, otherPanels...) {
			what := fmt.Sprintf("panel query %d", i)
			p, err := simple(ctx, pg, q.sql)
			if err != nil {
				t.Fatalf("%s on PostgreSQL: %v\n%s", what, err, q.sql)
			}
			l, err := simple(ctx, loam, q.sql)
			if err != nil {
				t.Errorf("%s on Loam: %v\n%s", what, err, q.sql)
				continue
			}
			sameResults(t, what, l, p)
			if q.series {
				checkSeries(t, what, l[len(l)-1])
			}
		}
	})
}

// errText is err's SQLSTATE and message, or "no error".
func errText(err error) string {
	if err == nil {
		return "no error"
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s %s (position %d)", pe.Code, pe.Message, pe.Position)
	}
	return err.Error()
}

// values runs sql with args as pool.Query does (statement-cache mode:
// Parse/Describe/Bind/Execute with the $n parameters) and renders the
// column names, OIDs and decoded rows.
func values(ctx context.Context, c *pgx.Conn, sql string, args []any) (string, error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for _, fd := range rows.FieldDescriptions() {
		fmt.Fprintf(&b, "%s:%d ", fd.Name, fd.DataTypeOID)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n%v", vals)
	}
	return b.String(), rows.Err()
}
