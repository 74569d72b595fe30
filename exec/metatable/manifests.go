package metatable

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/types"
)

// manifestRows are the manifests of the current snapshot, data and delete
// manifests both, as Trino lists them. The row counts come from the
// manifest list (iceberg-go's inspect table lacks them); the partition
// summaries, with bounds in human-readable form, from iceberg-go's
// inspect table.
func manifestRows(ctx context.Context, tbl *table.Table) ([][]types.Datum, error) {
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
	summaries, err := partitionSummaries(ctx, tbl)
	if err != nil {
		return nil, err
	}
	rows := make([][]types.Datum, 0, len(manifests))
	for _, m := range manifests {
		sum, ok := summaries[m.FilePath()]
		if !ok {
			sum = types.Datum{T: types.TJSONB, S: "[]"}
		}
		rows = append(rows, []types.Datum{
			{T: tVarchar, S: m.FilePath()},
			types.Int(types.TInt8, m.Length()),
			types.Int(types.TInt4, int64(m.PartitionSpecID())),
			types.Int(types.TInt8, m.SnapshotID()),
			count(types.TInt4, int64(m.AddedDataFiles())),
			count(types.TInt8, m.AddedRows()),
			count(types.TInt4, int64(m.ExistingDataFiles())),
			count(types.TInt8, m.ExistingRows()),
			count(types.TInt4, int64(m.DeletedDataFiles())),
			count(types.TInt8, m.DeletedRows()),
			sum,
		})
	}
	return rows, nil
}

// count is a manifest-list count; a v1 list may lack it (-1): NULL.
func count(t types.T, n int64) types.Datum {
	if n < 0 {
		return types.NullOf(t)
	}
	return types.Int(t, n)
}

// partitionSummaries maps each current manifest's path to its partition
// summaries: a jsonb array of {contains_null, contains_nan, lower_bound,
// upper_bound}, Trino's array(row(…)).
func partitionSummaries(ctx context.Context, tbl *table.Table) (map[string]types.Datum, error) {
	rr, err := tbl.Inspect().Manifests(ctx)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	out := map[string]types.Datum{}
	for rr.Next() {
		rec := rr.RecordBatch()
		pi, si := rec.Schema().FieldIndices("path"), rec.Schema().FieldIndices("partition_summaries")
		if len(pi) != 1 || len(si) != 1 {
			return nil, fmt.Errorf("iceberg-go's manifests table lacks path or partition_summaries")
		}
		paths, ok1 := rec.Column(pi[0]).(*array.String)
		lists, ok2 := rec.Column(si[0]).(*array.List)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("iceberg-go's manifests table has unexpected column types")
		}
		elems, ok := lists.ListValues().(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("iceberg-go's partition_summaries are not structs")
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var b strings.Builder
			b.WriteByte('[')
			start, end := lists.ValueOffsets(r)
			for i := start; i < end; i++ {
				if i > start {
					b.WriteString(", ")
				}
				b.WriteString(structJSON(elems, int(i)))
			}
			b.WriteByte(']')
			s, err := types.NormalizeJSONB(b.String())
			if err != nil {
				return nil, err
			}
			out[paths.Value(r)] = types.Datum{T: types.TJSONB, S: s}
		}
	}
	return out, rr.Err()
}

// structJSON is row i of a struct of booleans and strings as a JSON object.
func structJSON(s *array.Struct, i int) string {
	obj := newObject()
	for j, f := range s.DataType().(*arrow.StructType).Fields() {
		switch col := s.Field(j).(type) {
		case *array.Boolean:
			switch {
			case col.IsNull(i):
				obj.raw(f.Name, "null")
			case col.Value(i):
				obj.raw(f.Name, "true")
			default:
				obj.raw(f.Name, "false")
			}
		case *array.String:
			if col.IsNull(i) {
				obj.raw(f.Name, "null")
			} else {
				obj.str(f.Name, col.Value(i))
			}
		default:
			obj.raw(f.Name, "null")
		}
	}
	return obj.String()
}
