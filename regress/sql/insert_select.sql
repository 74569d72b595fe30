-- insert_select: INSERT ... VALUES and SELECT on the Loam llm_calls table.
-- Covers multi-row INSERT ... VALUES with NULLs (literal and by an omitted
-- column), TIMESTAMP(3) rounding and time zone offsets on input; SELECT with
-- WHERE comparisons, AND/OR/NOT, IS [NOT] NULL, [NOT] IN, [NOT] BETWEEN,
-- [NOT] LIKE; GROUP BY model with count/sum/avg/min/max; ORDER BY (NULLs
-- last ascending, first descending); LIMIT/OFFSET; filters on ts;
-- INSERT ... SELECT; and a syntax error followed by a query that works.
-- No retention: its rows are of March 2025, which a retention would hide
-- from some day on (sql/engine/retention_test.go covers retention).

CREATE TABLE llm_calls (
  ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING,
  prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT
)
PARTITIONED BY (day(ts))
SORTED BY (tenant, model, ts);

INSERT INTO llm_calls VALUES
  ('2025-03-01 09:00:00.25+00', 'acme', 'gpt-4o', 1200, 300, 0.5, 840),
  ('2025-03-01 09:05:10.5+00', 'acme', 'claude-sonnet', 800, 200, 0.25, 1210),
  ('2025-03-01 23:59:59.999+00', 'globex', 'gpt-4o', 2400, 600, 1, 1930),
  ('2025-03-02 00:00:00+00', 'globex', 'gpt-4o-mini', 300, 100, 0.0625, 320),
  ('2025-03-02 08:15:30.4567+00', 'initech', 'claude-sonnet', 1600, NULL, NULL, NULL),
  ('2025-03-02 12:00:00+02', 'acme', 'gpt-4o-mini', 150, 50, 0.03125, 290),
  ('2025-03-03 17:45:00+00', 'initech', NULL, NULL, NULL, NULL, 15),
  ('2025-03-03 18:00:00.001+00', NULL, 'gpt-4o', 500, 125, 0.125, 610);
INSERT INTO llm_calls (ts, tenant, model) VALUES ('2025-03-04 06:30:00+00', 'umbrella', 'claude-haiku');
INSERT INTO llm_calls VALUES (NULL, 'acme', 'claude-haiku', 90, 10, 0.0078125, 150);

SELECT count(*) FROM llm_calls;
SELECT * FROM llm_calls ORDER BY ts;

-- comparisons
SELECT tenant, model, prompt_tokens FROM llm_calls WHERE prompt_tokens > 1000 ORDER BY prompt_tokens;
SELECT tenant, model, latency_ms FROM llm_calls WHERE latency_ms <= 320 ORDER BY latency_ms;
SELECT ts, model FROM llm_calls WHERE tenant = 'globex' ORDER BY ts;
SELECT ts, tenant FROM llm_calls WHERE tenant <> 'acme' ORDER BY ts;
SELECT ts, cost_usd FROM llm_calls WHERE cost_usd < 0.1 ORDER BY cost_usd;
SELECT tenant, model FROM llm_calls WHERE prompt_tokens >= 1200 AND completion_tokens != 600 ORDER BY ts;

-- AND, OR, NOT
SELECT ts, tenant, model, cost_usd FROM llm_calls WHERE tenant = 'acme' AND cost_usd >= 0.25 ORDER BY ts;
SELECT ts, tenant, model FROM llm_calls WHERE tenant = 'globex' OR model = 'claude-haiku' ORDER BY ts;
SELECT ts, tenant FROM llm_calls WHERE NOT (tenant = 'acme') ORDER BY ts;
SELECT ts, tenant, model FROM llm_calls WHERE tenant = 'initech' OR tenant = 'acme' AND model = 'gpt-4o' ORDER BY ts;
SELECT ts, tenant, model FROM llm_calls WHERE (tenant = 'initech' OR tenant = 'acme') AND NOT model LIKE 'claude%' ORDER BY ts;

-- IS NULL
SELECT ts, tenant FROM llm_calls WHERE model IS NULL;
SELECT ts, tenant, model FROM llm_calls WHERE cost_usd IS NULL ORDER BY ts;
SELECT tenant, model FROM llm_calls WHERE ts IS NULL;
SELECT ts, model FROM llm_calls WHERE tenant IS NOT NULL AND latency_ms IS NULL ORDER BY ts;

-- IN
SELECT ts, tenant, model FROM llm_calls WHERE model IN ('gpt-4o', 'gpt-4o-mini') ORDER BY ts;
SELECT ts, tenant FROM llm_calls WHERE tenant NOT IN ('acme', 'globex') ORDER BY ts;
SELECT ts, latency_ms FROM llm_calls WHERE latency_ms IN (15, 150, 999) ORDER BY ts;

-- BETWEEN
SELECT tenant, model, prompt_tokens FROM llm_calls WHERE prompt_tokens BETWEEN 300 AND 1200 ORDER BY prompt_tokens;
SELECT tenant, model, prompt_tokens FROM llm_calls WHERE prompt_tokens NOT BETWEEN 300 AND 1200 ORDER BY prompt_tokens;

-- LIKE
SELECT ts, model FROM llm_calls WHERE model LIKE 'gpt-%' ORDER BY ts;
SELECT ts, model FROM llm_calls WHERE model LIKE 'claude-_aiku' ORDER BY ts;
SELECT ts, tenant FROM llm_calls WHERE tenant LIKE '_cme' OR tenant LIKE '%ex' ORDER BY ts;
SELECT ts, model FROM llm_calls WHERE model NOT LIKE '%4o%' ORDER BY ts;

-- GROUP BY with aggregates
SELECT model, count(*) FROM llm_calls GROUP BY model ORDER BY model;
SELECT model, count(*) AS calls, count(cost_usd) AS priced, sum(prompt_tokens) AS prompt_tokens,
       sum(cost_usd) AS cost_usd, avg(latency_ms) AS avg_latency_ms,
       min(ts) AS first_call, max(ts) AS last_call
FROM llm_calls GROUP BY model ORDER BY model;
SELECT model, min(prompt_tokens), max(prompt_tokens), avg(cost_usd), min(tenant), max(tenant)
FROM llm_calls WHERE tenant IS NOT NULL GROUP BY model ORDER BY count(*) DESC, model;
SELECT count(*), count(model), sum(completion_tokens), avg(prompt_tokens), min(cost_usd), max(cost_usd) FROM llm_calls;
SELECT count(*), sum(prompt_tokens), avg(prompt_tokens), max(ts) FROM llm_calls WHERE tenant = 'nobody';

-- ORDER BY
SELECT tenant, model, cost_usd FROM llm_calls ORDER BY cost_usd DESC, ts;
SELECT tenant, model FROM llm_calls ORDER BY tenant, model DESC;
SELECT ts, latency_ms FROM llm_calls ORDER BY 2, 1;

-- LIMIT and OFFSET
SELECT ts, tenant FROM llm_calls ORDER BY ts LIMIT 3;
SELECT ts, tenant FROM llm_calls ORDER BY ts LIMIT 3 OFFSET 3;
SELECT ts, tenant FROM llm_calls ORDER BY ts OFFSET 8;
SELECT ts, tenant FROM llm_calls ORDER BY ts LIMIT 0;
SELECT ts, tenant FROM llm_calls ORDER BY ts DESC LIMIT 2 OFFSET 20;

-- filters on ts
SELECT ts, tenant, model FROM llm_calls WHERE ts >= '2025-03-02' AND ts < '2025-03-03' ORDER BY ts;
SELECT ts, tenant FROM llm_calls WHERE ts > '2025-03-03 12:00:00+00' ORDER BY ts;
SELECT ts, tenant FROM llm_calls WHERE ts = '2025-03-02 10:00:00+00';
SELECT ts, tenant FROM llm_calls WHERE ts BETWEEN '2025-03-01 09:05:10.5+00' AND '2025-03-02 00:00:00+00' ORDER BY ts;

-- INSERT ... SELECT
CREATE TABLE acme_calls (ts TIMESTAMP(3) WITH TIME ZONE, model STRING, tokens INT, cost_usd DOUBLE)
PARTITIONED BY (month(ts));
INSERT INTO acme_calls SELECT ts, model, prompt_tokens + completion_tokens, cost_usd FROM llm_calls WHERE tenant = 'acme';
INSERT INTO acme_calls (ts, model) SELECT ts, model FROM llm_calls WHERE tenant = 'umbrella';
SELECT * FROM acme_calls ORDER BY ts;
INSERT INTO llm_calls SELECT * FROM llm_calls WHERE model = 'claude-haiku';
SELECT count(*) FROM llm_calls;
SELECT tenant, count(*) FROM llm_calls WHERE model = 'claude-haiku' GROUP BY tenant ORDER BY tenant;

-- a syntax error, then a query that works
SELECT model, count(*) FORM llm_calls GROUP BY model;
\echo :LAST_ERROR_SQLSTATE
SELECT model, count(*) FROM llm_calls GROUP BY model ORDER BY model;
