package main

// query is one dashboard query; every one has an ORDER BY that fixes its
// rows' order, or returns one row.
type query struct {
	name string
	sql  string
}

// queries are the panels and drill-downs of an LLM-observability
// dashboard: filters and groups on JSON attributes, traces joined to
// their observations and scores, and subqueries (EXISTS, NOT EXISTS,
// IN, correlated scalars, a CTE used twice).
var queries = []query{
	{"json-path-filter", `SELECT count(*), sum(total_cost) FROM observations WHERE attributes #>> '{llm,model_name}' = 'gpt-4o'`},
	{"json-path-group", `SELECT attributes #>> '{llm,model_name}' AS model, count(*) AS calls, avg((attributes->>'latency_ms')::int) AS avg_latency
FROM observations WHERE type = 'GENERATION' GROUP BY 1 ORDER BY 1`},
	{"json-field-group", `SELECT attributes->>'env' AS env, attributes->'service'->>'name' AS service, count(*), sum(prompt_tokens + completion_tokens) AS tokens
FROM observations GROUP BY 1, 2 ORDER BY 1, 2`},
	{"json-containment", `SELECT count(*), max(start_time) FROM observations WHERE attributes @> '{"env": "staging", "llm": {"streaming": true}}'`},
	{"json-has-key", `SELECT attributes->'tool'->>'name' AS tool, sum((attributes->'tool'->>'calls')::int) AS calls
FROM observations WHERE attributes ? 'tool' GROUP BY 1 ORDER BY 1`},
	{"json-latency-p95", `SELECT model, percentile_cont(0.95) WITHIN GROUP (ORDER BY (attributes->>'latency_ms')::int) AS p95
FROM observations WHERE model IS NOT NULL GROUP BY model ORDER BY model`},
	{"trace-metadata-filter", `SELECT t.metadata->>'region' AS region, count(DISTINCT t.id) AS traces, sum(o.total_cost) AS cost
FROM traces t JOIN observations o ON o.trace_id = t.id
WHERE t.metadata->>'customer_tier' = 'enterprise' GROUP BY 1 ORDER BY 1`},
	{"traces-observations-project", `SELECT t.name, count(*) AS observations, sum(o.total_cost) AS cost, sum(o.completion_tokens) AS completion_tokens
FROM traces t JOIN observations o ON o.trace_id = t.id
WHERE t.project_id = 'proj-3' GROUP BY t.name ORDER BY t.name`},
	{"traces-page", `SELECT t.id, t.name, t."timestamp", count(o.id) AS observations, coalesce(sum(o.total_cost), 0) AS cost
FROM traces t LEFT JOIN observations o ON o.trace_id = t.id
WHERE t.project_id = 'proj-1' AND t."timestamp" >= '2026-10-10' AND t."timestamp" < '2026-10-11'
GROUP BY t.id, t.name, t."timestamp" ORDER BY t."timestamp" DESC, t.id LIMIT 50`},
	{"traces-scores", `SELECT t.name AS trace, s.name AS score, count(*) AS n, avg(s.value) AS avg
FROM traces t JOIN scores s ON s.trace_id = t.id GROUP BY 1, 2 ORDER BY 1, 2`},
	{"traces-observations-scores", `SELECT o.model, count(DISTINCT s.trace_id) AS traces, avg(s.value) AS accuracy, sum(o.total_cost) AS cost
FROM observations o JOIN scores s ON s.observation_id = o.id JOIN traces t ON t.id = o.trace_id
WHERE s.name = 'accuracy' AND t.project_id IN ('proj-0', 'proj-1') GROUP BY o.model ORDER BY o.model NULLS FIRST`},
	{"exists-error", `SELECT t.project_id, count(*) AS traces_with_errors FROM traces t
WHERE EXISTS (SELECT 1 FROM observations o WHERE o.trace_id = t.id AND o.level = 'ERROR')
GROUP BY 1 ORDER BY 1`},
	{"not-exists-unscored", `SELECT t.name, count(*) AS unscored FROM traces t
WHERE NOT EXISTS (SELECT 1 FROM scores s WHERE s.trace_id = t.id) GROUP BY 1 ORDER BY 1`},
	{"in-subquery", `SELECT count(*), sum(total_cost) FROM observations
WHERE trace_id IN (SELECT trace_id FROM scores WHERE name = 'toxicity' AND value > 0.9)`},
	{"not-in-subquery", `SELECT count(*) FROM traces WHERE project_id = 'proj-2'
AND id NOT IN (SELECT trace_id FROM observations WHERE level = 'WARNING')`},
	{"correlated-scalar", `SELECT t.id, t.name, (SELECT max(s.value) FROM scores s WHERE s.trace_id = t.id AND s.name = 'accuracy') AS best
FROM traces t WHERE t.user_id = 'user-7' ORDER BY t.id`},
	{"correlated-avg-above", `SELECT o.model, count(*) FROM observations o
WHERE o.type = 'GENERATION' AND o.total_cost > (SELECT avg(o2.total_cost) * 3 FROM observations o2 WHERE o2.model = o.model)
GROUP BY 1 ORDER BY 1`},
	{"cte-twice", `WITH daily AS (
  SELECT project_id, date_trunc('day', start_time) AS day, sum(total_cost) AS cost FROM observations GROUP BY 1, 2)
SELECT d.project_id, d.day, d.cost, round(100 * d.cost / (SELECT sum(cost) FROM daily x WHERE x.project_id = d.project_id), 4) AS pct
FROM daily d WHERE d.cost > (SELECT avg(cost) FROM daily) ORDER BY 1, 2`},
	{"top-users-having", `SELECT t.user_id, sum(o.total_cost) AS cost FROM traces t JOIN observations o ON o.trace_id = t.id
GROUP BY t.user_id HAVING sum(o.total_cost) > 2 * (SELECT sum(total_cost) / count(DISTINCT trace_id) FROM observations)
ORDER BY cost DESC, t.user_id LIMIT 20`},
	{"sessions", `SELECT session_id, count(*) AS traces, min("timestamp") AS first, max("timestamp") AS last
FROM traces WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY count(*) DESC, session_id LIMIT 25`},
}
