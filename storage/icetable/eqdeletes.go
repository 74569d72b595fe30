package icetable

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// eqDeletes are the equality deletes that apply to one data file, by the
// set of field IDs they compare: the keys they delete. A row is deleted
// when its values of one set's fields equal a key of that set; as in
// Iceberg's spec, a NULL equals a NULL here. The planner attaches to a
// file only the equality deletes of later sequence numbers.
type eqDeletes struct {
	groups []eqGroup
}

type eqGroup struct {
	names []string // the fields' names in the table's current schema
	keys  map[string]struct{}
}

// columns are the table columns the deletes compare.
func (e *eqDeletes) columns() []string {
	var out []string
	for _, g := range e.groups {
		for _, n := range g.names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// readEqDeletes reads the equality delete files of task.
func readEqDeletes(ctx context.Context, t *table.Table, task table.FileScanTask) (*eqDeletes, error) {
	if len(task.EqualityDeleteFiles) == 0 {
		return nil, nil
	}
	sc := t.Schema()
	out := &eqDeletes{}
	byIDs := map[string]int{}
	for _, d := range task.EqualityDeleteFiles {
		ids := slices.Sorted(slices.Values(d.EqualityFieldIDs()))
		if len(ids) == 0 {
			return nil, fmt.Errorf("equality delete file %s names no fields", d.FilePath())
		}
		sig := fmt.Sprint(ids)
		gi, ok := byIDs[sig]
		if !ok {
			g := eqGroup{keys: map[string]struct{}{}}
			for _, id := range ids {
				name, ok := sc.FindColumnName(id)
				if !ok {
					return nil, fmt.Errorf("equality delete file %s compares field %d, which the table no longer has", d.FilePath(), id)
				}
				g.names = append(g.names, name)
			}
			gi = len(out.groups)
			byIDs[sig] = gi
			out.groups = append(out.groups, g)
		}
		if err := readEqKeys(ctx, t, d, ids, out.groups[gi].keys); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readEqKeys adds the keys of the equality delete file d, over the fields
// ids, to keys. The file's columns are found by their Parquet field IDs.
func readEqKeys(ctx context.Context, t *table.Table, d iceberg.DataFile, ids []int, keys map[string]struct{}) error {
	tbl, err := readDeleteFile(ctx, t, d)
	if err != nil {
		return err
	}
	defer tbl.Release()
	cols := make([]int, len(ids))
	for i, id := range ids {
		cols[i] = -1
		for c, fld := range tbl.Schema().Fields() {
			if v, ok := fld.Metadata.GetValue("PARQUET:field_id"); ok && v == strconv.Itoa(id) {
				cols[i] = c
			}
		}
		if cols[i] < 0 {
			return fmt.Errorf("equality delete file %s lacks field %d", d.FilePath(), id)
		}
	}
	rr := array.NewTableReader(tbl, 64<<10)
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		arrs := make([]arrow.Array, len(cols))
		for i, c := range cols {
			arrs[i] = rec.Column(c)
		}
		for row := 0; row < int(rec.NumRows()); row++ {
			keys[eqKey(arrs, row)] = struct{}{}
		}
	}
	return nil
}

// eqKey encodes one row's values of arrs: each value's text, length
// prefixed, or a mark for NULL.
func eqKey(arrs []arrow.Array, row int) string {
	var b []byte
	for _, a := range arrs {
		if a.IsNull(row) {
			b = append(b, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		s := a.ValueStr(row)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return string(b)
}

// mark sets in del the positions (first + index) of rec's rows that the
// equality deletes delete; rec holds the compared columns by name.
func (e *eqDeletes) mark(rec arrow.RecordBatch, first int64, del *dv.RoaringPositionBitmap) error {
	for _, g := range e.groups {
		arrs := make([]arrow.Array, len(g.names))
		for i, n := range g.names {
			idx := rec.Schema().FieldIndices(n)
			if len(idx) == 0 {
				return fmt.Errorf("equality deletes compare %s, which the read lacks", n)
			}
			arrs[i] = rec.Column(idx[0])
		}
		for row := 0; row < int(rec.NumRows()); row++ {
			if _, ok := g.keys[eqKey(arrs, row)]; ok {
				del.Set(uint64(first + int64(row)))
			}
		}
	}
	return nil
}
