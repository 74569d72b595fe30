package exec_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// plain hides an operator's NextSel: its consumer reads compacted batches,
// as every consumer did before selections.
type plain struct{ exec.Operator }

var selTypes = []types.T{types.TInt8, types.TText, types.TFloat8}

// selSource is n rows (a int8, t text, f float8), a tenth NULL, in
// batches of size rows.
func selSource(n, size int) exec.Operator {
	rng := rand.New(rand.NewSource(int64(n*31 + size)))
	var recs []arrow.RecordBatch
	for start := 0; start < n; start += size {
		m := min(size, n-start)
		blds := make([]*expr.Builder, len(selTypes))
		for i, t := range selTypes {
			blds[i] = expr.NewBuilder(t, m)
		}
		for r := 0; r < m; r++ {
			null := func() bool { return rng.Intn(10) == 0 }
			a := types.Int(types.TInt8, int64(rng.Intn(9)-4))
			if null() {
				a = types.NullOf(types.TInt8)
			}
			tx := types.TextDatum(fmt.Sprint("t", rng.Intn(4)))
			if null() {
				tx = types.NullOf(types.TText)
			}
			f := types.Float8Datum(float64(rng.Intn(100)) / 4)
			if null() {
				f = types.NullOf(types.TFloat8)
			}
			blds[0].Append(a)
			blds[1].Append(tx)
			blds[2].Append(f)
		}
		cols := make([]arrow.Array, len(blds))
		for i, b := range blds {
			cols[i] = b.Finish()
		}
		recs = append(recs, arrayRecord(cols, m))
	}
	return exec.NewBatches(selTypes, recs)
}

func arrayRecord(cols []arrow.Array, n int) arrow.RecordBatch {
	rec := array.NewRecordBatch(exec.Schema(selTypes), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func col(i int) expr.Expr  { return &expr.Col{Idx: i, T: selTypes[i]} }
func i8(v int64) expr.Expr { return &expr.Const{D: types.Int(types.TInt8, v)} }

// rowsOf runs op and returns its rows as sorted text.
func rowsOf(t *testing.T, op exec.Operator) []string {
	t.Helper()
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var out []string
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var parts []string
			for c, ty := range op.Types() {
				parts = append(parts, types.FormatText(types.DatumAt(ty, rec.Column(c), r), time.UTC))
			}
			out = append(out, strings.Join(parts, "|"))
		}
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// TestSelectionConsumers runs each consumer over a filter's selection and
// over the same filter's compacted batches: the answers must agree, for
// batches of 1, 7 and 1000 rows.
func TestSelectionConsumers(t *testing.T) {
	ec := &expr.Ctx{Loc: time.UTC}
	gt0 := &expr.Compare{Op: expr.GT, L: col(0), R: i8(0)}
	ne0 := &expr.Compare{Op: expr.NE, L: col(0), R: i8(0)}
	isT1 := &expr.Compare{Op: expr.EQ, L: col(1), R: &expr.Const{D: types.TextDatum("t1")}}
	filter := func(in exec.Operator, p expr.Expr, hide bool) exec.Operator {
		f := exec.NewFilter(in, p, ec)
		if hide {
			return plain{f}
		}
		return f
	}
	pipes := map[string]func(in exec.Operator, hide bool) exec.Operator{
		"project computed": func(in exec.Operator, hide bool) exec.Operator {
			// 10 / a over the rows a <> 0 keeps only: no division by zero.
			div := &expr.Arith{Op: expr.Div, L: i8(10), R: col(0), T: types.TInt8}
			return exec.NewProject(filter(in, ne0, hide), []expr.Expr{col(1), div}, ec)
		},
		"project columns": func(in exec.Operator, hide bool) exec.Operator {
			return exec.NewProject(filter(in, gt0, hide), []expr.Expr{col(2), col(0)}, ec)
		},
		"filter over filter": func(in exec.Operator, hide bool) exec.Operator {
			return filter(filter(in, gt0, hide), &expr.BoolOp{Or: true, Args: []expr.Expr{isT1, &expr.IsNull{Arg: col(2)}}}, hide)
		},
		"count(*)": func(in exec.Operator, hide bool) exec.Operator {
			return agg.NewHashAgg(filter(in, gt0, hide), nil, []agg.Agg{{Fn: agg.CountStar, T: types.TInt8}}, ec)
		},
		"group by": func(in exec.Operator, hide bool) exec.Operator {
			return agg.NewHashAgg(filter(in, isT1, hide), []expr.Expr{col(0)},
				[]agg.Agg{{Fn: agg.CountStar, T: types.TInt8}, {Fn: agg.Sum, Arg: col(0), T: types.TNumeric}}, ec)
		},
		"limit": func(in exec.Operator, hide bool) exec.Operator {
			return exec.NewLimit(filter(in, gt0, hide), 9, 5)
		},
		"inner join": func(in exec.Operator, hide bool) exec.Operator {
			return exec.NewHashJoin(exec.InnerJoin, filter(in, gt0, hide), selSource(50, 50), []expr.Expr{col(1)}, []expr.Expr{col(1)}, nil, ec)
		},
		"left join": func(in exec.Operator, hide bool) exec.Operator {
			right := exec.NewFilter(selSource(40, 40), isT1, ec)
			return exec.NewHashJoin(exec.LeftJoin, filter(in, ne0, hide), right, []expr.Expr{col(0)}, []expr.Expr{col(0)}, nil, ec)
		},
	}
	for name, pipe := range pipes {
		for _, size := range []int{1, 7, 1000} {
			got := rowsOf(t, pipe(selSource(3000, size), false))
			want := rowsOf(t, pipe(selSource(3000, size), true))
			if !slices.Equal(got, want) {
				t.Errorf("%s, batches of %d: %d rows with selections, %d compacted", name, size, len(got), len(want))
			}
			if len(want) == 0 {
				t.Errorf("%s: no rows: the test tests nothing", name)
			}
		}
	}
}
