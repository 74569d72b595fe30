package plan

import (
	"fmt"
	"testing"
)

func TestDependentCols(t *testing.T) {
	// Two base tables: u (rel 1, key id) and p (rel 2, key a, b), and a
	// derived table's column (rel 0).
	cols := []scopeCol{
		{table: "u", name: "id", rel: 1, key: true}, // 0
		{table: "u", name: "name", rel: 1},          // 1
		{table: "p", name: "a", rel: 2, key: true},  // 2
		{table: "p", name: "b", rel: 2, key: true},  // 3
		{table: "p", name: "note", rel: 2},          // 4
		{table: "s", name: "x"},                     // 5
	}
	cases := []struct {
		name    string
		grouped []int   // per column, its GROUP BY key or -1
		sets    [][]int // keys of each grouping set
		want    string  // the dependent columns
	}{
		{"u's key", []int{0, -1, -1, -1, -1, -1}, [][]int{{0}}, "[1]"},
		{"part of p's key", []int{-1, -1, 0, -1, -1, -1}, [][]int{{0}}, "[]"},
		{"all of p's key", []int{-1, -1, 0, 1, -1, -1}, [][]int{{0, 1}}, "[4]"},
		{"both keys", []int{0, -1, 1, 2, -1, -1}, [][]int{{0, 1, 2}}, "[1 4]"},
		{"a derived table's column is never dependent", []int{0, -1, -1, -1, -1, 1}, [][]int{{0, 1}}, "[1]"},
		{"the key in every grouping set", []int{0, -1, -1, -1, -1, 1}, [][]int{{0, 1}, {0}}, "[1]"},
		{"the key in some grouping sets only", []int{0, -1, -1, -1, -1, -1}, [][]int{{0}, {}}, "[]"},
	}
	for _, c := range cases {
		dep := dependentCols(newScope(cols), c.grouped, c.sets)
		got := []int{}
		for i, d := range dep {
			if d {
				got = append(got, i)
			}
		}
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("%s: got %s, want %s", c.name, s, c.want)
		}
	}
}
