package icetable

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestConform: rows written under an older schema read under the new one
// by field ID.
func TestConform(t *testing.T) {
	old := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "v", Type: iceberg.PrimitiveTypes.Float32})
	osc, err := table.SchemaToArrowSchema(old, nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, osc)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	b.Field(2).(*array.Float32Builder).AppendValues([]float32{1.5, 2.5}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	// id widened to long, name dropped and a new "name" (ID 5) added, v
	// renamed to value and widened, k (ID 4) added with an initial default.
	now := iceberg.NewSchema(1,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 3, Name: "value", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 4, Name: "k", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 5, Name: "name", Type: iceberg.PrimitiveTypes.String})
	kb := array.NewInt32Builder(memory.DefaultAllocator)
	kb.Append(7)
	seven := kb.NewArray()
	defer seven.Release()
	out, err := Conform(rec, now, InitialDefaults{4: seven})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	want := []string{`[1 2]`, `[1.5 2.5]`, `[7 7]`, `[(null) (null)]`}
	for i, w := range want {
		if got := out.Column(i).String(); got != w {
			t.Errorf("column %s: %s, want %s", now.Field(i).Name, got, w)
		}
	}
	if dt := out.Column(0).DataType(); dt.ID() != arrow.INT64 {
		t.Errorf("id type %s, want int64", dt)
	}
	// Rows already in the schema pass through as they are.
	same, err := Conform(rec, old, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer same.Release()
	if same != rec {
		t.Errorf("rows in the current schema were copied")
	}
}
