package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// replay hands out batches, retained for the caller.
type replay struct {
	ts   []types.T
	recs []arrow.RecordBatch
	i    int
}

func (s *replay) Open(context.Context) error { s.i = 0; return nil }
func (s *replay) Close() error               { return nil }
func (s *replay) Types() []types.T           { return s.ts }
func (s *replay) Next(context.Context) (arrow.RecordBatch, error) {
	if s.i >= len(s.recs) {
		return nil, nil
	}
	s.i++
	s.recs[s.i-1].Retain()
	return s.recs[s.i-1], nil
}

// tenantBatches are rows of (tenant text, latency int8): tenants from 200,
// every 97th NULL; dict makes the tenant column a dictionary array in
// every other batch (the rest plain, as a file read without one).
func tenantBatches(rows, size int, dict bool) *replay {
	rng := rand.New(rand.NewSource(1))
	s := &replay{ts: []types.T{types.TText, types.TInt8}}
	for lo := 0; lo < rows; lo += size {
		n := min(size, rows-lo)
		tb := array.NewStringBuilder(memory.DefaultAllocator)
		lb := array.NewInt64Builder(memory.DefaultAllocator)
		for i := 0; i < n; i++ {
			if (lo+i)%97 == 0 {
				tb.AppendNull()
			} else {
				tb.Append(fmt.Sprintf("t%03d", rng.Intn(200)))
			}
			lb.Append(int64(rng.Intn(1000)))
		}
		ta := tb.NewStringArray()
		var col arrow.Array = ta
		if dict && (lo/size)%2 == 0 {
			col = DictEncode(ta)
			ta.Release()
		}
		cols := []arrow.Array{col, lb.NewArray()}
		s.recs = append(s.recs, array.NewRecordBatch(schemaOf(cols), cols, int64(n)))
	}
	return s
}

// collect runs op and renders its rows, dictionaries decoded.
func collect(t testing.TB, op Operator) []string {
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
			return out
		}
		plain := DecodeDicts(rec)
		for r := 0; r < int(plain.NumRows()); r++ {
			row := ""
			for c := 0; c < int(plain.NumCols()); c++ {
				row += fmt.Sprint(plain.Column(c).ValueStr(r)) + "|"
			}
			out = append(out, row)
		}
		plain.Release()
		rec.Release()
	}
}

func TestDecodeDict(t *testing.T) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues([]string{"a", "bb", "", "a", "ccc", "bb"}, []bool{true, true, false, true, true, true})
	s := b.NewStringArray()
	d := DictEncode(s)
	for _, r := range [][2]int{{0, 6}, {1, 5}, {2, 6}, {3, 3}} {
		want := array.NewSlice(s, int64(r[0]), int64(r[1]))
		got := DecodeDict(array.NewSlice(d, int64(r[0]), int64(r[1])))
		if !array.Equal(want, got) {
			t.Errorf("slice %v: got %v, want %v", r, got, want)
		}
	}
}

// TestDictFilter checks the dictionary filter against the plain one on the
// same rows, for each comparison and with another conjunct.
func TestDictFilter(t *testing.T) {
	col := &expr.Col{Idx: 0, T: types.TText}
	lat := &expr.Col{Idx: 1, T: types.TInt8}
	k := func(s string) *expr.Const { return &expr.Const{D: types.Datum{T: types.TText, S: s}} }
	for _, op := range []expr.CmpOp{expr.EQ, expr.NE, expr.LT, expr.LE, expr.GT, expr.GE} {
		for _, rest := range []expr.Expr{nil, &expr.Compare{Op: expr.GT, L: lat, R: &expr.Const{D: types.Datum{T: types.TInt8, I: 500}}}} {
			pred := expr.Expr(&expr.Compare{Op: op, L: col, R: k("t100")})
			if rest != nil {
				pred = &expr.BoolOp{Args: []expr.Expr{pred, rest}}
			}
			want := collect(t, NewFilter(NewDictDecode(tenantBatches(20000, 1000, true)), pred, nil))
			dc, ok := AsDictCmp(&expr.Compare{Op: op.Flip(), L: k("t100"), R: col})
			if !ok {
				t.Fatalf("%v: not a dictionary comparison", op)
			}
			got := collect(t, NewDictFilter(tenantBatches(20000, 1000, true), []DictCmp{dc}, rest, nil))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%v rest=%v: %d rows, want %d", op, rest, len(got), len(want))
			}
			if len(want) == 0 {
				t.Errorf("%v: no rows to compare", op)
			}
		}
	}
}

// BenchmarkFilterTenant is WHERE tenant = 't007' over 2M rows in the
// scan's 16384-row batches: the plain filter against the dictionary one.
func BenchmarkFilterTenant(b *testing.B) {
	col := &expr.Col{Idx: 0, T: types.TText}
	k := &expr.Const{D: types.Datum{T: types.TText, S: "t007"}}
	pred := &expr.Compare{Op: expr.EQ, L: col, R: k}
	const rows = 2_000_000
	for _, c := range []struct {
		name string
		op   func(src Operator) Operator
		dict bool
	}{
		{"plain", func(src Operator) Operator { return NewFilter(src, pred, nil) }, false},
		{"dict", func(src Operator) Operator {
			return NewDictFilter(src, []DictCmp{{Col: 0, Op: expr.EQ, Val: "t007"}}, nil, nil)
		}, true},
	} {
		src := tenantBatches(rows, 16384, false)
		if c.dict {
			for i, r := range src.recs {
				d := DictEncode(r.Column(0).(*array.String))
				cols := []arrow.Array{d, r.Column(1)}
				src.recs[i] = array.NewRecordBatch(schemaOf(cols), cols, r.NumRows())
			}
		}
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				collect(b, c.op(src))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}
