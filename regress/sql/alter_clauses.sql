-- psql's \d follows ALTER TABLE at once: columns added, dropped, renamed
-- and widened, NOT NULL and defaults, and Loam's SET PARTITIONED BY /
-- SET SORTED BY (new data takes the new spec and order; old files keep
-- theirs), and ROLLBACK puts it all back.
CREATE TABLE calls (ts timestamptz NOT NULL, tenant text, tokens int, cost real)
  PARTITIONED BY (day(ts)) SORTED BY (tenant) WITH (retention = '100 years' ON ts);
INSERT INTO calls VALUES ('2026-01-01 10:00+00', 'acme', 10, 0.5);
CHECKPOINT;
ALTER TABLE calls ADD COLUMN model text NOT NULL DEFAULT 'gpt', ALTER COLUMN tokens TYPE bigint,
  ALTER COLUMN cost TYPE double precision, DROP COLUMN IF EXISTS nosuch;
ALTER TABLE calls RENAME COLUMN ts TO at;
ALTER TABLE calls SET PARTITIONED BY (month(at), bucket(4, tenant)), SET SORTED BY (model, at DESC);
\d calls
SELECT * FROM calls;
BEGIN;
ALTER TABLE calls SET SORTED BY ();
ALTER TABLE calls SET PARTITIONED BY ();
ALTER TABLE calls DROP COLUMN cost;
\d calls
ROLLBACK;
\d calls
ALTER TABLE calls RENAME TO llm_calls;
\d llm_calls
ALTER TABLE calls ADD COLUMN x int;
ALTER TABLE llm_calls DROP COLUMN at;
ALTER TABLE llm_calls SET SORTED BY (nosuch);
