package icetable

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/puffin"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
	"github.com/loamdb/loam/storage/sketch"

	iceio "github.com/apache/iceberg-go/io"
)

// Sketches are theta sketches of columns' distinct values by field id:
// the table statistics Loam keeps in Puffin files (Iceberg's statistics
// files), read by its planner and by other engines (Trino, Spark) for
// join ordering.
type Sketches map[int]*sketch.Theta

// AddBatch adds rec's values, its columns matched to t's fields by name.
func (sk Sketches) AddBatch(t *table.Table, rec arrow.RecordBatch) {
	sc := t.Schema()
	for i, f := range rec.Schema().Fields() {
		field, ok := sc.FindFieldByName(f.Name)
		if !ok {
			continue
		}
		s := sk[field.ID]
		if s == nil {
			s = sketch.NewTheta(sketch.DefaultK)
		}
		if s.AddColumn(rec.Column(i)) {
			sk[field.ID] = s
		}
	}
}

// NewestStatistics is the statistics file of t's newest snapshot that has
// one, or nil: statistics of an older snapshot still serve, as a distinct
// count changes slowly.
func NewestStatistics(t *table.Table) *table.StatisticsFile {
	meta := t.Metadata()
	var best *table.StatisticsFile
	var bestSeq int64 = -1
	for sf := range meta.Statistics() {
		snap := meta.SnapshotByID(sf.SnapshotID)
		if snap == nil || snap.SequenceNumber <= bestSeq {
			continue
		}
		sf := sf
		best, bestSeq = &sf, snap.SequenceNumber
	}
	return best
}

// readSketches reads the theta sketches of a statistics file.
func readSketches(ctx context.Context, t *table.Table, sf *table.StatisticsFile) (Sketches, error) {
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, err
	}
	f, err := fs.Open(sf.StatisticsPath)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", sf.StatisticsPath, err)
	}
	defer f.Close()
	r, err := puffin.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sf.StatisticsPath, err)
	}
	out := Sketches{}
	for _, b := range r.Blobs() {
		if b.Type != puffin.BlobTypeDataSketchesTheta || len(b.Fields) != 1 {
			continue
		}
		raw, err := r.ReadBlobByMetadata(b)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", sf.StatisticsPath, err)
		}
		s, err := sketch.UnmarshalTheta(raw, sketch.DefaultK)
		if err != nil {
			return nil, fmt.Errorf("read %s: field %d: %w", sf.StatisticsPath, b.Fields[0], err)
		}
		out[int(b.Fields[0])] = s
	}
	return out, nil
}

// AddStatistics merges sketches of rec, the rows t's current snapshot
// added, into the table's newest statistics and writes them as the
// statistics of that snapshot, replacing the older file. With no older
// statistics it writes them only when the snapshot before held no rows:
// otherwise the sketches would miss the rows before (ANALYZE computes
// them whole). Statistics are informational: a caller logs an error and
// goes on.
func (s *Store) AddStatistics(ctx context.Context, t *table.Table, rec arrow.RecordBatch) (*table.Table, error) {
	snap := t.CurrentSnapshot()
	if snap == nil || rec == nil || rec.NumRows() == 0 {
		return t, nil
	}
	sk := Sketches{}
	if old := NewestStatistics(t); old != nil {
		prev, err := readSketches(ctx, t, old)
		if err != nil {
			return t, err
		}
		sk = prev
	} else if snapRows(snap)-rec.NumRows() > 0 {
		return t, nil
	}
	sk.AddBatch(t, rec)
	return s.WriteStatistics(ctx, t, sk)
}

// WriteStatistics writes sk as a Puffin file and commits it as the
// statistics of t's current snapshot, removing the entries of older
// snapshots (whose files orphan removal then deletes). The commit is
// computed on the catalog's current state, which may be ahead of t.
func (s *Store) WriteStatistics(ctx context.Context, t *table.Table, sk Sketches) (*table.Table, error) {
	snap := t.CurrentSnapshot()
	if snap == nil || len(sk) == 0 {
		return t, nil
	}
	var buf bytes.Buffer
	w, err := puffin.NewWriter(&buf)
	if err != nil {
		return t, err
	}
	if err := w.SetCreatedBy("Loam"); err != nil {
		return t, err
	}
	var blobs []table.BlobMetadata
	for _, id := range slices.Sorted(maps.Keys(sk)) {
		raw, err := sk[id].MarshalBinary()
		if err != nil {
			return t, err
		}
		props := map[string]string{"ndv": strconv.FormatInt(int64(sk[id].Estimate()+0.5), 10)}
		in := puffin.BlobMetadataInput{Type: puffin.BlobTypeDataSketchesTheta, SnapshotID: snap.SnapshotID,
			SequenceNumber: snap.SequenceNumber, Fields: []int32{int32(id)}, Properties: props}
		if _, err := w.AddBlob(in, raw); err != nil {
			return t, err
		}
		blobs = append(blobs, table.BlobMetadata{Type: table.BlobType(in.Type), SnapshotID: in.SnapshotID,
			SequenceNumber: in.SequenceNumber, Fields: in.Fields, Properties: props})
	}
	blobEnd := int64(buf.Len())
	if err := w.Finish(); err != nil {
		return t, err
	}
	loc, err := t.LocationProvider()
	if err != nil {
		return t, err
	}
	path := loc.NewMetadataLocation(fmt.Sprintf("%d-%s.stats", snap.SnapshotID, uuid.NewString()))
	if err := writeWhole(ctx, t, path, buf.Bytes()); err != nil {
		return t, err
	}
	sf := table.StatisticsFile{SnapshotID: snap.SnapshotID, StatisticsPath: path,
		FileSizeInBytes: int64(buf.Len()), FileFooterSizeInBytes: int64(buf.Len()) - blobEnd, BlobMetadata: blobs}
	return s.Update(ctx, t, func(cur *table.Table) ([]table.Requirement, []table.Update, error) {
		meta := cur.Metadata()
		if meta.SnapshotByID(sf.SnapshotID) == nil {
			return nil, nil, nil // expired meanwhile
		}
		ups := []table.Update{table.NewSetStatisticsUpdate(sf)}
		for old := range meta.Statistics() {
			// Statistics of a newer snapshot (the link's, while ANALYZE
			// read) stay.
			if o := meta.SnapshotByID(old.SnapshotID); old.SnapshotID != sf.SnapshotID && (o == nil || o.SequenceNumber < snap.SequenceNumber) {
				ups = append(ups, table.NewRemoveStatisticsUpdate(old.SnapshotID))
			}
		}
		return nil, ups, nil
	})
}

// writeWhole writes b as the file at path of t's warehouse.
func writeWhole(ctx context.Context, t *table.Table, path string, b []byte) error {
	fs, err := t.FS(ctx)
	if err != nil {
		return err
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return fmt.Errorf("the warehouse of %s cannot be written", t.Identifier())
	}
	out, err := wfs.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := out.Write(b); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// snapRows is the total-records of a snapshot's summary, 0 when absent.
func snapRows(snap *table.Snapshot) int64 {
	if snap.Summary == nil {
		return 0
	}
	n, _ := strconv.ParseInt(snap.Summary.Properties["total-records"], 10, 64)
	return n
}
