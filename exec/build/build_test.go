package build

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
)

func ints(vs ...int64) *physical.Values {
	rows := make([][]expr.Expr, len(vs))
	for i, v := range vs {
		rows[i] = []expr.Expr{&expr.Const{D: types.Int(types.TInt8, v)}}
	}
	return &physical.Values{Rows: rows, ColumnTypes: []types.T{types.TInt8}}
}

var col0 = &expr.Col{Idx: 0, T: types.TInt8}

func env() Env { return Env{Ec: &expr.Ctx{Loc: time.UTC, Now: time.Unix(0, 0)}} }

// drain runs op and returns its first column.
func drain(t *testing.T, op exec.Operator) []int64 {
	t.Helper()
	ctx := context.Background()
	defer op.Close()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var out []int64
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			return out
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, types.DatumAt(types.TInt8, rec.Column(0), i).I)
		}
		rec.Release()
	}
}

func TestBuild(t *testing.T) {
	gt := func(n int64) expr.Expr {
		return &expr.Compare{Op: expr.GT, L: col0, R: &expr.Const{D: types.Int(types.TInt8, n)}}
	}
	for _, tc := range []struct {
		name string
		plan physical.Node
		want []int64
	}{
		{"values", ints(3, 1, 2), []int64{3, 1, 2}},
		{"filter", &physical.Filter{In: ints(3, 1, 2), Pred: gt(1)}, []int64{3, 2}},
		{"sort limit", &physical.Limit{In: &physical.Sort{In: ints(3, 1, 2), Keys: []exec.SortKey{{Expr: col0}}}, Limit: 2, Offset: 0}, []int64{1, 2}},
		{"top-n", &physical.Sort{In: ints(3, 1, 2), Keys: []exec.SortKey{{Expr: col0, Desc: true}}, TopN: 1}, []int64{3}},
		{"distinct", &physical.Sort{In: &physical.HashAgg{In: ints(2, 1, 2), GroupBy: []expr.Expr{col0}}, Keys: []exec.SortKey{{Expr: col0}}}, []int64{1, 2}},
		{"union all", &physical.UnionAll{Inputs: []physical.Node{ints(1), ints(2)}, ColumnTypes: []types.T{types.TInt8}}, []int64{1, 2}},
		{"hash join", &physical.Project{In: &physical.HashJoin{Left: ints(1, 2, 3), Right: ints(3, 2), LeftKeys: []expr.Expr{col0}, RightKeys: []expr.Expr{col0}}, Exprs: []expr.Expr{col0}}, nil},
	} {
		op, err := Build(context.Background(), tc.plan, env())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := drain(t, op)
		if tc.name == "hash join" {
			if len(got) != 2 {
				t.Errorf("%s: %v, want 2 rows", tc.name, got)
			}
			continue
		}
		if !equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSpoolBuiltOnce checks that plans reading one spool share its
// input: the rows are produced once.
func TestSpoolBuiltOnce(t *testing.T) {
	gens := 0
	src := &physical.RowSource{ColumnTypes: []types.T{types.TInt8}, Gen: func(context.Context) ([][]types.Datum, error) {
		gens++
		return [][]types.Datum{{types.Int(types.TInt8, 7)}}, nil
	}}
	spool := physical.NewSpool(src)
	ops, err := BuildAll(context.Background(), env(), spool.Reader(), spool.Reader())
	if err != nil {
		t.Fatal(err)
	}
	a, b := drain(t, ops[0]), drain(t, ops[1])
	if !equal(a, []int64{7}) || !equal(b, []int64{7}) || gens != 1 {
		t.Errorf("readers %v and %v, rows made %d times; want [7], [7], once", a, b, gens)
	}
}

// TestAnalyze checks that EXPLAIN ANALYZE's counts come from the
// operators the builder instrumented, under the plan's own nodes.
func TestAnalyze(t *testing.T) {
	plan := &physical.Filter{In: ints(3, 1, 2), Pred: &expr.Compare{Op: expr.GT, L: col0, R: &expr.Const{D: types.Int(types.TInt8, 1)}}}
	op, an, err := Instrumented(context.Background(), plan, env())
	if err != nil {
		t.Fatal(err)
	}
	drain(t, op)
	text := strings.Join(Render(context.Background(), plan, an, env().Ec), "\n")
	for _, w := range []string{
		`(?m)^Filter  \(actual time=\S+ rows=2 batches=1 loops=1\)$`,
		`(?m)^  Filter: \(#0 > '1'::bigint\)$`,
		`(?m)^  ->  Values Scan \(3 rows\)  \(actual time=\S+ rows=3 batches=1 loops=1\)$`,
	} {
		if !regexp.MustCompile(w).MatchString(text) {
			t.Errorf("no line matches %q in\n%s", w, text)
		}
	}
	if plain := strings.Join(Render(context.Background(), plan, nil, env().Ec), "\n"); strings.Contains(plain, "actual") {
		t.Errorf("plain EXPLAIN shows counts:\n%s", plain)
	}
}

// TestUnknownNode: a node the builder has no operator for is an error,
// not a panic.
func TestUnknownNode(t *testing.T) {
	if _, err := Build(context.Background(), unknown{}, env()); err == nil {
		t.Error("built a node with no operator")
	}
}

type unknown struct{}

func (unknown) Types() []types.T            { return nil }
func (unknown) Children() []physical.Node   { return nil }
func (unknown) Explain() physical.Explained { return physical.Explained{Name: "?"} }
