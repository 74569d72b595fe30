package icetable

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// A query may read only columns added after a data file was written. The
// file holds none of them, and iceberg-go's reader, asked for no column
// the file has, fails ("no leaf column readers matched col indices")
// instead of yielding the file's rows as nulls. fileColumnBesides names a
// column the file does hold, to read beside them and drop after, so the
// rows (and their deletes) come out right.

// fileColumnBesides is "" when the file holds one of fields (or its
// statistics do not say which columns it holds), else a column of the
// current schema the file holds.
func fileColumnBesides(t *table.Table, df iceberg.DataFile, fields []string) string {
	counts := df.ValueCounts()
	if len(counts) == 0 {
		return ""
	}
	sc := t.Schema()
	for _, name := range fields {
		if f, ok := sc.FindFieldByName(name); !ok {
			return "" // not a plain column: leave the read as it was
		} else if _, in := counts[f.ID]; in {
			return ""
		}
	}
	for _, f := range sc.Fields() {
		if _, in := counts[f.ID]; in {
			return f.Name
		}
	}
	return ""
}

// dropColumn is rec without its column name; rec is released.
func dropColumn(rec arrow.RecordBatch, name string) arrow.RecordBatch {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) == 0 {
		return rec
	}
	defer rec.Release()
	var fields []arrow.Field
	var cols []arrow.Array
	for i, f := range rec.Schema().Fields() {
		if i != idx[0] {
			fields = append(fields, f)
			cols = append(cols, rec.Column(i))
		}
	}
	md := rec.Schema().Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, rec.NumRows())
}
