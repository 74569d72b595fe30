package ice

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/loamdb/loam/types"
)

// TestListRoundTrip stores array texts as Arrow lists and reads them back
// in array_out's text, for each element type a column may have.
func TestListRoundTrip(t *testing.T) {
	for _, c := range []struct {
		elem  types.Kind
		in    []string // "" is a NULL array
		out   []string
		arrow arrow.DataType
	}{
		{types.Text, []string{`{a,"b c",NULL,""}`, "", "{}"}, []string{`{a,"b c",NULL,""}`, "", "{}"}, arrow.BinaryTypes.String},
		{types.Int8, []string{"{1, 2,NULL}", "{-9223372036854775808}"}, []string{"{1,2,NULL}", "{-9223372036854775808}"}, arrow.PrimitiveTypes.Int64},
		{types.Int2, []string{"{7,-1}"}, []string{"{7,-1}"}, arrow.PrimitiveTypes.Int32},
		{types.Float8, []string{"{1.5,NaN,-Infinity}"}, []string{"{1.5,NaN,-Infinity}"}, arrow.PrimitiveTypes.Float64},
		{types.Bool, []string{"{t,false,NULL}"}, []string{"{t,f,NULL}"}, arrow.FixedWidthTypes.Boolean},
		{types.Numeric, []string{"{1.50,-2}"}, []string{"{1.5,-2}"}, &arrow.Decimal128Type{Precision: 38, Scale: 10}},
		{types.Date, []string{"{2024-02-29}"}, []string{"{2024-02-29}"}, arrow.FixedWidthTypes.Date32},
	} {
		at := types.ArrayOf(c.elem)
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for _, s := range c.in {
			if s == "" {
				b.AppendNull()
			} else {
				b.Append(s)
			}
		}
		src := b.NewArray()
		stored, err := ToArrow(src, at, arrow.ListOf(c.arrow))
		if err != nil {
			t.Fatalf("%s: ToArrow: %v", at, err)
		}
		back, err := FromArrow(stored, at)
		if err != nil {
			t.Fatalf("%s: FromArrow: %v", at, err)
		}
		for i, want := range c.out {
			got := ""
			if back.IsValid(i) {
				got = back.(*array.String).Value(i)
			}
			if got != want {
				t.Errorf("%s row %d: %q, want %q", at, i, got, want)
			}
		}
		src.Release()
		stored.Release()
		back.Release()
	}
}

// TestArrayTypes checks the Iceberg type, the recorded type key and the
// field numbering of array columns.
func TestArrayTypes(t *testing.T) {
	at := types.ArrayOf(types.Int4)
	it, err := ToIceberg(at)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := it.(*iceberg.ListType); !ok || !l.Element.Equals(iceberg.PrimitiveTypes.Int32) {
		t.Fatalf("ToIceberg(int[]) = %s", it)
	}
	if back, ok := FromIceberg(it); !ok || back != at {
		t.Errorf("FromIceberg(%s) = %s", it, back)
	}
	if k := TypeKey(at); k != "int4[]" {
		t.Errorf("TypeKey = %q", k)
	}
	if back, ok := ParseTypeKey("int4[]"); !ok || back != at {
		t.Errorf("ParseTypeKey = %s, %v", back, ok)
	}
	if _, err := ToIceberg(types.ArrayOf(types.Interval)); err == nil {
		t.Error("interval[] should not be storable")
	}
	fields := []iceberg.NestedField{{Name: "a", Type: it}, {Name: "b", Type: iceberg.PrimitiveTypes.String}, {Name: "c", Type: it}}
	NumberFields(fields)
	// As iceberg-go assigns fresh IDs: each field, then its element.
	if fields[0].ID != 1 || fields[0].Type.(*iceberg.ListType).ElementID != 2 || fields[1].ID != 3 || fields[2].ID != 4 || fields[2].Type.(*iceberg.ListType).ElementID != 5 {
		t.Errorf("IDs %+v", fields)
	}
	fresh, err := iceberg.AssignFreshSchemaIDs(iceberg.NewSchema(0, fields...), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fresh.Fields() {
		if f.ID != fields[i].ID {
			t.Errorf("field %s: iceberg assigns %d, Loam %d", f.Name, f.ID, fields[i].ID)
		}
	}
}
