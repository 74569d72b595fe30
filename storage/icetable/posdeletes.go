package icetable

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
	"github.com/google/uuid"
)

// posDeleteSchema is the Parquet schema of a position delete file, with
// the field IDs the Iceberg spec reserves for file_path and pos.
var posDeleteSchema = arrow.NewSchema([]arrow.Field{
	{Name: "file_path", Type: arrow.BinaryTypes.String, Metadata: parquetFieldID(2147483546)},
	{Name: "pos", Type: arrow.PrimitiveTypes.Int64, Metadata: parquetFieldID(2147483545)},
}, nil)

func parquetFieldID(id int) arrow.Metadata {
	return arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(id)})
}

// writePositionDeletes writes a format-version 2 position delete file
// holding del's positions of the data file f, in f's partition (a delete
// file applies within its partition), and returns its manifest entry.
// iceberg-go writes position deletes only from a row filter, so Loam
// writes the file, one per data file, sorted by position as the spec asks.
func writePositionDeletes(ctx context.Context, t *table.Table, fs iceio.WriteFileIO, f iceberg.DataFile, del *dv.RoaringPositionBitmap) (iceberg.DataFile, error) {
	loc, err := t.LocationProvider()
	if err != nil {
		return nil, err
	}
	path := loc.NewDataLocation("delete-" + uuid.NewString() + ".parquet")
	pb := array.NewStringBuilder(memory.DefaultAllocator)
	posb := array.NewInt64Builder(memory.DefaultAllocator)
	n := 0
	for p := range del.Positions() {
		pb.Append(f.FilePath())
		posb.Append(int64(p))
		n++
	}
	pa, posa := pb.NewArray(), posb.NewArray()
	pb.Release()
	posb.Release()
	rec := array.NewRecordBatch(posDeleteSchema, []arrow.Array{pa, posa}, int64(n))
	pa.Release()
	posa.Release()
	defer rec.Release()

	out, err := fs.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	w, err := pqarrow.NewFileWriter(posDeleteSchema, out,
		parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd)),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		out.Close()
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("close %s: %w", path, err)
	}
	in, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := in.Stat()
	in.Close()
	if err != nil {
		return nil, err
	}
	spec := t.Metadata().PartitionSpecByID(int(f.SpecID()))
	if spec == nil {
		return nil, fmt.Errorf("data file %s has unknown partition spec %d", f.FilePath(), f.SpecID())
	}
	b, err := iceberg.NewDataFileBuilder(*spec, iceberg.EntryContentPosDeletes, path, iceberg.ParquetFile,
		f.Partition(), nil, nil, int64(n), st.Size())
	if err != nil {
		return nil, err
	}
	first, last := minMax(del)
	b.LowerBoundValues(map[int][]byte{2147483546: []byte(f.FilePath()), 2147483545: le64(first)})
	b.UpperBoundValues(map[int][]byte{2147483546: []byte(f.FilePath()), 2147483545: le64(last)})
	b.ReferencedDataFile(f.FilePath())
	return b.Build(), nil
}

func minMax(b *dv.RoaringPositionBitmap) (lo, hi int64) {
	first := true
	for p := range b.Positions() {
		if first {
			lo, first = int64(p), false
		}
		hi = int64(p)
	}
	return lo, hi
}

func le64(v int64) []byte {
	b := make([]byte, 8)
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
	return b
}
