package icetable

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// InitialDefaultsProperty holds the value that rows written before a
// column was added read in it: ALTER TABLE … ADD COLUMN … DEFAULT d gives
// the rows already there d, as PostgreSQL does. Iceberg has this as a
// field's initial-default only from format v3 on, and Loam's tables are
// v2, so Loam keeps it here, a JSON object from field ID to the value
// (a one-row Arrow IPC stream, base64), and fills it in where a data file
// or a write-log batch lacks the field. Engines other than Loam read NULL
// there.
const InitialDefaultsProperty = "loam.initial-defaults"

// InitialDefaults are a table's initial defaults by field ID, each a
// one-row array in the field's Iceberg Arrow type.
type InitialDefaults map[int]arrow.Array

// InitialDefaultsOf reads a table's InitialDefaultsProperty.
func InitialDefaultsOf(props iceberg.Properties) (InitialDefaults, error) {
	v := props[InitialDefaultsProperty]
	if v == "" {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return nil, fmt.Errorf("table property %s: %w", InitialDefaultsProperty, err)
	}
	out := InitialDefaults{}
	for k, enc := range m {
		id, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("table property %s: field %q", InitialDefaultsProperty, k)
		}
		a, err := decodeValue(enc)
		if err != nil {
			return nil, fmt.Errorf("table property %s: field %d: %w", InitialDefaultsProperty, id, err)
		}
		out[id] = a
	}
	return out, nil
}

// WithInitialDefault is the InitialDefaultsProperty value prop with field
// id's initial default set to the one-row array v (nil removes it).
func WithInitialDefault(prop string, id int, v arrow.Array) (string, error) {
	m := map[string]string{}
	if prop != "" {
		if err := json.Unmarshal([]byte(prop), &m); err != nil {
			return "", fmt.Errorf("table property %s: %w", InitialDefaultsProperty, err)
		}
	}
	key := strconv.Itoa(id)
	if v == nil {
		delete(m, key)
	} else {
		enc, err := encodeValue(v)
		if err != nil {
			return "", err
		}
		m[key] = enc
	}
	if len(m) == 0 {
		return "", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func encodeValue(v arrow.Array) (string, error) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "v", Type: v.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{v}, int64(v.Len()))
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(sc))
	if err := w.Write(rec); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

func decodeValue(enc string) (arrow.Array, error) {
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, err
	}
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	if !r.Next() || r.RecordBatch().NumCols() != 1 || r.RecordBatch().NumRows() != 1 {
		return nil, fmt.Errorf("not a one-value stream")
	}
	a := r.RecordBatch().Column(0)
	a.Retain()
	return a, nil
}

// column is n rows of field id's initial default in type dt: NULL when it
// has none.
func (d InitialDefaults) column(id int, dt arrow.DataType, n int) (arrow.Array, error) {
	v, ok := d[id]
	if !ok {
		return array.MakeArrayOfNull(memory.DefaultAllocator, dt, n), nil
	}
	if !arrow.TypeEqual(v.DataType(), dt) {
		// The column was promoted (int to bigint, …) since it was added.
		c, err := compute.CastArray(context.Background(), v, compute.SafeCastOptions(dt))
		if err != nil {
			return nil, err
		}
		defer c.Release()
		v = c
	}
	a, err := repeatValue(v, n)
	if err != nil {
		return nil, err
	}
	return relabel(a, dt), nil
}

// relabel gives a the type dt when they differ only in field metadata
// (a list element's field ID): a batch's arrays must carry the IDs of the
// schema it is written under.
func relabel(a arrow.Array, dt arrow.DataType) arrow.Array {
	if arrow.TypeEqual(a.DataType(), dt, arrow.CheckMetadata()) {
		return a
	}
	defer a.Release()
	d := a.Data()
	nd := array.NewData(dt, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// repeatValue is n copies of the one value of v.
func repeatValue(v arrow.Array, n int) (arrow.Array, error) {
	if ext, ok := v.(array.ExtensionArray); ok {
		// Scalars of extension types (uuid) cannot be repeated: their
		// storage can.
		st, err := repeatValue(ext.Storage(), n)
		if err != nil {
			return nil, err
		}
		defer st.Release()
		return array.NewExtensionArrayWithStorage(ext.ExtensionType(), st), nil
	}
	if s, err := scalar.GetScalar(v, 0); err == nil {
		if a, err := scalar.MakeArrayFromScalar(s, n, memory.DefaultAllocator); err == nil {
			return a, nil
		}
	}
	// Any other type: doubling by concatenation.
	if n == 0 {
		return array.NewSlice(v, 0, 0), nil
	}
	cur := v
	cur.Retain()
	for cur.Len() < n {
		next, err := array.Concatenate([]arrow.Array{cur, cur}, memory.DefaultAllocator)
		cur.Release()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	defer cur.Release()
	return array.NewSlice(cur, 0, int64(n)), nil
}

// CheckInitialDefault says whether v, a one-row array, can serve as an
// initial default (be repeated for the rows of a file), before it is
// stored.
func CheckInitialDefault(v arrow.Array) error {
	a, err := repeatValue(v, 2)
	if err != nil {
		return fmt.Errorf("a default of type %s cannot be given to existing rows: %w", v.DataType(), err)
	}
	a.Release()
	return nil
}

// fillBatches replaces, in batches read from a data file, the columns
// the file has no values of (it was written before the field was added)
// by the field's initial default. Whether the file has a field is told by
// its column statistics, which iceberg-go's writer records for every
// column; a file without any is left as read.
func fillBatches(t *table.Table, file iceberg.DataFile, d InitialDefaults, recs []arrow.RecordBatch) error {
	counts := file.ValueCounts()
	if len(counts) == 0 {
		return nil
	}
	sc := t.Schema()
	for r, rec := range recs {
		var cols []arrow.Array
		for i, af := range rec.Schema().Fields() {
			f, ok := sc.FindFieldByName(af.Name)
			if !ok {
				continue
			}
			if _, has := d[f.ID]; !has {
				continue
			}
			if written(counts, f) {
				continue
			}
			c, err := d.column(f.ID, af.Type, int(rec.NumRows()))
			if err != nil {
				return err
			}
			if cols == nil {
				cols = slices.Clone(rec.Columns())
				for _, x := range cols {
					x.Retain()
				}
			}
			cols[i].Release()
			cols[i] = c
		}
		if cols == nil {
			continue
		}
		recs[r] = array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
		rec.Release()
		for _, c := range cols {
			c.Release()
		}
	}
	return nil
}

// cacheKeys are the column cache's keys of the named fields: field ID and
// type.
func cacheKeys(sc *iceberg.Schema, fields []string) []string {
	out := make([]string, len(fields))
	for i, name := range fields {
		if f, ok := sc.FindFieldByName(name); ok {
			out[i] = strconv.Itoa(f.ID) + ":" + f.Type.String()
		} else {
			out[i] = "?" + name
		}
	}
	return out
}

// FillInitialDefaults gives the rows recs, read from data file file of
// table t with iceberg-go's own scan, the initial defaults of the columns
// the file predates (see InitialDefaultsProperty); Store.Scan does this
// itself. Whatever rewrites data files (compaction) must do it before
// writing the rows again: the new file has the field, so its NULLs would
// stay NULL. Batches are replaced in place.
func FillInitialDefaults(t *table.Table, file iceberg.DataFile, recs []arrow.RecordBatch) error {
	d, err := InitialDefaultsOf(t.Properties())
	if err != nil || len(d) == 0 {
		return err
	}
	return fillBatches(t, file, d, recs)
}

// written says whether a data file with value counts counts holds field
// f: the counts are kept by leaf column, so an array's by its element.
func written(counts map[int]int64, f iceberg.NestedField) bool {
	if _, ok := counts[f.ID]; ok {
		return true
	}
	if l, ok := f.Type.(*iceberg.ListType); ok {
		_, ok := counts[l.ElementID]
		return ok
	}
	return false
}
