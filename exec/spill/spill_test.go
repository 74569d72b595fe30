package spill

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/mem"
)

// Batches come back in order, across a change of schema (a plain text
// column, then a dictionary-encoded one), and Remove leaves nothing.
func TestRoundTrip(t *testing.T) {
	p, err := mem.NewPool(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := p.NewBudget()
	defer b.Close()
	f, err := Create(b)
	if err != nil {
		t.Fatal(err)
	}
	plain := textBatch([]string{"a", "bb", ""})
	defer plain.Release()
	dict := dictBatch([]string{"x", "y", "x", "x"})
	defer dict.Release()
	for _, r := range []arrow.RecordBatch{plain, dict, plain} {
		if err := f.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if f.Rows() != 10 {
		t.Fatalf("rows %d, want 10", f.Rows())
	}
	for pass := 0; pass < 2; pass++ {
		r, err := f.Reader()
		if err != nil {
			t.Fatal(err)
		}
		var got []arrow.RecordBatch
		for {
			rec, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if rec == nil {
				break
			}
			got = append(got, rec)
		}
		r.Close()
		want := []arrow.RecordBatch{plain, dict, plain}
		if len(got) != len(want) {
			t.Fatalf("pass %d: %d batches, want %d", pass, len(got), len(want))
		}
		for i := range want {
			if !array.RecordEqual(got[i], want[i]) {
				t.Fatalf("pass %d batch %d: %v, want %v", pass, i, got[i], want[i])
			}
			got[i].Release()
		}
	}
	dir, _ := b.SpillDir()
	f.Remove()
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("%d files left after Remove", len(es))
	}
}

func TestSizeOfASliceIsItsShare(t *testing.T) {
	rec := textBatch([]string{"aaaa", "bbbb", "cccc", "dddd"})
	defer rec.Release()
	half := rec.NewSlice(0, 2)
	defer half.Release()
	if whole, part := Size(rec), Size(half); part >= whole || part <= 0 {
		t.Fatalf("slice of half the rows: %d of %d", part, whole)
	}
}

func textBatch(vs []string) arrow.RecordBatch {
	bl := array.NewStringBuilder(memory.DefaultAllocator)
	defer bl.Release()
	bl.AppendValues(vs, nil)
	col := bl.NewArray()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "c0", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{col}, int64(len(vs)))
}

func dictBatch(vs []string) arrow.RecordBatch {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	bl := array.NewDictionaryBuilder(memory.DefaultAllocator, dt).(*array.BinaryDictionaryBuilder)
	defer bl.Release()
	for _, v := range vs {
		if err := bl.AppendString(v); err != nil {
			panic(err)
		}
	}
	col := bl.NewArray()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "c0", Type: dt, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{col}, int64(len(vs)))
}
