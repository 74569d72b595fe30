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

// $snapshots, $history and $refs are iceberg-go's own inspect tables,
// whose columns are already Trino's; only their values change form.

func snapshotRows(ctx context.Context, tbl *table.Table) ([][]types.Datum, error) {
	return inspectRows(ctx, tbl, "snapshots", table.InspectTable.Snapshots)
}

func historyRows(ctx context.Context, tbl *table.Table) ([][]types.Datum, error) {
	return inspectRows(ctx, tbl, "history", table.InspectTable.History)
}

func refRows(ctx context.Context, tbl *table.Table) ([][]types.Datum, error) {
	return inspectRows(ctx, tbl, "refs", table.InspectTable.Refs)
}

// inspectRows reads one of iceberg-go's inspect tables into Datums of the
// metadata table's columns, matched by name.
func inspectRows(ctx context.Context, tbl *table.Table, kind string,
	read func(table.InspectTable, context.Context) (array.RecordReader, error)) ([][]types.Datum, error) {
	cols, err := Columns(kind, tbl)
	if err != nil {
		return nil, err
	}
	rr, err := read(tbl.Inspect(), ctx)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var rows [][]types.Datum
	for rr.Next() {
		rec := rr.RecordBatch()
		idx := make([]int, len(cols))
		for i, c := range cols {
			found := rec.Schema().FieldIndices(c.Name)
			if len(found) != 1 {
				return nil, fmt.Errorf("iceberg-go's %s table has no column %s", kind, c.Name)
			}
			idx[i] = found[0]
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]types.Datum, len(cols))
			for i, c := range cols {
				if row[i], err = arrowDatum(rec.Column(idx[i]), r, c.T); err != nil {
					return nil, fmt.Errorf("%s.%s: %w", kind, c.Name, err)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, rr.Err()
}

// arrowDatum is row r of a flat inspect column as a Datum of type t; a
// map of strings becomes a jsonb object.
func arrowDatum(a arrow.Array, r int, t types.T) (types.Datum, error) {
	if a.IsNull(r) {
		return types.NullOf(t), nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return types.Int(t, a.Value(r)), nil
	case *array.Int32:
		return types.Int(t, int64(a.Value(r))), nil
	case *array.Boolean:
		return types.BoolDatum(a.Value(r)), nil
	case *array.String:
		return types.Datum{T: t, S: a.Value(r)}, nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return types.Int(t, int64(a.Value(r))*int64(unit.Multiplier()/arrow.Microsecond.Multiplier())), nil
	case *array.Map:
		keys, ok1 := a.Keys().(*array.String)
		vals, ok2 := a.Items().(*array.String)
		if !ok1 || !ok2 {
			break
		}
		start, end := a.ValueOffsets(r)
		obj := newObject()
		for i := start; i < end; i++ {
			if vals.IsNull(int(i)) {
				obj.raw(keys.Value(int(i)), "null")
			} else {
				obj.str(keys.Value(int(i)), vals.Value(int(i)))
			}
		}
		return obj.datum()
	}
	return types.Datum{}, fmt.Errorf("unexpected %s", a.DataType())
}

// object builds a jsonb object.
type object struct {
	b strings.Builder
	n int
}

func newObject() *object { return &object{} }

func (o *object) key(k string) {
	if o.n == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteString(", ")
	}
	o.n++
	types.AppendJSONString(&o.b, k)
	o.b.WriteString(": ")
}

// raw adds a member whose value is JSON text.
func (o *object) raw(k, v string) {
	o.key(k)
	o.b.WriteString(v)
}

// str adds a member whose value is a string.
func (o *object) str(k, v string) {
	o.key(k)
	types.AppendJSONString(&o.b, v)
}

func (o *object) String() string {
	if o.n == 0 {
		return "{}"
	}
	return o.b.String() + "}"
}

// datum is the object as a jsonb value, its keys in jsonb's order.
func (o *object) datum() (types.Datum, error) {
	s, err := types.NormalizeJSONB(o.String())
	if err != nil {
		return types.Datum{}, err
	}
	return types.Datum{T: types.TJSONB, S: s}, nil
}
