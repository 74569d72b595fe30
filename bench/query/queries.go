package main

import "github.com/loamdb/loam/bench/gen"

// query is one dashboard query of the benchmark.
type query struct {
	name string
	// selective marks queries that touch one tenant or one day, where
	// indexes (PostgreSQL) and partition or file pruning (Loam, DuckDB)
	// should pay off.
	selective bool
	// sql is the text every engine runs. Every query here is accepted by
	// PostgreSQL 15 and DuckDB as written; perEngine, if set, replaces it
	// for the engines it names (none needs it yet).
	sql       string
	perEngine map[string]string
}

// text is the SQL engine runs for q.
func (q query) text(engine string) string {
	if s, ok := q.perEngine[engine]; ok {
		return s
	}
	return q.sql
}

// The fixed values the selective queries use. The data set covers the 30
// days before 2026-11-01 (bench/gen). The big tenant is the busiest (Zipf
// rank 0, about a fifth of the calls), the small one of rank 19 (under 1% of
// the calls).
const (
	oneDayFrom = "'2026-10-15 00:00:00+00'"
	oneDayTo   = "'2026-10-16 00:00:00+00'"
	weekFrom   = "'2026-10-20 00:00:00+00'"
	weekTo     = "'2026-10-27 00:00:00+00'"
)

var (
	bigTenant   = "'" + gen.TenantName(0) + "'"
	smallTenant = "'" + gen.TenantName(19) + "'"
)

// queries are run in this order. Their ORDER BY keys are unique in the
// result (group keys, or ts with tie-breakers), so the engines' rows can be
// compared in order.
var queries = []query{
	{
		name: "count",
		sql:  `SELECT count(*) AS calls FROM llm_calls`,
	},
	{
		name: "cost+tokens by model",
		sql: `SELECT model, sum(cost_usd) AS cost, sum(prompt_tokens + completion_tokens) AS tokens
FROM llm_calls GROUP BY model ORDER BY model`,
	},
	{
		name:      "hourly p95 latency, 1 day",
		selective: true,
		sql: `SELECT date_trunc('hour', ts) AS hour,
  percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95_ms
FROM llm_calls WHERE ts >= ` + oneDayFrom + ` AND ts < ` + oneDayTo + `
GROUP BY 1 ORDER BY 1`,
	},
	{
		name: "top 10 tenants by cost, 1 week",
		sql: `SELECT tenant, sum(cost_usd) AS cost
FROM llm_calls WHERE ts >= ` + weekFrom + ` AND ts < ` + weekTo + `
GROUP BY tenant ORDER BY cost DESC, tenant LIMIT 10`,
	},
	{
		name:      "last 100 calls of a tenant, 1 day",
		selective: true,
		// model and latency_ms break ties of ts (whole milliseconds), so
		// the 100 rows are the same in every engine.
		sql: `SELECT ts, model, prompt_tokens, completion_tokens, cost_usd, latency_ms
FROM llm_calls WHERE tenant = ` + smallTenant + ` AND ts >= ` + oneDayFrom + ` AND ts < ` + oneDayTo + `
ORDER BY ts DESC, model, latency_ms LIMIT 100`,
	},
	{
		name: "distinct tenants by model",
		sql: `SELECT model, count(DISTINCT tenant) AS tenants
FROM llm_calls GROUP BY model ORDER BY model`,
	},
	{
		name:      "5-minute series, 1 day (Grafana)",
		selective: true,
		sql: `SELECT floor(extract(epoch FROM ts) / 300) * 300 AS time, count(*) AS calls
FROM llm_calls WHERE ts >= ` + oneDayFrom + ` AND ts < ` + oneDayTo + `
GROUP BY 1 ORDER BY 1`,
	},
	{
		name: "join models: cost by provider",
		sql: `SELECT m.provider, count(*) AS calls, sum(c.cost_usd) AS cost,
  sum(c.prompt_tokens * m.prompt_price + c.completion_tokens * m.completion_price) / 1000000 AS list_cost
FROM llm_calls c JOIN models m ON c.model = m.model
GROUP BY m.provider ORDER BY m.provider`,
	},
	{
		name: "p50/p99 latency by model",
		sql: `SELECT model,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50_ms,
  percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99_ms
FROM llm_calls GROUP BY model ORDER BY model`,
	},
	{
		name:      "daily calls+cost of the busiest tenant",
		selective: true,
		sql: `SELECT date_trunc('day', ts) AS day, count(*) AS calls, sum(cost_usd) AS cost, avg(latency_ms) AS avg_latency_ms
FROM llm_calls WHERE tenant = ` + bigTenant + `
GROUP BY 1 ORDER BY 1`,
	},
}

// modelsTable is the small dimension table of the join query, created in
// every engine with the same text: a model's provider and its list prices
// in US dollars per million tokens.
const modelsTable = `CREATE TABLE models (model text, provider text, prompt_price double precision, completion_price double precision)`
