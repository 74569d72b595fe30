-- Correlated subqueries above GROUP BY read the group's key columns; an
-- ungrouped outer column is PostgreSQL's 42803 with the reference's position.
-- Expected output is PostgreSQL 15's (psql -X -a -q against a PG 15 server).
CREATE TABLE cg_calls(model TEXT, tokens INTEGER, region TEXT);
INSERT INTO cg_calls VALUES ('a', 10, 'eu'), ('a', 20, 'us'), ('b', 5, 'eu'), ('c', 7, NULL), (NULL, 3, 'us');
CREATE TABLE cg_pricing(model TEXT, price INTEGER);
INSERT INTO cg_pricing VALUES ('a', 2), ('a', 3), ('b', 4), ('d', 1);
SELECT model, (SELECT c.tokens) FROM cg_calls c GROUP BY model;
SELECT model FROM cg_calls c GROUP BY model HAVING EXISTS (SELECT 1 FROM cg_pricing p WHERE p.price = c.tokens);
SELECT count(*), (SELECT c.model) FROM cg_calls c;
SELECT lower(model), (SELECT count(*) FROM cg_pricing p WHERE p.model = lower(c.model)) FROM cg_calls c GROUP BY lower(model);
SELECT c.model, (SELECT p.price FROM cg_pricing p WHERE p.model = c.model) FROM cg_calls c GROUP BY c.model ORDER BY 1;
SELECT model, (SELECT count(*) FROM cg_pricing p WHERE p.model = x.model) FROM cg_pricing JOIN cg_calls x USING (model) GROUP BY model ORDER BY 1;
SELECT model, (SELECT count(*) FROM cg_pricing p WHERE p.model = c.model AND p.price < c.region::int) FROM cg_calls c GROUP BY model;
SELECT model, (SELECT c.tokens + count(*) FROM cg_pricing p) FROM cg_calls c GROUP BY model;
SELECT model FROM cg_calls c GROUP BY model HAVING (SELECT c.region) IS NULL;
SELECT model, (SELECT count(*) FROM cg_pricing p WHERE p.model = c.model) FROM cg_calls c GROUP BY model ORDER BY model;
DROP TABLE cg_calls;
DROP TABLE cg_pricing;
