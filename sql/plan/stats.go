package plan

import (
	"strconv"

	"github.com/apache/iceberg-go/puffin"
	"github.com/loamdb/loam/storage/icetable"
)

// tableNDV is each column's distinct count where statistics know it, 0
// where not: a one-column primary key has one per row; the table's
// statistics files (Puffin theta sketches, which Loam's link and
// ANALYZE write and other engines may) give the others, from the
// newest snapshot that has them (icetable.NewestStatistics).
func tableNDV(ti *TableInfo, rows int64) []float64 {
	out := make([]float64, len(ti.Columns))
	if ti.Table == nil {
		return out
	}
	byID := map[int]float64{}
	if sf := icetable.NewestStatistics(ti.Table); sf != nil {
		for _, b := range sf.BlobMetadata {
			// A column's distinct-count sketch: its "ndv" property is the estimate.
			if string(b.Type) != string(puffin.BlobTypeDataSketchesTheta) || len(b.Fields) != 1 {
				continue
			}
			if v, err := strconv.ParseFloat(b.Properties["ndv"], 64); err == nil && v > 0 {
				byID[int(b.Fields[0])] = v
			}
		}
	}
	sc := ti.Table.Schema()
	for i, c := range ti.Columns {
		f, ok := sc.FindFieldByName(c)
		if !ok {
			continue
		}
		if v := byID[f.ID]; v > 0 {
			out[i] = v
			if rows > 0 {
				out[i] = min(v, float64(rows))
			}
		}
		if len(sc.IdentifierFieldIDs) == 1 && sc.IdentifierFieldIDs[0] == f.ID && rows > 0 {
			out[i] = float64(rows)
		}
	}
	return out
}

// ndvOf is the distinct count of the item's k-th column, 0 when unknown.
func (it *fromItem) ndvOf(k int) float64 {
	if k < 0 || k >= len(it.ndv) {
		return 0
	}
	return it.ndv[k]
}
