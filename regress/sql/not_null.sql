-- A NOT NULL violation names the column and shows the failing row, each
-- value cut at 64 bytes, as PostgreSQL does; nothing of the statement is
-- written.
SET TIME ZONE 'UTC';
CREATE TABLE nn (a int NOT NULL, b text, c timestamptz, d text);
INSERT INTO nn VALUES (1, 'x', '2026-01-01 09:00+00', 'y'), (NULL, 'abc', '2026-01-01 10:00+00', repeat('é', 40));
INSERT INTO nn (b) VALUES ('no a');
SELECT count(*) FROM nn;
INSERT INTO nn SELECT NULLIF(g, 3), g::text, NULL, NULL FROM generate_series(1, 5) g;
SELECT count(*) FROM nn;

-- COPY reports the failing row as INSERT does, defaults filled in, after
-- the whole row is parsed.
CREATE TABLE nn_copy (id int NOT NULL, note text DEFAULT 'dflt', ts timestamptz);
SET TimeZone = 'UTC';
COPY nn_copy (id, ts) FROM STDIN;
1	2026-01-02 03:04:05+00
\N	2026-01-02 03:04:05+02
\.
COPY nn_copy FROM STDIN (FORMAT csv);
,"x",
\.
SELECT count(*) FROM nn_copy;
