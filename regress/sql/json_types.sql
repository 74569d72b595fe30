-- Result types of the JSON functions, aggregates, casts and operators as
-- clients see them (RowDescription, through psql's \gdesc).
SELECT jsonb_each('{"a":1}'), jsonb_array_elements('[1]'), jsonb_object_keys('{"a":1}'), jsonb_path_query('[1]', '$[*]'), jsonb_agg(1), json_agg(1), jsonb_object_agg('a', 1), json_object_agg('a', 1) \gdesc
SELECT '1'::jsonb::numeric, '1'::jsonb::int4, '1'::jsonb::float8, 'true'::jsonb::bool, '{"a":1}'::jsonb ?| array['a'], '{"a":1}'::jsonb @? '$.a', jsonb_path_match('1', '$ == 1'), jsonb_path_query_array('[1]', '$[*]') \gdesc
SELECT * FROM jsonb_each_text('{"a":1}'), json_array_elements('[1]'), jsonb_object_keys('{}') WITH ORDINALITY \gdesc
-- json_agg puts each array or row after the first on a line of its own.
CREATE TABLE wr (id int, name text, j jsonb);
INSERT INTO wr VALUES (1, 'a', '{"x": 1}'), (2, NULL, NULL);
SELECT json_agg(wr ORDER BY id), json_agg(ARRAY[id, id] ORDER BY id), json_agg(id) FROM wr;
SELECT json_agg(t) FROM jsonb_to_recordset('[{"a": 1}, {"a": 2}]') AS t(a int);
