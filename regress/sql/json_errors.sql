-- Errors of the JSON functions, operators, aggregates and casts, with
-- PostgreSQL 15's messages and SQLSTATEs (echoed after each).
CREATE TABLE j (id int, attrs jsonb);
INSERT INTO j VALUES (1, '{"model": "gpt-4o", "tokens": 12, "tools": [{"name": "search"}], "ok": true}');
SELECT (attrs->'model')::numeric FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT (attrs->'tools')::int FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT (attrs->'tokens')::bool FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT (attrs->'ok')::float8 FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT (attrs->'missing')::int FROM j;
SELECT (attrs->'tools'->0)::int8 FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM j, jsonb_each(attrs->'tools');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM j, jsonb_array_elements(attrs);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM j, jsonb_array_elements_text(attrs->'tokens');
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_object_keys(attrs->'tools') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM jsonb_object_keys('"x"');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM json_each('[1]');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM json_array_elements('{"a": 1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM jsonb_each('{"a": 1}') AS e(k, v, x);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM jsonb_each('{"a": 1}'::text);
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_object_agg(k, v) FROM (VALUES (NULL::text, 1)) t(k, v);
\echo :LAST_ERROR_SQLSTATE
SELECT json_object_agg(k, v) FROM (VALUES ('a', 1), (NULL, 2)) t(k, v);
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_query(attrs, 'strict $.missing') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_query(attrs, 'strict $.tools[5]') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_query(attrs, 'strict $.model[0]') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_query(attrs, '$.tools + 1') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_query(attrs, '$.tokens / 0') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_query(attrs, '$.tokens / 0', silent => true) FROM j;
SELECT jsonb_path_exists(attrs, '$.tokens ? (@ > $limit)') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_exists(attrs, '$.tokens ? (@ > $limit)', '[1]') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_match(attrs, '$.model') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_match(attrs, '$.model', silent => true) FROM j;
SELECT jsonb_path_query(attrs, '$.tools[') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_exists(attrs, '$ ? (@.tokens)') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_path_query_first(attrs, '@.model') FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT attrs @? '$.a[' FROM j;
\echo :LAST_ERROR_SQLSTATE
SELECT attrs @? 'strict $.missing', attrs @@ '$.model' FROM j;
SELECT jsonb_path_query(attrs, '$ ? (@.model == "gpt-4o)') FROM j;
\echo :LAST_ERROR_SQLSTATE
