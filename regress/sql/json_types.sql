-- Result types of the JSON functions, aggregates, casts and operators as
-- clients see them (RowDescription, through psql's \gdesc).
SELECT jsonb_each('{"a":1}'), jsonb_array_elements('[1]'), jsonb_object_keys('{"a":1}'), jsonb_path_query('[1]', '$[*]'), jsonb_agg(1), json_agg(1), jsonb_object_agg('a', 1), json_object_agg('a', 1) \gdesc
SELECT '1'::jsonb::numeric, '1'::jsonb::int4, '1'::jsonb::float8, 'true'::jsonb::bool, '{"a":1}'::jsonb ?| array['a'], '{"a":1}'::jsonb @? '$.a', jsonb_path_match('1', '$ == 1'), jsonb_path_query_array('[1]', '$[*]') \gdesc
SELECT * FROM jsonb_each_text('{"a":1}'), json_array_elements('[1]'), jsonb_object_keys('{}') WITH ORDINALITY \gdesc
