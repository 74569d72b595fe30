package metatable

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// partField is one partition field of any of the table's specs: Trino's
// partition row has a field for every one of them, NULL where a file's
// spec lacks it.
type partField struct {
	id        int
	name      string
	transform iceberg.Transform
	result    iceberg.Type // the partition value's type
}

// partitionFields are the partition fields of all the table's specs, by
// field ID, ignoring void (dropped) fields.
func partitionFields(tbl *table.Table) []partField {
	md := tbl.Metadata()
	sc := md.CurrentSchema()
	seen := map[int]bool{}
	var out []partField
	for _, spec := range md.PartitionSpecs() {
		for _, f := range spec.Fields() {
			if seen[f.FieldID] {
				continue
			}
			if _, void := f.Transform.(iceberg.VoidTransform); void {
				continue
			}
			seen[f.FieldID] = true
			var result iceberg.Type = iceberg.PrimitiveTypes.String
			if src, ok := sc.FindTypeByID(f.SourceID()); ok {
				result = f.Transform.ResultType(src)
			}
			out = append(out, partField{id: f.FieldID, name: f.Name, transform: f.Transform, result: result})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// dataColumns are the top-level primitive columns that are not the
// source of an identity partition field of the current spec: those
// $partitions summarizes in data, as Trino does.
func dataColumns(tbl *table.Table) []iceberg.NestedField {
	identity := map[int]bool{}
	spec := tbl.Spec()
	for _, f := range spec.Fields() {
		if _, ok := f.Transform.(iceberg.IdentityTransform); ok {
			identity[f.SourceID()] = true
		}
	}
	var out []iceberg.NestedField
	for _, f := range tbl.Schema().Fields() {
		if _, prim := f.Type.(iceberg.PrimitiveType); prim && !identity[f.ID] {
			out = append(out, f)
		}
	}
	return out
}

// liveFiles are the data and delete files of the current snapshot, in
// manifest order.
func liveFiles(ctx context.Context, tbl *table.Table) ([]iceberg.DataFile, error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return nil, nil
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, err
	}
	manifests, err := snap.Manifests(fs)
	if err != nil {
		return nil, err
	}
	var out []iceberg.DataFile
	for _, m := range manifests {
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				return nil, fmt.Errorf("manifest %s: %w", m.FilePath(), err)
			}
			out = append(out, e.DataFile())
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// jsonValue is a partition value or bound of type t as JSON: numbers and
// booleans as themselves, everything else as its human-readable text
// (dates, timestamps, strings), as Iceberg's transforms print it.
func jsonValue(t iceberg.Type, tr iceberg.Transform, v any) string {
	if v == nil {
		return "null"
	}
	switch t.(type) {
	case iceberg.Int32Type, iceberg.Int64Type, iceberg.Float32Type, iceberg.Float64Type:
		switch n := v.(type) {
		case int32:
			return strconv.FormatInt(int64(n), 10)
		case int64:
			return strconv.FormatInt(n, 10)
		case int:
			return strconv.Itoa(n)
		case float32:
			return jsonFloat(float64(n), 32)
		case float64:
			return jsonFloat(n, 64)
		}
	case iceberg.BooleanType:
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b)
		}
	}
	return quote(tr.ToHumanStrType(t, v))
}

// jsonFloat prints a float as a JSON number; NaN and infinities, which
// JSON lacks, as strings.
func jsonFloat(f float64, bits int) string {
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if _, err := strconv.ParseFloat(s, 64); err != nil || s == "NaN" || s == "+Inf" || s == "-Inf" {
		return quote(s)
	}
	return s
}
