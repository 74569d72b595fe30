package parse

import (
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

func TestTimeTravelClauses(t *testing.T) {
	type want struct {
		table    string // the text the table name starts with (first occurrence after FROM/JOIN)
		n        int    // which occurrence
		kind     AsOfKind
		snapshot int64
		ref      string
		expr     string // the expression's text, "" for none
	}
	tests := []struct {
		q     string
		wants []want
	}{
		{`SELECT * FROM t FOR VERSION AS OF 123`, []want{{table: "t FOR", kind: AsOfVersion, snapshot: 123}}},
		{`SELECT * FROM t FOR VERSION AS OF 9223372036854775807 x WHERE x.a > 1`, []want{{table: "t FOR", kind: AsOfVersion, snapshot: 9223372036854775807}}},
		{`SELECT * FROM s.t FOR VERSION AS OF 'b1'`, []want{{table: "s.t", kind: AsOfVersion, ref: "b1"}}},
		{`SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2024-01-01 00:00:00+00' AS old`, []want{{table: "t FOR", kind: AsOfTimestamp, expr: "TIMESTAMP"}}},
		{`SELECT * FROM t FOR TIMESTAMP AS OF now() - interval '1 hour' h JOIN u ON true`, []want{{table: "t FOR", kind: AsOfTimestamp, expr: "now()"}}},
		{`SELECT * FROM t FOR VERSION AS OF 1 a JOIN t FOR VERSION AS OF 2 b ON a.id = b.id`, []want{
			{table: "t FOR", kind: AsOfVersion, snapshot: 1}, {table: "t FOR", n: 1, kind: AsOfVersion, snapshot: 2}}},
		{`WITH c AS (SELECT * FROM t FOR VERSION AS OF 5) SELECT * FROM (SELECT * FROM c, t FOR TIMESTAMP AS OF '2024-01-01'::timestamptz) q`, []want{
			{table: "t FOR", kind: AsOfVersion, snapshot: 5}, {table: "t FOR", n: 1, kind: AsOfTimestamp, expr: "'2024"}}},
		{`SELECT * FROM t FOR UPDATE`, nil},
		{`SELECT * FROM t FOR SHARE OF t`, nil},
	}
	for _, tc := range tests {
		stmts, err := Parse(tc.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.q, err)
			continue
		}
		if len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil {
			t.Errorf("Parse(%q): not one SELECT", tc.q)
		}
		got := TimeTravel(tc.q)
		if len(got) != len(tc.wants) {
			t.Errorf("TimeTravel(%q): %d clauses, want %d", tc.q, len(got), len(tc.wants))
			continue
		}
		for _, w := range tc.wants {
			off := strings.Index(tc.q, " "+w.table) + 1
			for n := w.n; n > 0; n-- {
				off += strings.Index(tc.q[off+1:], " "+w.table) + 2
			}
			a, ok := got[off]
			if !ok {
				t.Errorf("TimeTravel(%q): nothing at %d (%q)", tc.q, off, tc.q[off:])
				continue
			}
			if a.Kind != w.kind || a.Snapshot != w.snapshot || a.Ref != w.ref {
				t.Errorf("TimeTravel(%q) at %d = %+v, want %+v", tc.q, off, a, w)
			}
			if (w.expr != "") != (a.Expr != nil) {
				t.Errorf("TimeTravel(%q): expression %v", tc.q, a.Expr)
			}
		}
	}
}

// The clause leaves an alias after it to the table; the parse keeps it.
func TestTimeTravelAlias(t *testing.T) {
	q := `SELECT h.a FROM t FOR TIMESTAMP AS OF now() - interval '1' hour h`
	stmts, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	rv := stmts[0].Node.GetSelectStmt().FromClause[0].GetRangeVar()
	if rv == nil || rv.Relname != "t" || rv.Alias == nil || rv.Alias.Aliasname != "h" {
		t.Fatalf("FROM item = %v, want t aliased h", stmts[0].Node.GetSelectStmt().FromClause[0])
	}
	if int(rv.Location) != strings.Index(q, "t FOR") {
		t.Errorf("RangeVar location %d, want %d", rv.Location, strings.Index(q, "t FOR"))
	}
}

func TestTimeTravelErrors(t *testing.T) {
	tests := []struct {
		q, code, at string
	}{
		{`SELECT * FROM t FOR VERSION AS OF`, pgerr.SyntaxError, "FOR"},
		{`SELECT * FROM t FOR VERSION AS OF x`, pgerr.SyntaxError, "x"},
		{`SELECT * FROM t a FOR VERSION AS OF 1`, pgerr.SyntaxError, "FOR"},
		{`SELECT 1 FOR TIMESTAMP AS OF now()`, pgerr.SyntaxError, "FOR"},
		{`SELECT a, b FOR VERSION AS OF 1 FROM t`, pgerr.SyntaxError, "FOR"},
		{`SELECT * FROM t FOR TIMESTAMP AS OF WHERE`, pgerr.SyntaxError, "WHERE"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.q)
		pe := pgerr.From(err)
		if err == nil || pe.Code != tc.code {
			t.Errorf("Parse(%q) = %v, want %s", tc.q, err, tc.code)
			continue
		}
		if want := pos(t, tc.q, tc.at, strings.Count(tc.q, tc.at)-1); pe.Position != want && tc.at != "FOR" {
			t.Errorf("Parse(%q): position %d, want %d", tc.q, pe.Position, want)
		}
	}
}

func TestRefStmts(t *testing.T) {
	v := int64(42)
	tests := []struct {
		q    string
		want RefStmt
	}{
		{`ALTER TABLE t CREATE BRANCH b`, RefStmt{Create: true, Name: "b"}},
		{`ALTER TABLE IF EXISTS s.t CREATE TAG IF NOT EXISTS "V1" AS OF VERSION 42 RETAIN 7 DAYS`,
			RefStmt{MissingTableOk: true, Create: true, Tag: true, Name: "V1", IfNotExists: true, Version: &v, RetainDays: 7}},
		{`alter table t drop branch if exists b`, RefStmt{Name: "b", IfExists: true}},
		{`ALTER TABLE t DROP TAG v1`, RefStmt{Tag: true, Name: "v1"}},
	}
	for _, tc := range tests {
		stmts, err := Parse("SELECT 1; " + tc.q + "; SELECT 2")
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.q, err)
			continue
		}
		if len(stmts) != 3 || stmts[1].Ref == nil || stmts[1].Node.GetAlterTableStmt() == nil || stmts[1].Text != tc.q {
			t.Errorf("Parse(%q): statements %v", tc.q, stmts)
			continue
		}
		got := *stmts[1].Ref
		if got.Relation.Relname != "t" {
			t.Errorf("Parse(%q): table %v", tc.q, got.Relation)
		}
		if (got.Version == nil) != (tc.want.Version == nil) || (got.Version != nil && *got.Version != *tc.want.Version) {
			t.Errorf("Parse(%q): version %v", tc.q, got.Version)
		}
		got.Relation, got.Version, got.NamePos, got.start, got.end = nil, tc.want.Version, 0, 0, 0
		if got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.q, got, tc.want)
		}
	}
	for _, q := range []string{`ALTER TABLE t CREATE BRANCH`, `ALTER TABLE t CREATE BRANCH b RETAIN 0 DAYS`, `ALTER TABLE t DROP TAG v AS OF VERSION 1`} {
		if _, err := Parse(q); err == nil {
			t.Errorf("Parse(%q): no error", q)
		}
	}
	// Other ALTER TABLEs are PostgreSQL's.
	stmts, err := Parse(`ALTER TABLE t ALTER COLUMN a SET DEFAULT 1`)
	if err != nil || stmts[0].Ref != nil {
		t.Errorf("plain ALTER TABLE: %v %v", stmts, err)
	}
}
