-- ddl: Loam's CREATE TABLE clauses and the DDL around them.
-- Covers CREATE TABLE with PARTITIONED BY, SORTED BY and
-- WITH (retention = ... ON col) in every subset (none, each alone, each
-- pair, all three), the other partition transforms, CREATE TABLE IF NOT
-- EXISTS, CREATE SCHEMA and a table in it, DROP TABLE [IF EXISTS],
-- DROP SCHEMA, and the errors for bad clauses (an unknown transform, a
-- column that does not exist, a retention that is not an interval), after
-- which nothing is left behind.

-- all three clauses
CREATE TABLE llm_calls (
  ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING,
  prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT
)
PARTITIONED BY (day(ts))
SORTED BY (tenant, model, ts)
WITH (retention = '180 days' ON ts);
SELECT count(*) FROM llm_calls;

-- none of them
CREATE TABLE calls_plain (
  ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING,
  prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT
);
SELECT count(*) FROM calls_plain;

-- each clause alone
CREATE TABLE calls_p (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
PARTITIONED BY (day(ts));
SELECT count(*) FROM calls_p;
CREATE TABLE calls_s (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
SORTED BY (tenant, ts);
SELECT count(*) FROM calls_s;
CREATE TABLE calls_r (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
WITH (retention = '30 days' ON ts);
SELECT count(*) FROM calls_r;

-- each pair
CREATE TABLE calls_ps (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
PARTITIONED BY (day(ts))
SORTED BY (tenant);
SELECT count(*) FROM calls_ps;
CREATE TABLE calls_pr (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
PARTITIONED BY (day(ts))
WITH (retention = '1 year' ON ts);
SELECT count(*) FROM calls_pr;
CREATE TABLE calls_sr (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
SORTED BY (ts)
WITH (retention = '36 hours' ON ts);
SELECT count(*) FROM calls_sr;

-- the other transforms: identity (a bare column), year, month, hour,
-- bucket(N, col), truncate(W, col)
CREATE TABLE calls_by_hour (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING)
PARTITIONED BY (tenant, bucket(16, model), hour(ts));
SELECT count(*) FROM calls_by_hour;
CREATE TABLE calls_by_month (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING)
PARTITIONED BY (month(ts), truncate(4, tenant));
SELECT count(*) FROM calls_by_month;
CREATE TABLE calls_by_year (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING)
PARTITIONED BY (year(ts));
SELECT count(*) FROM calls_by_year;

-- IF NOT EXISTS
CREATE TABLE IF NOT EXISTS llm_calls (ts TIMESTAMP(3) WITH TIME ZONE)
PARTITIONED BY (day(ts));
CREATE TABLE IF NOT EXISTS calls_new (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING)
SORTED BY (ts);
SELECT count(*) FROM calls_new;
CREATE TABLE llm_calls (ts TIMESTAMP(3) WITH TIME ZONE);

-- schemas
CREATE SCHEMA analytics;
CREATE TABLE analytics.llm_calls (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
PARTITIONED BY (day(ts))
SORTED BY (tenant)
WITH (retention = '90 days' ON ts);
SELECT count(*) FROM analytics.llm_calls;
CREATE SCHEMA analytics;
DROP SCHEMA analytics;
DROP TABLE analytics.llm_calls;
DROP SCHEMA analytics;
DROP SCHEMA analytics;

-- DROP TABLE
DROP TABLE calls_plain;
DROP TABLE calls_plain;
DROP TABLE IF EXISTS calls_plain;
DROP TABLE IF EXISTS calls_p;
CREATE TABLE calls_p (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, cost_usd DOUBLE)
PARTITIONED BY (hour(ts));
SELECT count(*) FROM calls_p;

-- bad clauses: each fails, and no table is left behind
CREATE TABLE bad_transform (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING)
PARTITIONED BY (week(ts));
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE bad_column (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING)
PARTITIONED BY (day(nope));
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE bad_sort (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING)
SORTED BY (tenant, nope);
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE bad_retention (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING)
WITH (retention = 'soon' ON ts);
\echo :LAST_ERROR_SQLSTATE
DROP TABLE IF EXISTS bad_transform;
DROP TABLE IF EXISTS bad_column;
DROP TABLE IF EXISTS bad_sort;
DROP TABLE IF EXISTS bad_retention;
