// Package parquetdecode measures the two Go Parquet decoders on Loam's own
// data files, a column type at a time: arrow-go's pqarrow (what iceberg-go's
// scan reads through) against parquet-go. Both produce the Arrow array Loam
// scans carry, so the figures include building it.
//
//	PQBENCH_DIR=<loam data dir>/warehouse/public.db/wide/data go test -bench . -benchtime 5x
//
// The table: bench/gen's LLM calls COPYed into Loam (gen.CreateTableLoam),
// then CREATE TABLE wide AS SELECT ts, tenant, model, prompt_tokens::bigint
// AS tokens, cost_usd, cost_usd::numeric(12,6) AS cost_dec, md5(ts::text ||
// tenant || latency_ms::text) AS req_id, json_build_object('tenant', tenant,
// 'model', model, 'latency', latency_ms)::text AS attrs FROM llm_calls, and
// CHECKPOINT. storage/icetable's BenchmarkColumnDecode measures the decoder
// Loam's scans use on the same files.
package parquetdecode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"
)

// columns are the wide table's columns by what they exercise.
var columns = []struct{ kind, name string }{
	{"int64", "tokens"},
	{"float64", "cost_usd"},
	{"timestamp", "ts"},
	{"lowcard_string", "tenant"},
	{"highcard_string", "req_id"},
	{"decimal", "cost_dec"},
	{"json_text", "attrs"},
}

func files(b testing.TB) []string {
	dir := os.Getenv("PQBENCH_DIR")
	if dir == "" {
		b.Skip("PQBENCH_DIR names a directory of Loam data files")
	}
	fs, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(fs) == 0 {
		b.Fatalf("no parquet files in %s: %v", dir, err)
	}
	return fs
}

func BenchmarkDecode(b *testing.B) {
	fs := files(b)
	for _, c := range columns {
		for _, d := range []struct {
			name string
			read func(path, col string) (int64, error)
		}{
			{"arrowgo", func(p, c string) (int64, error) { return readArrow(p, c, false) }},
			{"arrowgo_dict", func(p, c string) (int64, error) { return readArrow(p, c, true) }},
			{"parquetgo", readParquetGo},
		} {
			if d.name == "arrowgo_dict" && c.kind != "lowcard_string" && c.kind != "highcard_string" {
				continue
			}
			b.Run(c.kind+"/"+d.name, func(b *testing.B) {
				var rows int64
				for i := 0; i < b.N; i++ {
					rows = 0
					for _, p := range fs {
						n, err := d.read(p, c.name)
						if err != nil {
							b.Fatal(err)
						}
						rows += n
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*rows), "ns/row")
			})
		}
	}
}

// readArrow decodes one column of a file with pqarrow, as iceberg-go does
// (one record reader over every row group), optionally as a dictionary.
func readArrow(path, col string, dict bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return 0, err
	}
	defer pr.Close()
	idx := pr.MetaData().Schema.ColumnIndexByName(col)
	if idx < 0 {
		return 0, fmt.Errorf("%s: no column %s", path, col)
	}
	props := pqarrow.ArrowReadProperties{BatchSize: 1 << 16}
	props.SetReadDict(idx, dict)
	fr, err := pqarrow.NewFileReader(pr, props, memory.DefaultAllocator)
	if err != nil {
		return 0, err
	}
	rr, err := fr.GetRecordReader(context.Background(), []int{idx}, nil)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	return n, rr.Err()
}

// readParquetGo decodes one column of a file with parquet-go, page by page,
// into Arrow arrays of the type pqarrow gives.
func readParquetGo(path, col string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, err
	}
	leaf, ok := pf.Schema().Lookup(col)
	if !ok {
		return 0, fmt.Errorf("%s: no column %s", path, col)
	}
	var n int64
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if err != nil {
				break
			}
			a := pageArray(p)
			n += int64(a.Len())
			a.Release()
			parquet.Release(p)
		}
		pages.Close()
	}
	return n, nil
}

// pageArray builds an Arrow array of a page's values, nulls from its
// definition levels (Loam's columns are optional, at most one level).
func pageArray(p parquet.Page) arrow.Array {
	rows := int(p.NumValues())
	defs := p.DefinitionLevels()
	vals := p.Data()
	_ = vals
	if dict := p.Dictionary(); dict != nil {
		return indexedArray(p, dict, defs, rows)
	}
	switch p.Type().Kind() {
	case parquet.Int64:
		v := vals.Int64()
		b := array.NewInt64Builder(memory.DefaultAllocator)
		appendFixed(b, v, defs, rows)
		return b.NewArray()
	case parquet.Double:
		v := vals.Double()
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		appendFixed(b, v, defs, rows)
		return b.NewArray()
	case parquet.ByteArray:
		data, offs := vals.ByteArray()
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.Reserve(rows)
		b.ReserveData(len(data))
		j := 0
		for i := 0; i < rows; i++ {
			if len(defs) > 0 && defs[i] == 0 {
				b.AppendNull()
				continue
			}
			b.BinaryBuilder.Append(data[offs[j]:offs[j+1]])
			j++
		}
		return b.NewArray()
	case parquet.FixedLenByteArray:
		data, size := vals.FixedLenByteArray()
		b := array.NewFixedSizeBinaryBuilder(memory.DefaultAllocator, &arrow.FixedSizeBinaryType{ByteWidth: size})
		b.Reserve(rows)
		j := 0
		for i := 0; i < rows; i++ {
			if len(defs) > 0 && defs[i] == 0 {
				b.AppendNull()
				continue
			}
			b.Append(data[j*size : (j+1)*size])
			j++
		}
		return b.NewArray()
	}
	panic(fmt.Sprintf("page of %s", p.Type()))
}

type fixedBuilder[T any] interface {
	Reserve(int)
	AppendNull()
	UnsafeAppend(T)
}

func appendFixed[T any](b fixedBuilder[T], v []T, defs []byte, rows int) {
	b.Reserve(rows)
	j := 0
	for i := 0; i < rows; i++ {
		if len(defs) > 0 && defs[i] == 0 {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(v[j])
		j++
	}
}

// indexedArray looks a dictionary page's codes up in its dictionary.
func indexedArray(p parquet.Page, dict parquet.Dictionary, defs []byte, rows int) arrow.Array {
	pd := p.Data()
	idx := pd.Int32()
	dv := dict.Page().Data()
	_ = dv
	switch dict.Type().Kind() {
	case parquet.Int64:
		v := dv.Int64()
		b := array.NewInt64Builder(memory.DefaultAllocator)
		appendCodes(b, v, idx, defs, rows)
		return b.NewArray()
	case parquet.Double:
		v := dv.Double()
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		appendCodes(b, v, idx, defs, rows)
		return b.NewArray()
	case parquet.ByteArray:
		data, offs := dv.ByteArray()
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.Reserve(rows)
		j := 0
		for i := 0; i < rows; i++ {
			if len(defs) > 0 && defs[i] == 0 {
				b.AppendNull()
				continue
			}
			k := idx[j]
			j++
			b.BinaryBuilder.Append(data[offs[k]:offs[k+1]])
		}
		return b.NewArray()
	case parquet.FixedLenByteArray:
		data, size := dv.FixedLenByteArray()
		b := array.NewFixedSizeBinaryBuilder(memory.DefaultAllocator, &arrow.FixedSizeBinaryType{ByteWidth: size})
		b.Reserve(rows)
		j := 0
		for i := 0; i < rows; i++ {
			if len(defs) > 0 && defs[i] == 0 {
				b.AppendNull()
				continue
			}
			k := int(idx[j])
			j++
			b.Append(data[k*size : (k+1)*size])
		}
		return b.NewArray()
	}
	panic(fmt.Sprintf("dictionary of %s", dict.Type()))
}

func appendCodes[T any](b fixedBuilder[T], v []T, idx []int32, defs []byte, rows int) {
	b.Reserve(rows)
	j := 0
	for i := 0; i < rows; i++ {
		if len(defs) > 0 && defs[i] == 0 {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(v[idx[j]])
		j++
	}
}
