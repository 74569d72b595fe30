package engine

import (
	"slices"
	"testing"
)

func TestSplitDumpClauses(t *testing.T) {
	for _, c := range []struct {
		comment, rest string
		clauses       []string
	}{
		{"plain comment", "plain comment", nil},
		{"hello\n\nLoam: SET PARTITIONED BY (day(ts))\nLoam: SET (retention = '1 day' ON ts)", "hello",
			[]string{"SET PARTITIONED BY (day(ts))", "SET (retention = '1 day' ON ts)"}},
		{"Loam: SET SORTED BY (a)", "", []string{"SET SORTED BY (a)"}},
		// Only the trailing lines are clauses.
		{"Loam: SET SORTED BY (a)\nnot a clause", "Loam: SET SORTED BY (a)\nnot a clause", nil},
	} {
		rest, clauses := splitDumpClauses(c.comment)
		if rest != c.rest || !slices.Equal(clauses, c.clauses) {
			t.Errorf("splitDumpClauses(%q) = %q, %q; want %q, %q", c.comment, rest, clauses, c.rest, c.clauses)
		}
	}
}
