package parse

import (
	"strings"
	"testing"
)

func TestStmtName(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"CREATE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", "CREATE FUNCTION"},
		{"CREATE MATERIALIZED VIEW mv AS SELECT 1", "CREATE MATERIALIZED VIEW"},
		{"CREATE TABLE t2 AS SELECT 1", "CREATE TABLE AS"},
		{"DROP MATERIALIZED VIEW mv", "DROP MATERIALIZED VIEW"},
		{"DROP FOREIGN TABLE ft", "DROP FOREIGN TABLE"},
		{"ALTER MATERIALIZED VIEW mv RENAME TO x", "ALTER MATERIALIZED VIEW RENAME"},
		{"CREATE TYPE mood AS ENUM ('a')", "CREATE TYPE"},
		{"CREATE AGGREGATE a (int) (sfunc = f, stype = int)", "CREATE AGGREGATE"},
		{"VACUUM", "VACUUM"},
		{"ANALYZE t", "ANALYZE"},
		{"LISTEN x", "LISTEN"},
		{"DO $$ BEGIN END $$", "DO"},
		{"MERGE INTO g USING h ON true WHEN MATCHED THEN DELETE", "MERGE"},
		{"CREATE TEMP TABLE tt(a int)", "CREATE TEMPORARY TABLE"},
		{"TRUNCATE t", "TRUNCATE"},
		{"GRANT SELECT ON t TO public", "GRANT"},
		{"COMMENT ON FUNCTION f() IS 'x'", "COMMENT ON FUNCTION"},
	} {
		stmts, err := Parse(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := StmtName(stmts[0].Node); got != tc.want {
			t.Errorf("StmtName(%s) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

func TestExprName(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT ROW(1, 2)", "ROW expression"},
		{"SELECT (1, 2)", "ROW expression"},
		{"SELECT xmlelement(name foo)", "XMLELEMENT"},
		{"SELECT xmlconcat('<a/>', '<b/>')", "XMLCONCAT"},
		{"SELECT '<a/>' IS DOCUMENT", "IS DOCUMENT"},
		{"SELECT xmlserialize(content '<a/>' AS text)", "XMLSERIALIZE"},
		{"SELECT 'a' COLLATE \"C\"", "COLLATE"},
		{"SELECT EXISTS (SELECT 1)", "EXISTS subquery"},
	} {
		stmts, err := Parse(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		target := stmts[0].Node.GetSelectStmt().TargetList[0].GetResTarget().Val
		if got := ExprName(target); got != tc.want {
			t.Errorf("ExprName(%s) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// No name shows the parser's Go types or enum spellings.
func TestNamesAreSQL(t *testing.T) {
	for _, n := range stmtNames {
		if strings.Contains(n, "Stmt") || strings.Contains(n, "_") {
			t.Errorf("statement name %q is not SQL", n)
		}
	}
	for _, n := range alterTableActions {
		if strings.Contains(n, "AT_") || strings.Contains(n, "_") {
			t.Errorf("ALTER TABLE action name %q is not SQL", n)
		}
	}
	for _, n := range exprNames {
		if strings.Contains(n, "Expr") || strings.Contains(n, "_") && !strings.HasPrefix(n, "JSON_") {
			t.Errorf("expression name %q is not SQL", n)
		}
	}
}
