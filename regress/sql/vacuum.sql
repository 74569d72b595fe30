-- VACUUM compacts, merges manifests, expires snapshots and removes orphan
-- files now (docs/upkeep.md); what a client sees is PostgreSQL's: the
-- tag, the refusal inside a transaction block (25001), an unknown table
-- (42P01), views skipped with a warning, options accepted. The rows stay.
CREATE TABLE vt (id int, v text);
INSERT INTO vt VALUES (3, 'c');
CHECKPOINT;
INSERT INTO vt VALUES (1, 'a'), (2, 'b');
CHECKPOINT;
INSERT INTO vt VALUES (4, 'd');
CREATE VIEW vv AS SELECT * FROM vt;
VACUUM vt;
VACUUM;
VACUUM vt, vv;
VACUUM (FULL, ANALYZE, VERBOSE false) vt;
VACUUM FULL vt;
VACUUM ANALYZE vt;
VACUUM nope;
VACUUM vt; SELECT 1;
BEGIN;
VACUUM vt;
ROLLBACK;
ANALYZE vt;
ANALYZE vv;
BEGIN;
ANALYZE vt;
ANALYZE nope;
ROLLBACK;
SELECT id, v FROM vt ORDER BY id;
