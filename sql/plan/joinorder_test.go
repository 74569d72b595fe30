package plan

import (
	"testing"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// hashed reports whether item's rows are on the hashed (right) side of
// a join of t.
func hashed(t *joinTree, item int) bool {
	if t == nil || t.item >= 0 {
		return false
	}
	return t.right.set&(1<<item) != 0 || hashed(t.left, item)
}

func TestOrderJoins(t *testing.T) {
	edge := func(a, b int, sel float64) joinEdge { return joinEdge{a: a, b: b, sel: sel} }
	tests := []struct {
		name      string
		rows      []float64
		edges     []joinEdge
		neverHash []int // items that must not be hashed at any join
		firstPair [2]int
	}{
		{
			// TPC-H q5's shape: lineitem, orders, customer, supplier,
			// nation, region; region filtered to one row.
			name:      "star",
			rows:      []float64{6e6, 2.3e5, 1.5e5, 1e4, 25, 1},
			edges:     []joinEdge{edge(0, 1, 1/1.5e6), edge(1, 2, 1/1.5e5), edge(0, 3, 1/1e4), edge(3, 4, 1.0/25), edge(2, 4, 1.0/25), edge(4, 5, 1.0/5)},
			neverHash: []int{0},
		},
		{
			name:      "chain",
			rows:      []float64{1e6, 1e3, 10},
			edges:     []joinEdge{edge(0, 1, 1e-3), edge(1, 2, 0.1)},
			neverHash: []int{0},
		},
		{
			name:      "fact last in FROM",
			rows:      []float64{25, 1e4, 6e6},
			edges:     []joinEdge{edge(0, 1, 1.0/25), edge(1, 2, 1e-4)},
			neverHash: []int{2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := orderJoins(tc.rows, tc.edges)
			if tree == nil {
				t.Fatal("no plan")
			}
			if want := uint32(1)<<len(tc.rows) - 1; tree.set != want {
				t.Fatalf("plan covers %b, want %b", tree.set, want)
			}
			for _, it := range tc.neverHash {
				if hashed(tree, it) {
					t.Errorf("item %d (%g rows) is hashed: %s", it, tc.rows[it], treeString(tree))
				}
			}
			checkConnected(t, tree, tc.edges)
		})
	}
}

// checkConnected fails when a join of tree has no edge between its sides
// although the items are connected.
func checkConnected(t *testing.T, tree *joinTree, edges []joinEdge) {
	if tree.item >= 0 {
		return
	}
	o := &joinOrderer{edges: edges}
	if !o.connected(tree.left.set, tree.right.set) {
		t.Errorf("a cross product in %s", treeString(tree))
	}
	checkConnected(t, tree.left, edges)
	checkConnected(t, tree.right, edges)
}

func treeString(t *joinTree) string {
	if t.item >= 0 {
		return string(rune('A' + t.item))
	}
	return "(" + treeString(t.left) + " ⋈ " + treeString(t.right) + ")"
}

func TestOrderJoinsCrossAndLimit(t *testing.T) {
	tree := orderJoins([]float64{10, 20, 30}, []joinEdge{{a: 0, b: 1, sel: 0.1}})
	if tree == nil || tree.set != 7 {
		t.Fatalf("a FROM list with an unconnected item must still be planned, got %v", tree)
	}
	if orderJoins(make([]float64, maxOrderedItems+1), nil) != nil {
		t.Fatal("beyond maxOrderedItems the greedy fallback plans")
	}
}

func TestEstimateSel(t *testing.T) {
	col := &expr.Col{Idx: 0, T: types.TInt8}
	c := &expr.Const{D: types.Datum{T: types.TInt8, I: 1}}
	eq := &expr.Compare{Op: expr.EQ, L: col, R: c}
	lt := &expr.Compare{Op: expr.LT, L: col, R: c}
	known := func(int) float64 { return 50 }
	tests := []struct {
		name string
		e    expr.Expr
		ndv  func(int) float64
		want float64
	}{
		{"eq known ndv", eq, known, 1.0 / 50},
		{"eq unknown", eq, nil, 0.005},
		{"range", lt, nil, 1.0 / 3},
		{"and", &expr.BoolOp{Args: []expr.Expr{eq, lt}}, known, 1.0 / 50 / 3},
		{"or", &expr.BoolOp{Or: true, Args: []expr.Expr{eq, eq}}, known, 1.0/50 + 1.0/50 - 1.0/2500},
		{"not", &expr.Not{Arg: eq}, known, 1 - 1.0/50},
	}
	for _, tc := range tests {
		if got := estimateSel(tc.e, tc.ndv); got < tc.want*0.999 || got > tc.want*1.001 {
			t.Errorf("%s: %g, want %g", tc.name, got, tc.want)
		}
	}
}
