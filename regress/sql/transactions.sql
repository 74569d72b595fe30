-- Writes in a transaction block commit at COMMIT and vanish at ROLLBACK;
-- the block reads its own writes.
CREATE TABLE tx_t (id int, v text);
BEGIN;
INSERT INTO tx_t VALUES (1, 'rolled back');
SELECT count(*) FROM tx_t;
ROLLBACK;
SELECT count(*) FROM tx_t;
BEGIN;
INSERT INTO tx_t VALUES (2, 'committed');
SAVEPOINT s1;
INSERT INTO tx_t VALUES (3, 'rolled back to s1');
SELECT id, v FROM tx_t ORDER BY id;
ROLLBACK TO SAVEPOINT s1;
INSERT INTO tx_t VALUES (4, 'after s1');
COMMIT;
SELECT id, v FROM tx_t ORDER BY id;
-- A failed block commits nothing, and COMMIT says ROLLBACK.
BEGIN;
INSERT INTO tx_t VALUES (5, 'failed block');
SELECT 1/0;
SELECT 1;
COMMIT;
SELECT count(*) FROM tx_t WHERE id = 5;
-- The statements of one Query message form an implicit transaction: an
-- error in the last undoes the first.
INSERT INTO tx_t VALUES (6, 'implicit') \; SELECT 1/0;
SELECT count(*) FROM tx_t WHERE id = 6;
INSERT INTO tx_t VALUES (7, 'implicit ok') \; SELECT count(*) FROM tx_t WHERE id = 7;
SELECT count(*) FROM tx_t WHERE id = 7;
-- COPY inside a rolled-back block.
BEGIN;
COPY tx_t FROM STDIN;
8	copied
\.
SELECT count(*) FROM tx_t WHERE id = 8;
ROLLBACK;
SELECT count(*) FROM tx_t WHERE id = 8;
-- CREATE TABLE is transactional too.
BEGIN;
CREATE TABLE tx_new (a int);
INSERT INTO tx_new VALUES (1);
SELECT count(*) FROM tx_new;
ROLLBACK;
SELECT count(*) FROM tx_new;
CREATE TABLE tx_imp (a int) \; SELECT 1/0;
SELECT count(*) FROM tx_imp;
BEGIN;
CREATE TABLE tx_kept (a int);
COMMIT;
SELECT count(*) FROM tx_kept;
