package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// TestUnsupportedNamesSQL: what Loam does not support is refused with
// 0A000 and a message naming the construct as the user wrote it, never
// the parser's Go types (*pg_query.Node_RowExpr, CreateFunctionStmt) or
// enum spellings (MATVIEW, CONSTR_FOREIGN).
func TestUnsupportedNamesSQL(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE g (k text, v int)")
	for _, c := range []struct{ sql, want string }{
		{"CREATE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", "CREATE FUNCTION f() is not supported"},
		{"CREATE MATERIALIZED VIEW mv AS SELECT 1", "CREATE MATERIALIZED VIEW is not supported"},
		{"DROP MATERIALIZED VIEW mv", "DROP MATERIALIZED VIEW is not supported"},
		{"CREATE TYPE mood AS ENUM ('a')", "CREATE TYPE mood is not supported"},
		{"LISTEN x", "LISTEN is not supported"},
		{"CREATE TABLE c (a int GENERATED ALWAYS AS (1) STORED)", "column constraint GENERATED ALWAYS AS is not supported"},
		{"SELECT xmlelement(name foo)", "XMLELEMENT is not supported"},
		{"SELECT xmlserialize(content 'x' AS text)", "XMLSERIALIZE is not supported"},
		{"SELECT DEFAULT", "DEFAULT is not supported"},
		{"SELECT * FROM g TABLESAMPLE SYSTEM (10)", "TABLESAMPLE is not supported"},
		{"SELECT * FROM ROWS FROM (generate_series(1, 2), generate_series(1, 3))", "ROWS FROM is not supported"},
		{"ALTER TABLE g ADD CONSTRAINT u EXCLUDE (v WITH =)", "constraint EXCLUDE is not supported"},
		{"CREATE TRIGGER tr BEFORE INSERT ON g FOR EACH ROW EXECUTE FUNCTION f()", "CREATE TRIGGER tr ON g is not supported"},
	} {
		_, err := runSQL(context.Background(), s, c.sql)
		if err == nil {
			t.Errorf("%s: no error; this test lists unsupported statements, drop it from the list once supported", c.sql)
			continue
		}
		if pgerr.Code(err) != pgerr.FeatureNotSupported || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (SQLSTATE %s), want 0A000 %q", c.sql, err, pgerr.Code(err), c.want)
		}
		for _, internal := range []string{"pg_query", "Stmt", "Node_", "MATVIEW", "CONSTR_", "OBJECT_"} {
			if strings.Contains(err.Error(), internal) {
				t.Errorf("%s: message %q names the parser's %s", c.sql, err, internal)
			}
		}
		runSQL(context.Background(), s, "ROLLBACK")
	}
}
