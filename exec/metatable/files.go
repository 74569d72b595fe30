package metatable

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/types"
)

// fileRows are the live data and delete files of the current snapshot:
// Trino's $files. Its map(integer, …) columns are jsonb objects keyed by
// field ID; lower_bounds and upper_bounds hold the bounds as text, as
// Trino's map(integer, varchar) does.
func fileRows(ctx context.Context, tbl *table.Table) ([][]types.Datum, error) {
	files, err := liveFiles(ctx, tbl)
	if err != nil {
		return nil, err
	}
	parts := partitionFields(tbl)
	sc := tbl.Schema()
	rows := make([][]types.Datum, 0, len(files))
	for _, f := range files {
		row := []types.Datum{
			types.Int(types.TInt4, int64(f.ContentType())),
			{T: tVarchar, S: f.FilePath()},
			{T: tVarchar, S: string(f.FileFormat())},
			types.Int(types.TInt4, int64(f.SpecID())),
		}
		if len(parts) > 0 {
			d, err := partitionDatum(parts, f.Partition())
			if err != nil {
				return nil, err
			}
			row = append(row, d)
		}
		row = append(row,
			types.Int(types.TInt8, f.Count()),
			types.Int(types.TInt8, f.FileSizeBytes()),
		)
		for _, m := range []map[int]int64{f.ColumnSizes(), f.ValueCounts(), f.NullValueCounts(), f.NaNValueCounts()} {
			d, err := countsDatum(m)
			if err != nil {
				return nil, err
			}
			row = append(row, d)
		}
		for _, m := range []map[int][]byte{f.LowerBoundValues(), f.UpperBoundValues()} {
			d, err := boundsDatum(sc, m)
			if err != nil {
				return nil, err
			}
			row = append(row, d)
		}
		key := types.NullOf(types.TBytea)
		if k := f.KeyMetadata(); k != nil {
			key = types.Datum{T: types.TBytea, B: k}
		}
		sortOrder := types.NullOf(types.TInt4)
		if id := f.SortOrderID(); id != nil {
			sortOrder = types.Int(types.TInt4, int64(*id))
		}
		metrics, err := readableMetrics(sc, f)
		if err != nil {
			return nil, err
		}
		row = append(row, key, int64Array(tInt8Arr, f.SplitOffsets()), intArray(f.EqualityFieldIDs()), sortOrder, metrics)
		rows = append(rows, row)
	}
	return rows, nil
}

// partitionDatum is a file's partition tuple as a jsonb object of the
// partition field names (Trino's partition row).
func partitionDatum(parts []partField, values map[int]any) (types.Datum, error) {
	obj := newObject()
	for _, p := range parts {
		v, ok := values[p.id]
		if !ok {
			obj.raw(p.name, "null")
			continue
		}
		obj.raw(p.name, jsonValue(p.result, p.transform, v))
	}
	return obj.datum()
}

// countsDatum is a map of field ID to count as a jsonb object; NULL for
// none, as Trino gives for a file without the metric.
func countsDatum(m map[int]int64) (types.Datum, error) {
	if m == nil {
		return types.NullOf(types.TJSONB), nil
	}
	obj := newObject()
	for _, id := range sortedKeys(m) {
		obj.raw(strconv.Itoa(id), strconv.FormatInt(m[id], 10))
	}
	return obj.datum()
}

// boundsDatum is a map of field ID to a serialized bound as a jsonb object
// of the bounds' text.
func boundsDatum(sc *iceberg.Schema, m map[int][]byte) (types.Datum, error) {
	if m == nil {
		return types.NullOf(types.TJSONB), nil
	}
	obj := newObject()
	for _, id := range sortedKeys(m) {
		obj.str(strconv.Itoa(id), boundText(sc, id, m[id]))
	}
	return obj.datum()
}

// boundValue decodes the serialized bound of field id; ok is false when
// the field is gone from the schema or the bytes do not decode.
func boundValue(sc *iceberg.Schema, id int, b []byte) (iceberg.Type, any, bool) {
	t, ok := sc.FindTypeByID(id)
	if !ok {
		return nil, nil, false
	}
	lit, err := iceberg.LiteralFromBytes(t, b)
	if err != nil || lit == nil {
		return nil, nil, false
	}
	return t, lit.Any(), true
}

// boundText is a bound as text, hex when it cannot be decoded.
func boundText(sc *iceberg.Schema, id int, b []byte) string {
	t, v, ok := boundValue(sc, id, b)
	if !ok {
		return fmt.Sprintf("\\x%x", b)
	}
	return iceberg.IdentityTransform{}.ToHumanStrType(t, v)
}

// readableMetrics is Trino's readable_metrics: per primitive top-level
// column, by name, its column_size, value_count, null_value_count,
// nan_value_count, lower_bound and upper_bound.
func readableMetrics(sc *iceberg.Schema, f iceberg.DataFile) (types.Datum, error) {
	sizes, values, nulls, nans := f.ColumnSizes(), f.ValueCounts(), f.NullValueCounts(), f.NaNValueCounts()
	lower, upper := f.LowerBoundValues(), f.UpperBoundValues()
	num := func(m map[int]int64, id int) string {
		if v, ok := m[id]; ok {
			return strconv.FormatInt(v, 10)
		}
		return "null"
	}
	bound := func(m map[int][]byte, id int) string {
		b, ok := m[id]
		if !ok {
			return "null"
		}
		t, v, ok := boundValue(sc, id, b)
		if !ok {
			return "null"
		}
		return jsonValue(t, iceberg.IdentityTransform{}, v)
	}
	obj := newObject()
	for _, c := range sc.Fields() {
		if _, prim := c.Type.(iceberg.PrimitiveType); !prim {
			continue
		}
		col := newObject()
		col.raw("column_size", num(sizes, c.ID))
		col.raw("value_count", num(values, c.ID))
		col.raw("null_value_count", num(nulls, c.ID))
		col.raw("nan_value_count", num(nans, c.ID))
		col.raw("lower_bound", bound(lower, c.ID))
		col.raw("upper_bound", bound(upper, c.ID))
		obj.raw(c.Name, col.String())
	}
	return obj.datum()
}

func int64Array(t types.T, vs []int64) types.Datum {
	if vs == nil {
		return types.NullOf(t)
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return types.Datum{T: t, S: "{" + strings.Join(parts, ",") + "}"}
}

func intArray(vs []int) types.Datum {
	if vs == nil {
		return types.NullOf(tInt4Arr)
	}
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return int64Array(tInt4Arr, out)
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// quote is s as a JSON string.
func quote(s string) string {
	var b strings.Builder
	types.AppendJSONString(&b, s)
	return b.String()
}
