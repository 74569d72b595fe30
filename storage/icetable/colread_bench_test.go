package icetable

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"
)

// BenchmarkColumnDecode decodes one column of every data file in
// PQBENCH_DIR (a Loam table's data directory; see bench/parquetdecode for
// making one) with the decoder Store.Scan uses (direct: parquet-go, strings
// also as dictionaries) and with pqarrow, as iceberg-go's scan does.
func BenchmarkColumnDecode(b *testing.B) {
	dir := os.Getenv("PQBENCH_DIR")
	if dir == "" {
		b.Skip("PQBENCH_DIR names a directory of Loam data files")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(paths) == 0 {
		b.Fatalf("no parquet files in %s", dir)
	}
	for _, c := range []struct {
		kind, name string
		typ        arrow.DataType
		dict       bool
	}{
		{"int64", "tokens", arrow.PrimitiveTypes.Int64, false},
		{"float64", "cost_usd", arrow.PrimitiveTypes.Float64, false},
		{"timestamp", "ts", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, false},
		{"lowcard_string", "tenant", arrow.BinaryTypes.String, false},
		{"lowcard_string_dict", "tenant", arrow.BinaryTypes.String, true},
		{"highcard_string", "req_id", arrow.BinaryTypes.String, false},
		{"json_text", "attrs", arrow.BinaryTypes.String, false},
	} {
		var rows int64
		b.Run(c.kind+"/direct", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				rows = 0
				for _, p := range paths {
					rows += decodeDirect(b, p, c.name, c.typ, c.dict)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*rows), "ns/row")
		})
		b.Run(c.kind+"/pqarrow", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				rows = 0
				for _, p := range paths {
					rows += decodePqarrow(b, p, c.name, c.dict)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*rows), "ns/row")
		})
	}
}

func decodeDirect(b *testing.B, path, col string, typ arrow.DataType, dict bool) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		b.Fatal(err)
	}
	leaf, ok := pf.Schema().Lookup(col)
	if !ok {
		b.Fatalf("%s: no column %s", path, col)
	}
	arrs, err := readDirect(pf, []directColumn{{leaf: leaf.ColumnIndex, typ: typ, max: leaf.MaxDefinitionLevel, dict: dict}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	n := int64(arrs[0].Len())
	arrs[0].Release()
	return n
}

func decodePqarrow(b *testing.B, path, col string, dict bool) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		b.Fatal(err)
	}
	defer pr.Close()
	idx := pr.MetaData().Schema.ColumnIndexByName(col)
	props := pqarrow.ArrowReadProperties{BatchSize: 1 << 16}
	props.SetReadDict(idx, dict)
	fr, err := pqarrow.NewFileReader(pr, props, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), []int{idx}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}
