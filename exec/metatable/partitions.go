package metatable

import (
	"bytes"
	"context"
	"reflect"
	"sort"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/types"
)

// partitionRows are Trino's $partitions: the current snapshot's data files
// grouped by partition, with their record count, file count and total
// size, and per column (data) the least lower bound, the greatest upper
// bound and the summed null and NaN counts. Rows are in the order of the
// partition's jsonb text.
func partitionRows(ctx context.Context, tbl *table.Table) ([][]types.Datum, error) {
	files, err := liveFiles(ctx, tbl)
	if err != nil {
		return nil, err
	}
	parts := partitionFields(tbl)
	cols := dataColumns(tbl)
	sc := tbl.Schema()
	type group struct {
		partition            types.Datum
		records, files, size int64
		stats                []colStats
	}
	groups := map[string]*group{}
	for _, f := range files {
		if f.ContentType() != iceberg.EntryContentData {
			continue
		}
		var pd types.Datum
		if len(parts) > 0 {
			if pd, err = partitionDatum(parts, f.Partition()); err != nil {
				return nil, err
			}
		}
		g := groups[pd.S]
		if g == nil {
			g = &group{partition: pd, stats: make([]colStats, len(cols))}
			groups[pd.S] = g
		}
		g.records += f.Count()
		g.files++
		g.size += f.FileSizeBytes()
		for i, c := range cols {
			g.stats[i].add(sc, c, f)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([][]types.Datum, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		var row []types.Datum
		if len(parts) > 0 {
			row = append(row, g.partition)
		}
		row = append(row, types.Int(types.TInt8, g.records), types.Int(types.TInt8, g.files), types.Int(types.TInt8, g.size))
		if len(cols) > 0 {
			obj := newObject()
			for i, c := range cols {
				obj.raw(c.Name, g.stats[i].json(c.Type))
			}
			d, err := obj.datum()
			if err != nil {
				return nil, err
			}
			row = append(row, d)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// colStats sums one column's metrics over a partition's files.
type colStats struct {
	min, max         any
	nulls, nans      int64
	hasNulls, hasNaN bool
}

func (s *colStats) add(sc *iceberg.Schema, c iceberg.NestedField, f iceberg.DataFile) {
	if b, ok := f.LowerBoundValues()[c.ID]; ok {
		if _, v, ok := boundValue(sc, c.ID, b); ok && (s.min == nil || less(v, s.min)) {
			s.min = v
		}
	}
	if b, ok := f.UpperBoundValues()[c.ID]; ok {
		if _, v, ok := boundValue(sc, c.ID, b); ok && (s.max == nil || less(s.max, v)) {
			s.max = v
		}
	}
	if n, ok := f.NullValueCounts()[c.ID]; ok {
		s.nulls += n
		s.hasNulls = true
	}
	if n, ok := f.NaNValueCounts()[c.ID]; ok {
		s.nans += n
		s.hasNaN = true
	}
}

// json is the column's summary, {min, max, null_count, nan_count}, or
// null when no file had metrics for it (as Trino).
func (s *colStats) json(t iceberg.Type) string {
	if s.min == nil && s.max == nil && !s.hasNulls {
		return "null"
	}
	obj := newObject()
	id := iceberg.IdentityTransform{}
	obj.raw("min", jsonValue(t, id, s.min))
	obj.raw("max", jsonValue(t, id, s.max))
	n := func(has bool, v int64) string {
		if !has {
			return "null"
		}
		return strconv.FormatInt(v, 10)
	}
	obj.raw("null_count", n(s.hasNulls, s.nulls))
	obj.raw("nan_count", n(s.hasNaN, s.nans))
	return obj.String()
}

// less orders two decoded bounds of one column: numbers, strings,
// booleans and bytes (dates and timestamps are integers underneath).
// Values it cannot order (decimals, UUIDs) keep the first seen.
func less(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, _ := b.([]byte)
		return bytes.Compare(x, y) < 0
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Kind() != vb.Kind() {
		return false
	}
	switch {
	case va.CanInt():
		return va.Int() < vb.Int()
	case va.CanUint():
		return va.Uint() < vb.Uint()
	case va.CanFloat():
		return va.Float() < vb.Float()
	case va.Kind() == reflect.String:
		return va.String() < vb.String()
	case va.Kind() == reflect.Bool:
		return !va.Bool() && vb.Bool()
	}
	return false
}
