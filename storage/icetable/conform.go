package icetable

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Conform turns rows written under one of a table's schemas into its
// schema sc, matching columns by Iceberg field ID (the Arrow fields'
// PARQUET:field_id), as a scan of an old data file does: a column the
// rows lack reads its initial default (defaults, by field ID) or NULL, a
// dropped one is left out, a renamed one keeps its values, and a promoted
// one (int → long, float → double, a wider decimal) is cast. The write
// log's tail holds rows in the schema they were written in, and an ALTER
// may come between their write and their read or link commit. The result
// is the caller's to release.
func Conform(rec arrow.RecordBatch, sc *iceberg.Schema, defaults InitialDefaults) (arrow.RecordBatch, error) {
	want, err := table.SchemaToArrowSchema(sc, nil, true, false)
	if err != nil {
		return nil, err
	}
	if rec.Schema().Equal(want) {
		rec.Retain()
		return rec, nil
	}
	byID := map[int]int{}
	for i, f := range rec.Schema().Fields() {
		if id, ok := fieldID(f); ok {
			byID[id] = i
		}
	}
	n := rec.NumRows()
	cols := make([]arrow.Array, len(want.Fields()))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, f := range sc.Fields() {
		dt := want.Field(i).Type
		src, ok := byID[f.ID]
		if !ok && len(byID) == 0 {
			// Rows without field IDs: by name.
			if idx := rec.Schema().FieldIndices(f.Name); len(idx) > 0 {
				src, ok = idx[0], true
			}
		}
		if !ok {
			c, err := defaults.column(f.ID, dt, int(n))
			if err != nil {
				release()
				return nil, err
			}
			cols[i] = c
			continue
		}
		c := rec.Column(src)
		if arrow.TypeEqual(c.DataType(), dt) {
			c.Retain()
			cols[i] = relabel(c, dt)
			continue
		}
		cast, err := compute.CastArray(context.Background(), c, compute.SafeCastOptions(dt))
		if err != nil {
			release()
			return nil, fmt.Errorf("conform column %s from %s to %s: %w", f.Name, c.DataType(), dt, err)
		}
		cols[i] = cast
	}
	out := array.NewRecordBatch(want, cols, n)
	release()
	return out, nil
}

func fieldID(f arrow.Field) (int, bool) {
	v, ok := f.Metadata.GetValue(table.ArrowParquetFieldIDKey)
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(v)
	return id, err == nil
}
