package plan

import (
	"strconv"

	"github.com/apache/iceberg-go/table"
)

// thetaBlob is the Puffin blob type of a column's distinct-count sketch
// (Iceberg's puffin spec): its "ndv" property is the estimate.
const thetaBlob = "apache-datasketches-theta-v1"

// tableNDV is each column's distinct count where statistics know it, 0
// where not: a one-column primary key has one per row; the table's
// statistics files (Puffin theta sketches, which Loam's link and
// compaction write and other engines may) give the others. Statistics of
// an older snapshot still serve: a distinct count changes slowly.
func tableNDV(ti *TableInfo, rows int64) []float64 {
	out := make([]float64, len(ti.Columns))
	if ti.Table == nil {
		return out
	}
	meta := ti.Table.Metadata()
	byID := map[int]float64{}
	var newest int64 = -1
	for sf := range meta.Statistics() {
		if !statsUsable(meta, sf, newest) {
			continue
		}
		newest = sf.SnapshotID
		clear(byID)
		for _, b := range sf.BlobMetadata {
			if string(b.Type) != thetaBlob || len(b.Fields) != 1 {
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

// statsUsable reports whether sf is for a snapshot of the table's current
// history newer than the one (newest) taken so far.
func statsUsable(meta table.Metadata, sf table.StatisticsFile, newest int64) bool {
	snap := meta.SnapshotByID(sf.SnapshotID)
	if snap == nil {
		return false
	}
	if newest < 0 {
		return true
	}
	old := meta.SnapshotByID(newest)
	return old == nil || snap.SequenceNumber > old.SequenceNumber
}

// ndvOf is the distinct count of the item's k-th column, 0 when unknown.
func (it *fromItem) ndvOf(k int) float64 {
	if k < 0 || k >= len(it.ndv) {
		return 0
	}
	return it.ndv[k]
}
