package expr

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// lit is an untyped literal, as a quoted SQL string arrives.
func lit(s string) types.Datum { return types.Datum{T: types.TUnknown, S: s} }
func i4(v int64) types.Datum   { return types.Int(types.TInt4, v) }
func i8(v int64) types.Datum   { return types.Int(types.TInt8, v) }
func f8(v float64) types.Datum { return types.Float8Datum(v) }
func num(s string) types.Datum { return types.Datum{T: types.TNumeric, S: s} }
func jb(s string) types.Datum  { return types.Datum{T: types.TJSONB, S: s} }
func js(s string) types.Datum  { return types.Datum{T: types.TJSON, S: s} }
func null() types.Datum        { return types.NullOf(types.TUnknown) }

// call resolves name over the argument types, coerces the arguments as
// the binder would and evaluates the call over a two-row batch (so the
// columnar paths run); it returns the result as text ("NULL" for NULL)
// and the result type, or the SQLSTATE of the error.
func call(t *testing.T, name string, args ...types.Datum) (string, types.T, string) {
	t.Helper()
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.T
	}
	bi, ok := Builtins[name]
	if !ok {
		t.Fatalf("no builtin %s", name)
	}
	rt, want, fn, ok := bi.Bind(ts)
	if !ok {
		return "", rt, pgerr.UndefinedFunction
	}
	fn.Name = name
	for i, a := range args {
		if want[i].Kind == types.Unknown {
			want[i] = types.TText
		}
		d, err := CastDatum(a, want[i], time.UTC)
		if err != nil {
			return "", rt, pgerr.Code(err)
		}
		fn.Args = append(fn.Args, &Const{D: d})
	}
	batch := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 2)
	defer batch.Release()
	out, err := fn.Eval(&Ctx{Loc: time.UTC}, batch)
	if err != nil {
		return "", rt, pgerr.Code(err)
	}
	defer out.Release()
	d := types.DatumAt(rt, out, 1)
	if d.Null {
		return "NULL", rt, ""
	}
	return types.FormatText(d, time.UTC), rt, ""
}

type fcase struct {
	name string
	args []types.Datum
	want string // result text, or the SQLSTATE when code is set
	code bool
}

func ok(name, want string, args ...types.Datum) fcase {
	return fcase{name: name, args: args, want: want}
}
func fails(name, code string, args ...types.Datum) fcase {
	return fcase{name: name, args: args, want: code, code: true}
}

func runCases(t *testing.T, cases []fcase) {
	t.Helper()
	for _, c := range cases {
		got, _, code := call(t, c.name, c.args...)
		switch {
		case c.code && code != c.want:
			t.Errorf("%s%v: got %q (code %q), want error %s", c.name, c.args, got, code, c.want)
		case !c.code && (code != "" || got != c.want):
			t.Errorf("%s%v = %q (code %q), want %q", c.name, c.args, got, code, c.want)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		name string
		args []types.T
		want string // result type, "" when no overload fits
	}{
		{"round", []types.T{types.TInt4}, "double precision"},
		{"round", []types.T{types.TUnknown}, "double precision"},
		{"round", []types.T{types.TNumeric}, "numeric"},
		{"round", []types.T{types.TInt4, types.TInt4}, "numeric"},
		{"round", []types.T{types.TFloat8, types.TInt4}, ""},
		{"floor", []types.T{types.TInt8}, "double precision"},
		{"mod", []types.T{types.TInt2, types.TInt2}, "smallint"},
		{"mod", []types.T{types.TInt4, types.TInt8}, "bigint"},
		{"mod", []types.T{types.TInt4, types.TNumeric}, "numeric"},
		{"mod", []types.T{types.TFloat8, types.TInt4}, ""},
		{"power", []types.T{types.TInt4, types.TInt4}, "double precision"},
		{"power", []types.T{types.TNumeric, types.TInt4}, "numeric"},
		{"length", []types.T{types.TInt4}, ""},
		{"length", []types.T{types.Of(types.Varchar)}, "integer"},
		{"concat", nil, ""},
		{"concat", []types.T{types.TInt4, types.TBool}, "text"},
		{"format", []types.T{types.TUnknown}, "text"},
		{"jsonb_typeof", []types.T{types.TJSON}, ""},
	} {
		rt, _, _, ok := Builtins[c.name].Bind(c.args)
		got := ""
		if ok {
			got = rt.String()
		}
		if got != c.want {
			t.Errorf("%s%v: resolved to %q, want %q", c.name, c.args, got, c.want)
		}
	}
	// substring(text, unknown) is the regex form: unknown prefers text.
	o, want, ok := Resolve(Builtins["substring"].Overloads, []types.T{types.TText, types.TUnknown})
	if !ok || want[1].Kind != types.Text || o.Args[1] != types.Text {
		t.Errorf("substring(text, unknown) resolved to %v %v", o, want)
	}
}

// TestVecMatchesRows runs the columnar paths over real columns (with
// NULLs, and constant arguments left out) and checks them against the
// row-wise functions.
func TestVecMatchesRows(t *testing.T) {
	strs := []types.Datum{types.TextDatum("héllo"), types.NullOf(types.TText), types.TextDatum(""), types.TextDatum("ABC def")}
	ints := []types.Datum{i4(2), i4(0), types.NullOf(types.TInt4), i4(-1)}
	floats := []types.Datum{f8(2.5), types.NullOf(types.TFloat8), f8(-1.5), f8(16)}
	cols := [][]types.Datum{strs, ints, floats}
	colTypes := []types.T{types.TText, types.TInt4, types.TFloat8}
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	for k, col := range cols {
		bld := NewBuilder(colTypes[k], len(col))
		for _, d := range col {
			bld.Append(d)
		}
		arrs[k] = bld.Finish()
		fields[k] = arrow.Field{Name: colTypes[k].String(), Type: colTypes[k].Arrow(), Nullable: true}
	}
	batch := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(strs)))
	defer batch.Release()
	col := func(k int) Expr { return &Col{Idx: k, T: colTypes[k]} }
	for _, c := range []struct {
		name string
		args []Expr
	}{
		{"lower", []Expr{col(0)}},
		{"upper", []Expr{col(0)}},
		{"length", []Expr{col(0)}},
		{"octet_length", []Expr{col(0)}},
		{"substr", []Expr{col(0), col(1)}},
		{"substr", []Expr{col(0), &Const{D: i4(2)}, &Const{D: i4(3)}}},
		{"substr", []Expr{col(0), col(1), &Const{D: i4(2)}}},
		{"floor", []Expr{col(2)}},
		{"round", []Expr{col(2)}},
		{"exp", []Expr{col(2)}},
	} {
		ts := make([]types.T, len(c.args))
		for i, a := range c.args {
			ts[i] = a.Type()
		}
		_, _, fn, ok := Builtins[c.name].Bind(ts)
		if !ok || fn.Vec == nil {
			t.Fatalf("%s%v: no columnar overload", c.name, ts)
		}
		fn.Name, fn.Args = c.name, c.args
		row := *fn
		row.Vec = nil
		ctx := &Ctx{Loc: time.UTC}
		got, err1 := fn.Eval(ctx, batch)
		want, err2 := row.Eval(ctx, batch)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v / %v", fn, err1, err2)
		}
		for i := 0; i < len(strs); i++ {
			g, w := types.DatumAt(fn.T, got, i), types.DatumAt(fn.T, want, i)
			if g.Null != w.Null || !g.Null && types.FormatText(g, time.UTC) != types.FormatText(w, time.UTC) {
				t.Errorf("%s row %d: columnar %v, row-wise %v", fn, i, g, w)
			}
		}
		got.Release()
		want.Release()
	}
}
