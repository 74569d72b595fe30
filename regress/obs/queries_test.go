package obs

// query is one dashboard query. ordered says its ORDER BY fixes the order
// of the rows totally (else rows compare as multisets). args are its $n
// parameters.
type query struct {
	name    string
	sql     string
	args    []any
	ordered bool
}

// The week's range and a range with no rows, as the UIs pass them.
const (
	from  = "2026-11-01T00:00:00Z"
	to    = "2026-11-08T00:00:00Z"
	empty = "2026-01-01T00:00:00Z"
)

// queries are what the products' dashboards and API endpoints run,
// translated to PostgreSQL over schema's tables.
var queries = []query{
	// Langfuse: the home dashboard.
	{name: "traces-per-day", sql: `SELECT date_trunc('day', "timestamp") AS day, count(*) AS traces
FROM traces WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 GROUP BY 1 ORDER BY 1`, args: []any{"proj-1", from, to}, ordered: true},
	{name: "cost-per-model-per-day", sql: `SELECT date_trunc('day', start_time) AS day, model, sum(total_cost) AS cost,
  sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(total_tokens) AS total_tokens
FROM observations WHERE type = 'GENERATION' AND model IS NOT NULL
GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "tokens-from-usage-json", sql: `SELECT model, sum((usage->>'input')::int) AS input, sum((usage->>'output')::int) AS output,
  sum((usage->>'total')::bigint) AS total, count(*) FILTER (WHERE usage ? 'total') AS with_total
FROM observations WHERE usage IS NOT NULL GROUP BY model ORDER BY model NULLS FIRST`, ordered: true},
	{name: "latency-percentiles-per-model", sql: `SELECT model,
  percentile_cont(ARRAY[0.5, 0.9, 0.95, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM end_time - start_time)) AS p
FROM observations WHERE type = 'GENERATION' AND end_time IS NOT NULL GROUP BY model ORDER BY model NULLS LAST`, ordered: true},
	{name: "latency-percentiles-param", sql: `SELECT name, percentile_cont($1::float8[]) WITHIN GROUP (ORDER BY duration_ns / 1e6) AS ms
FROM spans GROUP BY name ORDER BY name`, args: []any{[]float64{0.25, 0.5, 0.75}}, ordered: true},
	{name: "time-to-first-token", sql: `SELECT model, avg(extract(epoch FROM completion_start_time - start_time) * 1000) AS ttft_ms,
  percentile_disc(0.5) WITHIN GROUP (ORDER BY completion_start_time - start_time) AS median
FROM observations WHERE completion_start_time IS NOT NULL GROUP BY model`},
	{name: "error-rate-per-day", sql: `SELECT date_trunc('day', start_time) AS day,
  count(*) FILTER (WHERE level = 'ERROR') AS errors, count(*) AS total,
  round(100.0 * count(*) FILTER (WHERE level = 'ERROR') / NULLIF(count(*), 0), 2) AS error_pct
FROM observations GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "top-users-by-cost", sql: `SELECT t.user_id, count(DISTINCT t.id) AS traces, sum(o.total_cost) AS cost, sum(o.total_tokens) AS tokens
FROM traces t JOIN observations o ON o.trace_id = t.id
WHERE t.user_id IS NOT NULL AND t.user_id <> ''
GROUP BY t.user_id ORDER BY cost DESC NULLS LAST, t.user_id LIMIT 10`, ordered: true},
	{name: "traces-with-observation-counts", sql: `SELECT t.id, t.name, t."timestamp", count(o.id) AS observations,
  count(o.id) FILTER (WHERE o.type = 'GENERATION') AS generations, coalesce(sum(o.total_cost), 0) AS cost
FROM traces t LEFT JOIN observations o ON o.trace_id = t.id
WHERE t.project_id = $1 GROUP BY t.id ORDER BY t."timestamp" DESC, t.id LIMIT 50`, args: []any{"proj-0"}, ordered: true},
	{name: "score-averages", sql: `SELECT name, source, avg(value) AS avg, count(*) AS n, min(value), max(value), stddev_samp(value)
FROM scores WHERE data_type = 'NUMERIC' GROUP BY name, source ORDER BY name, source`, ordered: true},
	{name: "score-boolean-share", sql: `SELECT name, avg(CASE WHEN value = 1 THEN 1.0 ELSE 0.0 END) AS share_true, count(*)
FROM scores WHERE data_type = 'BOOLEAN' GROUP BY name`},
	{name: "sessions", sql: `SELECT session_id, count(*) AS traces, min("timestamp") AS first, max("timestamp") AS last,
  extract(epoch FROM max("timestamp") - min("timestamp")) AS duration_s, array_agg(DISTINCT user_id) AS users
FROM traces WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY count(*) DESC, session_id LIMIT 25`, ordered: true},
	{name: "tag-any", sql: `SELECT count(*) FROM traces WHERE 'prod' = ANY(tags)`},
	{name: "tag-contains", sql: `SELECT id FROM traces WHERE tags @> ARRAY['rag', 'agent'] ORDER BY id`, ordered: true},
	{name: "tag-overlap", sql: `SELECT id, tags FROM traces WHERE tags && ARRAY['beta', 'eval']::text[] AND project_id = 'proj-2' ORDER BY id`, ordered: true},
	{name: "tag-counts-unnest", sql: `SELECT tag, count(*) FROM traces, unnest(tags) AS tag GROUP BY tag ORDER BY tag`, ordered: true},
	{name: "tag-param", sql: `SELECT count(*) FROM traces WHERE tags @> $1::text[]`, args: []any{[]string{"x"}}},
	{name: "tag-empty", sql: `SELECT count(*) FILTER (WHERE tags = '{}'), count(*) FILTER (WHERE cardinality(tags) > 2), max(array_length(tags, 1)) FROM traces`},
	{name: "metadata-env", sql: `SELECT metadata->>'env' AS env, count(*) FROM traces WHERE metadata->>'env' = 'prod' OR metadata->>'env' IS NULL GROUP BY 1 ORDER BY 1 NULLS FIRST`, ordered: true},
	{name: "metadata-has-key", sql: `SELECT count(*) FROM traces WHERE metadata ? 'customer_tier'`},
	{name: "metadata-contains", sql: `SELECT id FROM traces WHERE metadata @> '{"env": "staging", "region": "eu"}' ORDER BY id`, ordered: true},
	{name: "metadata-any-key", sql: `SELECT count(*) FROM observations WHERE metadata ?| array['retries', 'customer_tier']`},
	{name: "metadata-all-keys", sql: `SELECT count(*) FROM observations WHERE metadata ?& array['env', 'retries']`},
	{name: "metadata-retries-cast", sql: `SELECT (metadata->>'retries')::int AS retries, count(*) FROM observations WHERE metadata ? 'retries' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "metadata-jsonb-numeric-cast", sql: `SELECT sum((metadata->'retries')::numeric), avg((model_parameters->'temperature')::float8) FROM observations`},
	{name: "metadata-keys", sql: `SELECT k, count(*) FROM traces, jsonb_object_keys(metadata) AS k GROUP BY k ORDER BY k`, ordered: true},
	{name: "metadata-each-text", sql: `SELECT e.key, e.value, count(*) FROM traces t, jsonb_each_text(t.metadata) e WHERE e.key <> 'retries' GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "tool-calls-lateral", sql: `SELECT tc->'function'->>'name' AS tool, count(*) AS calls, sum((tc->>'tokens')::int) AS tokens
FROM observations o, LATERAL jsonb_array_elements(o.output->'tool_calls') AS tc
GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "tool-calls-left-lateral", sql: `SELECT o.id, count(tc) AS n FROM observations o
LEFT JOIN LATERAL jsonb_array_elements(o.output->'tool_calls') tc ON true
WHERE o.trace_id = 'tr-0007' GROUP BY o.id ORDER BY o.id`, ordered: true},
	{name: "tool-call-array-length", sql: `SELECT jsonb_array_length(output->'tool_calls') AS n, count(*) FROM observations WHERE output IS NOT NULL GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "running-cost", sql: `SELECT day, cost, sum(cost) OVER (ORDER BY day) AS running
FROM (SELECT date_trunc('day', start_time) AS day, sum(total_cost) AS cost FROM observations GROUP BY 1) d ORDER BY day`, ordered: true},
	{name: "time-between-calls", sql: `SELECT id, trace_id, start_time,
  start_time - lag(start_time) OVER (PARTITION BY trace_id ORDER BY start_time, id) AS since_prev
FROM observations WHERE trace_id IN ('tr-0001', 'tr-0002', 'tr-0003', 'tr-0010') ORDER BY trace_id, start_time, id`, ordered: true},
	{name: "rolling-hour-window", sql: `SELECT id, start_time,
  count(*) OVER w AS calls_last_hour, sum(total_tokens) OVER w AS tokens_last_hour
FROM observations WHERE project_id = 'proj-0' AND type = 'GENERATION'
WINDOW w AS (ORDER BY start_time RANGE BETWEEN INTERVAL '1 hour' PRECEDING AND CURRENT ROW)
ORDER BY start_time, id LIMIT 200`, ordered: true},
	{name: "row-number-per-user", sql: `SELECT user_id, id, rn FROM (SELECT user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY "timestamp" DESC, id) AS rn FROM traces WHERE user_id IS NOT NULL) s WHERE rn <= 2 ORDER BY user_id, rn`, ordered: true},
	{name: "rank-models-by-latency", sql: `SELECT model, avg_ms, rank() OVER (ORDER BY avg_ms DESC) FROM (
  SELECT model, avg(delay_ms) AS avg_ms FROM response GROUP BY model) s ORDER BY 3, 1`, ordered: true},
	{name: "keyset-page", sql: `SELECT id, "timestamp", name FROM traces WHERE ("timestamp", id) < ($1::timestamptz, $2)
ORDER BY "timestamp" DESC, id DESC LIMIT 20`, args: []any{"2026-11-05T12:00:00Z", "tr-0400"}, ordered: true},
	{name: "keyset-page-observations", sql: `SELECT id, start_time FROM observations WHERE project_id = $1 AND (start_time, id) > ($2::timestamptz, $3)
ORDER BY start_time, id LIMIT 25`, args: []any{"proj-2", "2026-11-03T00:00:00Z", "obs-00000"}, ordered: true},
	{name: "gap-filled-hours", sql: `SELECT b.bucket, coalesce(c.n, 0) AS traces
FROM generate_series(timestamptz '2026-11-02 00:00:00+00', timestamptz '2026-11-02 23:00:00+00', interval '1 hour') AS b(bucket)
LEFT JOIN (SELECT date_trunc('hour', "timestamp") AS bucket, count(*) AS n FROM traces WHERE project_id = 'proj-0' GROUP BY 1) c ON c.bucket = b.bucket
ORDER BY b.bucket`, ordered: true},
	{name: "date-bin-15min", sql: `SELECT date_bin('15 minutes', created_at, timestamptz '2026-11-01 00:00:00+00') AS bucket, count(*), avg(delay_ms)
FROM response WHERE created_at < '2026-11-01 06:00:00+00' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "gap-filled-empty-range", sql: `SELECT d.day, count(t.id) AS traces, count(t.id) FILTER (WHERE t.bookmarked) AS bookmarked
FROM generate_series($1::timestamptz, $1::timestamptz + interval '2 days', interval '1 day') AS d(day)
LEFT JOIN traces t ON date_trunc('day', t."timestamp") = d.day GROUP BY d.day ORDER BY d.day`, args: []any{empty}, ordered: true},
	{name: "group-by-primary-key", sql: `SELECT p.id, p.name, p.org_id, count(t.id) AS traces FROM projects p LEFT JOIN traces t ON t.project_id = p.id GROUP BY p.id ORDER BY p.id`, ordered: true},
	{name: "cte-daily-stats", sql: `WITH daily AS (
  SELECT project_id, date_trunc('day', start_time) AS day, sum(total_cost) AS cost, count(*) AS n FROM observations GROUP BY 1, 2
), totals AS (SELECT project_id, sum(cost) AS cost FROM daily GROUP BY 1)
SELECT d.project_id, d.day, d.n, d.cost, round(d.cost / NULLIF(t.cost, 0) * 100, 4) AS pct
FROM daily d JOIN totals t USING (project_id) ORDER BY 1, 2`, ordered: true},
	{name: "filter-empty-range", sql: `SELECT count(*) FILTER (WHERE level = 'ERROR') AS errors, count(*) FILTER (WHERE type = 'GENERATION') AS generations,
  sum(total_cost) FILTER (WHERE model = 'gpt-4o') AS cost, avg(total_tokens) FROM observations WHERE start_time >= $1 AND start_time < $1::timestamptz + interval '1 day'`, args: []any{empty}},
	{name: "filter-grouped-empty-range", sql: `SELECT model, count(*) FILTER (WHERE level = 'ERROR') AS errors, count(DISTINCT trace_id) AS traces
FROM observations WHERE start_time >= $1 AND start_time < $1::timestamptz + interval '1 day' GROUP BY model`, args: []any{empty}},
	{name: "distinct-on-latest-score", sql: `SELECT DISTINCT ON (trace_id, name) trace_id, name, value, "timestamp"
FROM scores WHERE project_id = 'proj-1' ORDER BY trace_id, name, "timestamp" DESC, id`, ordered: true},
	{name: "row-number-dedup", sql: `SELECT count(*) FROM (SELECT *, row_number() OVER (PARTITION BY request ORDER BY created_at DESC, id) AS rn FROM response) s WHERE rn = 1`},
	{name: "string-agg-models", sql: `SELECT trace_id, string_agg(DISTINCT model, ', ' ORDER BY model) AS models FROM observations
WHERE model IS NOT NULL AND trace_id < 'tr-0050' GROUP BY trace_id ORDER BY trace_id`, ordered: true},
	{name: "json-agg-nested", sql: `SELECT t.id, json_agg(json_build_object('id', o.id, 'type', o.type, 'model', o.model) ORDER BY o.start_time, o.id) AS observations
FROM traces t JOIN observations o ON o.trace_id = t.id WHERE t.id IN ('tr-0003', 'tr-0004', 'tr-0005') GROUP BY t.id ORDER BY t.id`, ordered: true},
	{name: "jsonb-agg-scores", sql: `SELECT trace_id, jsonb_agg(jsonb_build_object('name', name, 'value', value) ORDER BY id) AS scores
FROM scores WHERE trace_id < 'tr-0020' GROUP BY trace_id ORDER BY trace_id`, ordered: true},
	{name: "jsonb-object-agg", sql: `SELECT trace_id, jsonb_object_agg(name, value) AS by_name FROM (SELECT DISTINCT ON (trace_id, name) trace_id, name, value FROM scores WHERE value IS NOT NULL ORDER BY trace_id, name, id) s
WHERE trace_id < 'tr-0030' GROUP BY trace_id ORDER BY trace_id`, ordered: true},
	{name: "cost-ratio-coalesce", sql: `SELECT model, coalesce(sum(output_cost), 0) / NULLIF(sum(input_cost), 0) AS out_in_ratio,
  sum(completion_tokens)::float8 / NULLIF(sum(prompt_tokens), 0) AS token_ratio
FROM observations WHERE type = 'GENERATION' GROUP BY model ORDER BY model NULLS FIRST`, ordered: true},
	{name: "latency-buckets", sql: `SELECT CASE WHEN delay_ms IS NULL THEN 'unknown' WHEN delay_ms < 1000 THEN '<1s' WHEN delay_ms < 5000 THEN '1-5s'
  WHEN delay_ms < 15000 THEN '5-15s' ELSE '>15s' END AS bucket, count(*) FROM response GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "interval-arith", sql: `SELECT id, end_time - start_time AS duration, start_time + interval '30 seconds' AS deadline,
  (end_time - start_time) > interval '10 seconds' AS slow FROM observations WHERE trace_id = 'tr-0100' ORDER BY id`, ordered: true},
	{name: "avg-interval", sql: `SELECT type, avg(end_time - start_time) AS avg_duration, max(end_time - start_time), sum(end_time - start_time) FROM observations GROUP BY type ORDER BY type`, ordered: true},
	{name: "epoch-duration", sql: `SELECT name, avg(extract(epoch FROM end_time - start_time)) AS avg_s, sum(duration_ns) / 1e9 AS total_s FROM spans GROUP BY name ORDER BY name`, ordered: true},
	// Helicone.
	{name: "helicone-requests-over-time", sql: `SELECT date_trunc('hour', r.created_at) AS hour, count(*) AS requests,
  count(*) FILTER (WHERE resp.status >= 400) AS errors, avg(resp.delay_ms) AS avg_latency
FROM request r LEFT JOIN response resp ON resp.request = r.id WHERE r.created_at >= $1 AND r.created_at < $2 AND r.org_id = $3
GROUP BY 1 ORDER BY 1`, args: []any{"2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z", "org-0"}, ordered: true},
	{name: "helicone-properties", sql: `SELECT r.properties->>'Helicone-Property-Feature' AS feature, count(*), sum(resp.cost_usd) AS cost
FROM request r JOIN response resp ON resp.request = r.id WHERE r.properties ? 'Helicone-Property-Feature' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "helicone-property-keys", sql: `SELECT key, count(DISTINCT value) FROM request, jsonb_each(properties) GROUP BY key ORDER BY key`, ordered: true},
	{name: "helicone-usage-from-body", sql: `SELECT model, sum((body->'usage'->>'total_tokens')::int) AS tokens, avg((body #>> '{usage,prompt_tokens}')::numeric) AS avg_prompt
FROM response WHERE status = 200 GROUP BY model ORDER BY model`, ordered: true},
	{name: "helicone-finish-reasons", sql: `SELECT c->>'finish_reason' AS reason, count(*) FROM response, jsonb_array_elements(body->'choices') c GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "helicone-error-types", sql: `SELECT status, body->'error'->>'type' AS type, count(*) FROM response WHERE status <> 200 GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "helicone-top-users", sql: `SELECT r.user_id, count(*) AS requests, sum(resp.prompt_tokens + resp.completion_tokens) AS tokens,
  sum(resp.cost_usd) AS cost, max(r.created_at) AS last_seen
FROM request r JOIN response resp ON resp.request = r.id GROUP BY r.user_id ORDER BY requests DESC, r.user_id NULLS FIRST LIMIT 10`, ordered: true},
	{name: "helicone-no-response", sql: `SELECT r.id FROM request r WHERE NOT EXISTS (SELECT 1 FROM response x WHERE x.request = r.id) ORDER BY r.id`, ordered: true},
	{name: "helicone-stream-share", sql: `SELECT provider, avg(CASE WHEN (body->>'stream')::boolean THEN 1 ELSE 0 END) AS stream_share, count(*) FILTER (WHERE body IS NULL) FROM request GROUP BY provider ORDER BY provider`, ordered: true},
	{name: "helicone-messages-count", sql: `SELECT jsonb_array_length(body->'messages') AS n, count(*) FROM request GROUP BY 1 ORDER BY 1 NULLS FIRST`, ordered: true},
	{name: "helicone-request-page", sql: `SELECT r.id, r.created_at, r.model, resp.status, resp.delay_ms, resp.cost_usd
FROM request r LEFT JOIN response resp ON resp.request = r.id ORDER BY r.created_at DESC, r.id DESC LIMIT 30 OFFSET 60`, ordered: true},
	// OpenLLMetry spans.
	{name: "span-tree-children", sql: `SELECT p.span_id, p.name, count(c.span_id) AS children, coalesce(sum(c.duration_ns), 0) AS child_ns
FROM spans p LEFT JOIN spans c ON c.trace_id = p.trace_id AND c.parent_span_id = p.span_id
WHERE p.trace_id = $1 GROUP BY p.trace_id, p.span_id ORDER BY p.span_id`, args: []any{"0000000000000000000000000000f773"}, ordered: true},
	{name: "span-trace-durations", sql: `SELECT trace_id, min(start_time) AS start, max(end_time) AS "end", extract(epoch FROM max(end_time) - min(start_time)) AS seconds, count(*) AS spans
FROM spans GROUP BY trace_id ORDER BY seconds DESC, trace_id LIMIT 20`, ordered: true},
	{name: "span-genai-tokens", sql: `SELECT attributes->>'gen_ai.request.model' AS model, attributes->>'gen_ai.system' AS system,
  sum((attributes->>'gen_ai.usage.prompt_tokens')::int) AS prompt, sum((attributes->>'gen_ai.usage.completion_tokens')::int) AS completion
FROM spans WHERE attributes ? 'gen_ai.system' GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "span-error-rate", sql: `SELECT service_name, name, count(*) AS n, avg((status_code = 'ERROR')::int) AS error_rate,
  percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ns) AS p95_ns
FROM spans GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "span-events", sql: `SELECT e->>'name' AS event, e->'attributes'->>'exception.type' AS type, count(*) FROM spans, jsonb_array_elements(events) e GROUP BY 1, 2`},
	{name: "span-streaming-bool", sql: `SELECT (attributes->'llm.is_streaming')::bool AS streaming, count(*) FROM spans WHERE attributes ? 'llm.is_streaming' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "span-roots", sql: `SELECT count(*) FILTER (WHERE parent_span_id IS NULL) AS roots, count(DISTINCT trace_id) AS traces, count(*) FROM spans`},
	{name: "span-jsonpath", sql: `SELECT count(*) FROM spans WHERE jsonb_path_exists(attributes, '$."gen_ai.usage.prompt_tokens" ? (@ > 1000)')`},
	// Evaluation results.
	{name: "eval-run-summary", sql: `SELECT run_id, metric, count(*) AS n, avg(score) AS mean, avg(passed::int) AS pass_rate,
  count(*) FILTER (WHERE score IS NULL) AS missing
FROM eval_results GROUP BY run_id, metric ORDER BY run_id, metric`, ordered: true},
	{name: "eval-compare-runs", sql: `SELECT a.item_id, a.metric, a.score AS before, b.score AS after, b.score - a.score AS delta
FROM eval_results a JOIN eval_results b ON a.item_id = b.item_id AND a.metric = b.metric AND a.dataset = b.dataset
WHERE a.run_id = 'run-0' AND b.run_id = 'run-1' AND a.score IS NOT NULL AND b.score IS NOT NULL
ORDER BY a.item_id, a.metric, a.id, b.id`, ordered: true},
	{name: "eval-regressions", sql: `WITH r AS (SELECT run_id, item_id, avg(score) AS s FROM eval_results GROUP BY 1, 2)
SELECT item_id, round((s - lag(s) OVER (PARTITION BY item_id ORDER BY run_id))::numeric, 9) AS change FROM r ORDER BY change NULLS LAST, item_id LIMIT 15`, ordered: true},
	{name: "eval-score-histogram", sql: `SELECT width_bucket(score, 0, 1, 10) AS bucket, count(*) FROM eval_results GROUP BY 1 ORDER BY 1 NULLS LAST`, ordered: true},
	{name: "eval-model-leaderboard", sql: `SELECT model, round(avg(score)::numeric, 6) AS mean, percentile_cont(0.5) WITHIN GROUP (ORDER BY score) AS median,
  dense_rank() OVER (ORDER BY avg(score) DESC) AS rank FROM eval_results GROUP BY model ORDER BY rank, model`, ordered: true},
	{name: "eval-pass-bool-and", sql: `SELECT item_id, bool_and(passed) AS all_passed, bool_or(passed) AS any_passed FROM eval_results WHERE run_id = 'run-3' GROUP BY item_id ORDER BY item_id`, ordered: true},
	{name: "eval-moving-avg", sql: `SELECT id, created_at, avg(score) OVER (ORDER BY created_at, id ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS moving
FROM eval_results WHERE metric = 'relevance' ORDER BY created_at, id`, ordered: true},
	// Cross-product queries.
	{name: "trace-latest-score-lateral", sql: `SELECT t.id, s.name, s.value FROM traces t
LEFT JOIN LATERAL (SELECT name, value FROM scores WHERE scores.trace_id = t.id ORDER BY "timestamp" DESC, id LIMIT 1) s ON true
WHERE t.id < 'tr-0040' ORDER BY t.id`, ordered: true},
	{name: "row-in-list", sql: `SELECT trace_id, name, count(*) FROM scores WHERE (trace_id, name) IN (('tr-0001', 'accuracy'), ('tr-0002', 'toxicity'), ('tr-0700', 'user-feedback')) GROUP BY 1, 2`},
	{name: "scalar-subquery-share", sql: `SELECT model, count(*)::float8 / (SELECT count(*) FROM observations WHERE type = 'GENERATION') AS share
FROM observations WHERE type = 'GENERATION' GROUP BY model ORDER BY model NULLS FIRST`, ordered: true},
	{name: "users-without-scores", sql: `SELECT DISTINCT t.user_id FROM traces t WHERE t.user_id IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM scores s WHERE s.trace_id = t.id) ORDER BY 1`, ordered: true},
	{name: "union-all-activity", sql: `SELECT 'trace' AS kind, id, "timestamp" AS at FROM traces WHERE user_id = 'user-7'
UNION ALL SELECT 'score', s.id, s."timestamp" FROM scores s JOIN traces t ON t.id = s.trace_id WHERE t.user_id = 'user-7'
ORDER BY at DESC, id`, ordered: true},
	{name: "status-message-nullif", sql: `SELECT coalesce(NULLIF(status_message, ''), '(none)') AS message, count(*) FROM observations WHERE level = 'ERROR' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "user-id-empty-vs-null", sql: `SELECT user_id IS NULL AS is_null, user_id = '' AS is_empty, count(*) FROM traces GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "cost-numeric-precision", sql: `SELECT project_id, sum(total_cost), sum(input_cost + output_cost), avg(total_cost), max(total_cost) FROM observations GROUP BY project_id ORDER BY project_id`, ordered: true},
	{name: "to-char-day-labels", sql: `SELECT to_char(date_trunc('day', "timestamp"), 'YYYY-MM-DD') AS day, count(*) FROM traces GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "page-with-total-count", sql: `SELECT id, name, "timestamp", count(*) OVER () AS total FROM traces WHERE project_id = $1 AND NOT (tags && ARRAY['eval'])
ORDER BY "timestamp" DESC, id LIMIT 10 OFFSET 10`, args: []any{"proj-0"}, ordered: true},
	{name: "model-list-param", sql: `SELECT model, count(*) FROM observations WHERE model = ANY($1::text[]) GROUP BY model ORDER BY model`, args: []any{[]string{"gpt-4o", "claude-3-5-sonnet", "nope"}}, ordered: true},
	{name: "rollup-totals", sql: `SELECT project_id, model, sum(total_cost) AS cost, count(*) FROM observations WHERE type = 'GENERATION'
GROUP BY ROLLUP (project_id, model) ORDER BY GROUPING(project_id), project_id, GROUPING(model), model NULLS LAST`, ordered: true},
	{name: "day-in-zone", sql: `SELECT ("timestamp" AT TIME ZONE 'America/New_York')::date AS local_day, count(*) FROM traces GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "week-trunc", sql: `SELECT date_trunc('week', start_time) AS week, type, count(*) FROM observations GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "first-last-value", sql: `SELECT DISTINCT trace_id, first_value(name) OVER w AS first_step, last_value(name) OVER w AS last_step
FROM observations WHERE trace_id < 'tr-0030'
WINDOW w AS (PARTITION BY trace_id ORDER BY start_time, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`},
	{name: "lead-next-call", sql: `SELECT id, lead(start_time) OVER (PARTITION BY trace_id ORDER BY start_time, id) - end_time AS gap
FROM observations WHERE trace_id BETWEEN 'tr-0200' AND 'tr-0210' ORDER BY id`, ordered: true},
	{name: "percent-rank-cost", sql: `SELECT id, total_cost, percent_rank() OVER (ORDER BY total_cost) AS pr, cume_dist() OVER (ORDER BY total_cost) AS cd, ntile(4) OVER (ORDER BY total_cost, id) AS q
FROM observations WHERE project_id = 'proj-1' AND total_cost IS NOT NULL ORDER BY total_cost, id LIMIT 40`, ordered: true},
	{name: "cumulative-per-user", sql: `SELECT user_id, "timestamp", count(*) OVER (PARTITION BY user_id ORDER BY "timestamp" RANGE UNBOUNDED PRECEDING) AS n
FROM traces WHERE user_id IN ('user-1', 'user-2') ORDER BY user_id, "timestamp", n`, ordered: true},
	{name: "having-busy-sessions", sql: `SELECT session_id, count(*) FROM traces WHERE session_id IS NOT NULL GROUP BY session_id HAVING count(*) >= 5 AND max("timestamp") > $1 ORDER BY session_id`, args: []any{"2026-11-03T00:00:00Z"}, ordered: true},
	{name: "jsonb-eq-literal", sql: `SELECT count(*) FROM observations WHERE metadata->'retries' = '2'::jsonb OR model_parameters->'max_tokens' = '1024'`},
	{name: "is-distinct-from", sql: `SELECT count(*) FROM observations o JOIN traces t ON t.id = o.trace_id WHERE o.name IS DISTINCT FROM t.name`},
	{name: "percentile-filter", sql: `SELECT model, percentile_cont(0.9) WITHIN GROUP (ORDER BY total_tokens) FILTER (WHERE level <> 'ERROR') AS p90,
  max(start_time) FILTER (WHERE level = 'ERROR') AS last_error FROM observations WHERE type = 'GENERATION' GROUP BY model ORDER BY model NULLS FIRST`, ordered: true},
	{name: "to-timestamp-epoch", sql: `SELECT to_timestamp(floor(extract(epoch FROM created_at) / 3600) * 3600) AS hour, count(*) FROM response
WHERE created_at < '2026-11-02 00:00:00+00' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "interval-multiply", sql: `SELECT count(*) FROM traces WHERE "timestamp" > timestamptz '2026-11-08 00:00:00+00' - interval '1 day' * $1`, args: []any{3}},
	{name: "text-length-input", sql: `SELECT project_id, avg(length(input::text)) AS avg_len, max(length(coalesce(output->>'answer', ''))) FROM traces GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "exists-scores-per-trace", sql: `SELECT t.project_id, count(*) FILTER (WHERE EXISTS (SELECT 1 FROM scores s WHERE s.trace_id = t.id AND s.name = 'accuracy')) AS scored, count(*)
FROM traces t GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "in-subquery-errors", sql: `SELECT count(*) FROM traces WHERE id IN (SELECT trace_id FROM observations WHERE level = 'ERROR')`},
	{name: "tag-not-any-null-element", sql: `SELECT count(*) FILTER (WHERE NOT ('prod' = ANY(tags))), count(*) FILTER (WHERE 'prod' <> ALL(tags)), count(*) FILTER (WHERE array_position(tags, NULL) IS NOT NULL) FROM traces`},
	{name: "tag-array-remove", sql: `SELECT id, array_remove(tags, 'prod') AS rest, array_to_string(tags, ',', '-') FROM traces WHERE tags @> '{prod}' AND id < 'tr-0100' ORDER BY id`, ordered: true},
	{name: "tag-string-agg", sql: `SELECT project_id, string_agg(DISTINCT tag, '|' ORDER BY tag) FROM traces, unnest(tags) tag WHERE tag <> '' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "hour-dow-heatmap", sql: `SELECT extract(dow FROM start_time) AS dow, extract(hour FROM start_time) AS hour, count(*) FROM observations GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "recursive-observation-tree", sql: `WITH RECURSIVE tree AS (
  SELECT id, parent_observation_id, 0 AS depth FROM observations WHERE trace_id = 'tr-0042' AND parent_observation_id IS NULL
  UNION ALL SELECT o.id, o.parent_observation_id, t.depth + 1 FROM observations o JOIN tree t ON o.parent_observation_id = t.id
) SELECT depth, count(*) FROM tree GROUP BY depth ORDER BY depth`, ordered: true},
	{name: "limit-offset-params", sql: `SELECT id FROM traces ORDER BY "timestamp", id LIMIT $1 OFFSET $2`, args: []any{5, 100}, ordered: true},
	{name: "not-in-with-nulls", sql: `SELECT count(*) FROM traces WHERE id NOT IN (SELECT trace_id FROM observations)`},
	{name: "not-in-without-nulls", sql: `SELECT count(*) FROM traces WHERE id NOT IN (SELECT trace_id FROM observations WHERE trace_id IS NOT NULL)`},
	{name: "full-join-hourly", sql: `SELECT coalesce(a.h, b.h) AS hour, coalesce(a.n, 0) AS requests, coalesce(b.n, 0) AS responses
FROM (SELECT date_trunc('hour', created_at) AS h, count(*) AS n FROM request WHERE created_at < '2026-11-01 12:00:00+00' GROUP BY 1) a
FULL JOIN (SELECT date_trunc('hour', created_at) AS h, count(*) AS n FROM response WHERE created_at < '2026-11-01 12:00:00+00' GROUP BY 1) b ON a.h = b.h
ORDER BY 1`, ordered: true},
	{name: "union-except-users", sql: `SELECT user_id FROM traces WHERE user_id IS NOT NULL UNION SELECT user_id FROM request WHERE user_id IS NOT NULL
EXCEPT SELECT user_id FROM traces WHERE bookmarked ORDER BY 1`, ordered: true},
	{name: "windowed-filter-count", sql: `SELECT DISTINCT trace_id, count(*) FILTER (WHERE level = 'ERROR') OVER (PARTITION BY trace_id) AS errors,
  sum(total_tokens) OVER (PARTITION BY trace_id) AS tokens FROM observations WHERE trace_id < 'tr-0060'`},
	{name: "split-part-provider", sql: `SELECT split_part(model, '-', 1) AS family, substring(model from 1 for 3) AS pre, count(*) FROM observations WHERE model IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`, ordered: true},
	{name: "array-agg-ordered", sql: `SELECT trace_id, array_agg(type ORDER BY start_time, id) AS steps, array_agg(DISTINCT level ORDER BY level) AS levels FROM observations WHERE trace_id < 'tr-0015' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "any-array-subquery", sql: `SELECT count(*) FROM observations WHERE trace_id = ANY(ARRAY(SELECT id FROM traces WHERE bookmarked))`},
	{name: "greatest-least-times", sql: `SELECT trace_id, greatest(max(end_time), max(completion_start_time)) AS last_activity, least(min(start_time), min(completion_start_time)) AS first FROM observations WHERE trace_id < 'tr-0020' GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "jsonb-build-summary", sql: `SELECT project_id, jsonb_build_object('traces', count(*), 'users', count(DISTINCT user_id), 'bookmarked', count(*) FILTER (WHERE bookmarked)) AS summary FROM traces GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "to-char-minute", sql: `SELECT to_char(created_at, 'YYYY-MM-DD HH24:MI') AS minute, count(*) FROM response WHERE created_at < '2026-11-01 03:00:00+00' GROUP BY 1 HAVING count(*) > 0 ORDER BY 1`, ordered: true},
	{name: "values-join-models", sql: `SELECT v.model, v.price, coalesce(sum(o.prompt_tokens), 0) * v.price / 1000000 AS est_cost
FROM (VALUES ('gpt-4o', 2.5), ('gpt-4o-mini', 0.15), ('mistral', 1.0)) AS v(model, price) LEFT JOIN observations o ON o.model = v.model
GROUP BY v.model, v.price ORDER BY v.model`, ordered: true},
	{name: "order-by-aggregate-not-selected", sql: `SELECT name FROM scores GROUP BY name HAVING count(*) FILTER (WHERE value IS NULL) < 100 ORDER BY sum(coalesce(value, 0)) DESC, name`, ordered: true},
	{name: "grouping-sets-empty-range", sql: `SELECT model, count(DISTINCT trace_id) FILTER (WHERE level = 'ERROR') AS error_traces, string_agg(DISTINCT name, ',') AS names, sum(total_cost)
FROM observations WHERE start_time < $1 GROUP BY GROUPING SETS ((model), ())`, args: []any{empty}},
	{name: "percentiles-empty-range", sql: `SELECT percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY total_tokens), percentile_disc(0.5) WITHIN GROUP (ORDER BY start_time), avg(end_time - start_time), max(metadata->>'env')
FROM observations WHERE start_time < $1`, args: []any{empty}},
	{name: "distinct-having-empty-range", sql: `SELECT project_id, count(DISTINCT user_id), count(*) FILTER (WHERE bookmarked) FROM traces WHERE "timestamp" < $1 GROUP BY project_id HAVING count(*) > 0`, args: []any{empty}},
	{name: "range-frame-both-sides", sql: `SELECT id, count(*) OVER (ORDER BY "timestamp" RANGE BETWEEN INTERVAL '30 minutes' PRECEDING AND INTERVAL '30 minutes' FOLLOWING) AS nearby
FROM traces WHERE project_id = 'proj-2' ORDER BY "timestamp", id`, ordered: true},
	{name: "range-frame-date", sql: `SELECT day, n, sum(n) OVER (ORDER BY day RANGE BETWEEN INTERVAL '2 days' PRECEDING AND CURRENT ROW) AS three_day
FROM (SELECT "timestamp"::date AS day, count(*) AS n FROM traces GROUP BY 1) d ORDER BY day`, ordered: true},
	{name: "percentile-interval", sql: `SELECT type, percentile_cont(0.5) WITHIN GROUP (ORDER BY end_time - start_time) AS median FROM observations GROUP BY type ORDER BY type`, ordered: true},
	{name: "ilike-search", sql: `SELECT id FROM traces WHERE name ILIKE $1 OR id ILIKE $1 ORDER BY id LIMIT 10`, args: []any{"%RAG%"}, ordered: true},
}

// writes change the tables; they run once, after the read queries.
var writes = []query{
	{name: "insert-returning-serial", sql: `INSERT INTO annotations (trace_id, author, note, created_at) VALUES ($1, $2, $3, $4) RETURNING id, trace_id, created_at`,
		args: []any{"tr-0001", "alice", "looks wrong", "2026-11-09T10:00:00Z"}},
	{name: "insert-select-returning", sql: `INSERT INTO annotations (trace_id, author, created_at)
SELECT id, 'bot', "timestamp" + interval '1 day' FROM traces WHERE bookmarked ORDER BY id RETURNING id, trace_id`},
	{name: "annotations-after", sql: `SELECT a.id, a.trace_id, a.author, a.note, t.name FROM annotations a JOIN traces t ON t.id = a.trace_id ORDER BY a.id`, ordered: true},
	{name: "ctas-daily-rollup", sql: `CREATE TABLE daily_rollup AS SELECT project_id, date_trunc('day', start_time) AS day, model, count(*) AS n, sum(total_cost) AS cost
FROM observations GROUP BY 1, 2, 3`},
	{name: "ctas-read", sql: `SELECT project_id, sum(n), sum(cost) FROM daily_rollup GROUP BY 1 ORDER BY 1`, ordered: true},
	{name: "ctas-avg-precision", sql: `CREATE TABLE model_avg AS SELECT model, avg(total_cost) AS avg_cost, count(*) AS n FROM observations WHERE type = 'GENERATION' GROUP BY model`},
	{name: "ctas-avg-read", sql: `SELECT model, avg_cost, n FROM model_avg ORDER BY model NULLS FIRST`, ordered: true},
	{name: "update-bookmark", sql: `UPDATE traces SET bookmarked = true WHERE id = $1`, args: []any{"tr-0005"}},
	{name: "delete-scores", sql: `DELETE FROM scores WHERE source = 'ANNOTATION' AND value IS NULL`},
	{name: "scores-after", sql: `SELECT source, count(*) FROM scores GROUP BY 1 ORDER BY 1`, ordered: true},
}
