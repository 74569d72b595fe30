package plan

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
)

func TestGroupingSets(t *testing.T) {
	cases := []struct {
		groupBy string
		want    string // sets separated by |, keys by ,
	}{
		{"a, b", "a,b"},
		{"()", ""},
		{"ROLLUP(a, b)", "a,b|a|"},
		{"ROLLUP((a, b), c)", "a,b,c|a,b|"},
		{"CUBE(a, b)", "a,b|a|b|"},
		{"a, ROLLUP(b)", "a,b|a"},
		{"GROUPING SETS ((a), (b, c), ())", "a|b,c|"},
		{"GROUPING SETS (a, ROLLUP(b, c))", "a|b,c|b|"},
		{"ROLLUP(a), CUBE(b)", "a,b|a|b|"},
	}
	for _, c := range cases {
		tree, err := pg.Parse("SELECT 1 FROM t GROUP BY " + c.groupBy)
		if err != nil {
			t.Fatal(err)
		}
		sel := tree.Stmts[0].Stmt.GetSelectStmt()
		sets, err := groupingSets(sel.GroupClause)
		if err != nil {
			t.Fatalf("%s: %v", c.groupBy, err)
		}
		var parts []string
		for _, s := range sets {
			var names []string
			for _, n := range s {
				names = append(names, n.GetColumnRef().Fields[0].GetString_().Sval)
			}
			parts = append(parts, strings.Join(names, ","))
		}
		if got := strings.Join(parts, "|"); got != c.want {
			t.Errorf("GROUP BY %s: sets %q, want %q", c.groupBy, got, c.want)
		}
	}
}
