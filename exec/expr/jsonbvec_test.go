package expr

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// randJSON makes a document from a small alphabet of keys and values, so
// that lookups, containment and comparisons often find something.
func randJSON(r *rand.Rand, depth int) string {
	scalars := []string{`null`, `true`, `false`, `0`, `1`, `1.0`, `-2.50`, `1e2`, `"a"`, `"b"`, `"x\ny"`, `""`, `"é"`}
	switch k := r.Intn(6); {
	case depth > 3 || k < 3:
		return scalars[r.Intn(len(scalars))]
	case k == 3:
		parts := make([]string, r.Intn(4))
		for i := range parts {
			parts[i] = randJSON(r, depth+1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	keys := []string{"a", "b", "ab", "llm", "model_name", "", "a"}
	parts := make([]string, r.Intn(5))
	for i := range parts {
		parts[i] = fmt.Sprintf("%q: %s", keys[r.Intn(len(keys))], randJSON(r, depth+1))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// jsonbBatch is a one-column batch of random jsonb rows (some NULL),
// sliced so that the rows start past the buffer's first.
func jsonbBatch(t testing.TB, r *rand.Rand, n int) arrow.RecordBatch {
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < n+7; i++ {
		if r.Intn(10) == 0 {
			bld.AppendNull()
			continue
		}
		s, err := types.NormalizeJSONB(randJSON(r, 0))
		if err != nil {
			t.Fatal(err)
		}
		bld.Append(s)
	}
	whole := bld.NewArray()
	defer whole.Release()
	col := array.NewSlice(whole, 7, int64(n+7))
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "j", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{col}, int64(n))
}

// rowPath is e with every column path switched off: the text path the
// binary one must agree with.
func rowPath(e Expr) Expr {
	switch x := e.(type) {
	case *Func:
		y := *x
		y.Vec = nil
		return &y
	case *Compare:
		return &Func{Name: x.Op.String(), Args: []Expr{x.L, x.R}, T: types.TBool, Strict: true,
			Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				return types.BoolDatum(x.Op.holds(CompareJSONB(a[0].S, a[1].S))), nil
			}}
	}
	return e
}

func formatColumn(t types.T, a arrow.Array) []string {
	out := make([]string, a.Len())
	for i := range out {
		d := types.DatumAt(t, a, i)
		out[i] = "NULL"
		if !d.Null {
			out[i] = types.FormatText(d, time.UTC)
		}
	}
	return out
}

func jsonbOpCases() []Expr {
	col := &Col{Idx: 0, T: types.TJSONB, Name: "j"}
	var es []Expr
	for _, k := range []string{"a", "b", "ab", "llm", "", "zz"} {
		es = append(es, JSONArrow(col, c(txt(k)), false), JSONArrow(col, c(txt(k)), true), JSONExists(col, c(txt(k))))
	}
	for _, i := range []int64{0, 1, -1, 2, -3} {
		es = append(es, JSONArrow(col, c(i4(i)), false), JSONArrow(col, c(i4(i)), true))
	}
	for _, p := range []string{"{}", "{a}", "{a,b}", "{a,0}", "{a, -1 ,ab}", "{llm,model_name}", "{0}", "{a,NULL}"} {
		es = append(es, JSONPathOp(col, c(txt(p)), false), JSONPathOp(col, c(txt(p)), true))
	}
	for _, ks := range []string{"{a,b}", "{zz,NULL}", "{}"} {
		es = append(es, JSONExistsAnyAll(col, c(txt(ks)), false), JSONExistsAnyAll(col, c(txt(ks)), true))
	}
	for _, doc := range []string{`{}`, `[]`, `{"a": 1}`, `{"a": 1.00}`, `[1]`, `"a"`, `{"a": {}}`, `[[]]`, `null`, `{"b": "a", "ab": []}`} {
		es = append(es, JSONContains(col, c(jb(doc)), false), JSONContains(col, c(jb(doc)), true))
		for _, op := range []CmpOp{EQ, NE, LT, GE} {
			es = append(es, &Compare{Op: op, L: col, R: c(jb(doc))})
		}
	}
	es = append(es, &Compare{Op: LT, L: col, R: col})
	for _, name := range []string{"jsonb_typeof", "jsonb_extract_path", "jsonb_extract_path_text"} {
		args := []Expr{col}
		if name != "jsonb_typeof" {
			args = append(args, c(txt("a")), c(txt("1")))
		}
		ts := make([]types.T, len(args))
		for i, a := range args {
			ts[i] = a.Type()
		}
		_, _, f, ok := Builtins[name].Bind(ts)
		if !ok {
			panic(name)
		}
		f.Name, f.Args = name, args
		es = append(es, f)
	}
	return es
}

// TestJSONBColumnPathsMatchText checks every operator's binary path
// against its text path on random documents.
func TestJSONBColumnPathsMatchText(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	batch := jsonbBatch(t, r, 3000)
	defer batch.Release()
	ctx := &Ctx{Loc: time.UTC}
	for _, e := range jsonbOpCases() {
		got, err := e.Eval(ctx, batch)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		want, err := rowPath(e).Eval(ctx, batch)
		if err != nil {
			t.Fatalf("%s (text): %v", e, err)
		}
		g, w := formatColumn(e.Type(), got), formatColumn(e.Type(), want)
		for i := range g {
			if g[i] != w[i] {
				t.Errorf("%s on %s: %s, text path %s", e, formatColumn(types.TJSONB, batch.Column(0))[i], g[i], w[i])
				break
			}
		}
		got.Release()
		want.Release()
	}
}

// TestJSONBColumnConcurrent runs the operators on one buffer from several
// goroutines, as parallel workers do (run with -race).
func TestJSONBColumnConcurrent(t *testing.T) {
	batch := jsonbBatch(t, rand.New(rand.NewSource(2)), 10000)
	defer batch.Release()
	e := JSONPathOp(&Col{Idx: 0, T: types.TJSONB}, c(txt("{a,b}")), true)
	var wg sync.WaitGroup
	outs := make([][]string, 4)
	for w := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := e.Eval(&Ctx{Loc: time.UTC}, batch)
			if err != nil {
				t.Error(err)
				return
			}
			outs[w] = formatColumn(types.TText, a)
			a.Release()
		}()
	}
	wg.Wait()
	for w := 1; w < len(outs); w++ {
		if strings.Join(outs[w], "|") != strings.Join(outs[0], "|") {
			t.Fatalf("worker %d disagrees", w)
		}
	}
}
