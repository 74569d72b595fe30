// Package metatable generates the rows of a table's Iceberg metadata
// tables, "t$snapshots", "t$history", "t$files", "t$partitions",
// "t$manifests" and "t$refs", with the column names and types of Trino's
// Iceberg connector. Trino's map and row types become jsonb, its arrays of
// integers PostgreSQL arrays (docs/metadata-tables.md has the mapping).
//
// The rows describe one pinned *table.Table: the committed Iceberg
// metadata a query reads. Rows still only in the write log belong to no
// snapshot and appear after the next link commit or CHECKPOINT.
package metatable

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/types"
)

// Column is one column of a metadata table.
type Column struct {
	Name string
	T    types.T
}

// Kinds are the metadata tables, by the suffix after '$'.
var Kinds = []string{"snapshots", "history", "files", "partitions", "manifests", "refs"}

// Known reports whether kind names a metadata table.
func Known(kind string) bool {
	for _, k := range Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Split divides a relation name "t$kind" into the table's name and the
// kind; ok is false when the name has no '$' suffix naming a metadata
// table.
func Split(name string) (base, kind string, ok bool) {
	i := strings.LastIndexByte(name, '$')
	if i <= 0 || !Known(name[i+1:]) {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

var (
	tVarchar = types.Of(types.Varchar)
	tInt8Arr = types.ArrayOf(types.Int8)
	tInt4Arr = types.ArrayOf(types.Int4)
)

// Columns are the columns of the metadata table kind of tbl. The
// partition columns of $files and $partitions exist only for a
// partitioned table, and $partitions' data only when some column is not
// an identity partition source, as in Trino.
func Columns(kind string, tbl *table.Table) ([]Column, error) {
	switch kind {
	case "snapshots":
		return []Column{
			{"committed_at", types.TTimestampTZ},
			{"snapshot_id", types.TInt8},
			{"parent_id", types.TInt8},
			{"operation", tVarchar},
			{"manifest_list", tVarchar},
			{"summary", types.TJSONB},
		}, nil
	case "history":
		return []Column{
			{"made_current_at", types.TTimestampTZ},
			{"snapshot_id", types.TInt8},
			{"parent_id", types.TInt8},
			{"is_current_ancestor", types.TBool},
		}, nil
	case "refs":
		return []Column{
			{"name", tVarchar},
			{"type", tVarchar},
			{"snapshot_id", types.TInt8},
			{"max_reference_age_in_ms", types.TInt8},
			{"min_snapshots_to_keep", types.TInt4},
			{"max_snapshot_age_in_ms", types.TInt8},
		}, nil
	case "manifests":
		return []Column{
			{"path", tVarchar},
			{"length", types.TInt8},
			{"partition_spec_id", types.TInt4},
			{"added_snapshot_id", types.TInt8},
			{"added_data_files_count", types.TInt4},
			{"added_rows_count", types.TInt8},
			{"existing_data_files_count", types.TInt4},
			{"existing_rows_count", types.TInt8},
			{"deleted_data_files_count", types.TInt4},
			{"deleted_rows_count", types.TInt8},
			{"partition_summaries", types.TJSONB},
		}, nil
	case "files":
		cols := []Column{
			{"content", types.TInt4},
			{"file_path", tVarchar},
			{"file_format", tVarchar},
			{"spec_id", types.TInt4},
		}
		if len(partitionFields(tbl)) > 0 {
			cols = append(cols, Column{"partition", types.TJSONB})
		}
		return append(cols,
			Column{"record_count", types.TInt8},
			Column{"file_size_in_bytes", types.TInt8},
			Column{"column_sizes", types.TJSONB},
			Column{"value_counts", types.TJSONB},
			Column{"null_value_counts", types.TJSONB},
			Column{"nan_value_counts", types.TJSONB},
			Column{"lower_bounds", types.TJSONB},
			Column{"upper_bounds", types.TJSONB},
			Column{"key_metadata", types.TBytea},
			Column{"split_offsets", tInt8Arr},
			Column{"equality_ids", tInt4Arr},
			Column{"sort_order_id", types.TInt4},
			Column{"readable_metrics", types.TJSONB},
		), nil
	case "partitions":
		var cols []Column
		if len(partitionFields(tbl)) > 0 {
			cols = append(cols, Column{"partition", types.TJSONB})
		}
		cols = append(cols,
			Column{"record_count", types.TInt8},
			Column{"file_count", types.TInt8},
			Column{"total_size", types.TInt8},
		)
		if len(dataColumns(tbl)) > 0 {
			cols = append(cols, Column{"data", types.TJSONB})
		}
		return cols, nil
	}
	return nil, fmt.Errorf("no metadata table %q", kind)
}

// Rows generates the rows of the metadata table kind of tbl, a Datum per
// column of Columns(kind, tbl).
func Rows(ctx context.Context, kind string, tbl *table.Table) ([][]types.Datum, error) {
	var rows [][]types.Datum
	var err error
	switch kind {
	case "snapshots":
		rows, err = snapshotRows(ctx, tbl)
	case "history":
		rows, err = historyRows(ctx, tbl)
	case "refs":
		rows, err = refRows(ctx, tbl)
	case "manifests":
		rows, err = manifestRows(ctx, tbl)
	case "files":
		rows, err = fileRows(ctx, tbl)
	case "partitions":
		rows, err = partitionRows(ctx, tbl)
	default:
		return nil, fmt.Errorf("no metadata table %q", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the metadata of %s: %w", strings.Join(tbl.Identifier(), "."), err)
	}
	return rows, nil
}
