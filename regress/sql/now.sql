-- now() is the start of the transaction, as in PostgreSQL: the same for
-- every statement of a block and of one Query's implicit transaction;
-- statement_timestamp() moves on.
CREATE TABLE nowt (k text, t timestamptz);
BEGIN;
SELECT now() AS t0 \gset
SELECT pg_sleep(0.02);
SELECT now() = :'t0'::timestamptz AS same_in_block, statement_timestamp() > now() AS stmt_later;
INSERT INTO nowt VALUES ('block', now());
COMMIT;
SELECT now() > :'t0'::timestamptz AS later_after_commit;
SELECT count(*) FROM nowt WHERE k = 'block' AND t = :'t0'::timestamptz;
INSERT INTO nowt VALUES ('implicit', now()) \; SELECT pg_sleep(0.02) \; INSERT INTO nowt VALUES ('implicit', now());
SELECT count(DISTINCT t) FROM nowt WHERE k = 'implicit';
INSERT INTO nowt VALUES ('separate', now());
SELECT pg_sleep(0.02);
INSERT INTO nowt VALUES ('separate', now());
SELECT count(DISTINCT t) FROM nowt WHERE k = 'separate';
