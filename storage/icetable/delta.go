package icetable

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// Deletes are row deletes in a snapshot's data files: each file's deleted
// positions, by path.
type Deletes map[string]*dv.RoaringPositionBitmap

// Delta commits rows (nil: none) and row deletes as one snapshot, a
// RowDelta: on a format-version 2 table the deletes are position delete
// files, on version 3 deletion vectors, each merged with the one its data
// file has, as the spec allows one a file. A data file all of whose rows
// are then deleted is dropped from the snapshot instead (a second
// snapshot of the same catalog commit). A lost race on the pointer is
// retried on the fresh table, whose files the deletes must still name.
func (s *Store) Delta(ctx context.Context, t *table.Table, rec arrow.RecordBatch, dels Deletes, props iceberg.Properties) (*table.Table, error) {
	if len(dels) == 0 {
		if rec == nil {
			return t, nil
		}
		return s.Append(ctx, t, rec, props)
	}
	var sorted arrow.RecordBatch
	if rec != nil && rec.NumRows() > 0 {
		var err error
		if sorted, err = SortByOrder(ctx, t, rec); err != nil {
			return nil, fmt.Errorf("delta %s: sort: %w", t.Identifier(), err)
		}
		defer sorted.Release()
	}
	nt, err := s.retryLostRace(ctx, t, func(t *table.Table) (*table.Table, error) {
		return s.deltaOnce(ctx, t, sorted, dels, props)
	})
	if err != nil {
		return nil, fmt.Errorf("delta %s: %w", t.Identifier(), err)
	}
	return nt, nil
}

func (s *Store) deltaOnce(ctx context.Context, t *table.Table, rec arrow.RecordBatch, dels Deletes, props iceberg.Properties) (*table.Table, error) {
	tasks, err := s.planFiles(ctx, t, iceberg.AlwaysTrue{}, nil)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	byPath := make(map[string]table.FileScanTask, len(tasks))
	for _, task := range tasks {
		byPath[task.File.FilePath()] = task
	}
	v3 := t.Metadata().Version() >= 3
	var drop, dropDels []iceberg.DataFile
	var delFiles, oldDVs []iceberg.DataFile
	var dvw *dv.DVWriter
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, err
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("the warehouse of %s cannot be written", t.Identifier())
	}
	for _, path := range slices.Sorted(maps.Keys(dels)) {
		task, ok := byPath[path]
		if !ok {
			return nil, fmt.Errorf("deletes name data file %s, which the snapshot does not hold", path)
		}
		del := dels[path]
		f := task.File
		// What the file's delete files delete already: with the new
		// deletes, all of its rows may be gone, and on v3 the new
		// deletion vector must hold the old one's positions. On v2 the
		// files are read only when their counts say the file may empty.
		merged := dv.NewRoaringPositionBitmap()
		merged.Or(del)
		if v3 || mayEmpty(task, del) {
			old, _, err := positionDeleted(ctx, t, task)
			if err != nil {
				return nil, err
			}
			if old != nil {
				merged.Or(old)
			}
		}
		if merged.Cardinality() >= f.Count() {
			drop = append(drop, f)
			dropDels = append(dropDels, deletesOfOnly(task)...)
			continue
		}
		if !v3 {
			df, err := writePositionDeletes(ctx, t, wfs, f, del)
			if err != nil {
				return nil, err
			}
			delFiles = append(delFiles, df)
			continue
		}
		// iceberg-go plans a v3 file's deletion vector (at most one)
		// apart from its position delete files.
		var old iceberg.DataFile
		if len(task.DeletionVectorFiles) > 0 {
			old = task.DeletionVectorFiles[0]
		}
		if dvw == nil {
			dvw = dv.NewDVWriter(wfs, func(id int32) *iceberg.PartitionSpec {
				return t.Metadata().PartitionSpecByID(int(id))
			})
		}
		dvw.Load(path, merged, f.SpecID(), f.Partition())
		if old != nil {
			oldDVs = append(oldDVs, old)
		}
	}
	if dvw != nil {
		loc, err := t.LocationProvider()
		if err != nil {
			return nil, err
		}
		files, err := dvw.Flush(ctx, loc.NewDataLocation(fmt.Sprintf("dv-%d.puffin", time.Now().UnixNano())))
		if err != nil {
			return nil, fmt.Errorf("write deletion vectors: %w", err)
		}
		delFiles = append(delFiles, files...)
	}
	tx := t.NewTransaction()
	if len(drop) > 0 {
		// The dropped files' own delete files go with them: a deletion
		// vector or position delete file naming a file no snapshot
		// holds would be left behind for every reader to skip.
		if err := tx.ReplaceFiles(ctx, drop, nil, dropDels, props); err != nil {
			return nil, fmt.Errorf("drop files: %w", err)
		}
	}
	rd := tx.NewRowDelta(props)
	if rec != nil {
		for df, err := range table.WriteRecords(ctx, t, rec.Schema(), func(yield func(arrow.RecordBatch, error) bool) {
			rec.Retain()
			yield(rec, nil)
		}) {
			if err != nil {
				return nil, fmt.Errorf("write rows: %w", err)
			}
			rd.AddRows(df)
		}
	}
	rd.AddDeletes(delFiles...)
	// A replaced deletion vector is superseded by the merged one.
	rd.RemoveDeletes(oldDVs...)
	if rec != nil || len(delFiles) > 0 || len(oldDVs) > 0 {
		if err := rd.Commit(ctx); err != nil {
			return nil, err
		}
	}
	return tx.Commit(ctx)
}

// mayEmpty reports whether the new deletes del and the position deletes
// task's delete files hold may together be all of its data file's rows.
func mayEmpty(task table.FileScanTask, del *dv.RoaringPositionBitmap) bool {
	n := del.Cardinality()
	for _, d := range task.DeleteFiles {
		n += d.Count()
	}
	for _, d := range task.DeletionVectorFiles {
		n += d.Count()
	}
	return n >= task.File.Count()
}

// deletesOfOnly is the delete files of task that apply to its data file
// alone: its deletion vector, and position delete files that reference
// it (as Loam writes them, one a data file). Dropping the data file
// makes them dead.
func deletesOfOnly(task table.FileScanTask) []iceberg.DataFile {
	out := slices.Clone(task.DeletionVectorFiles)
	for _, d := range task.DeleteFiles {
		if referencedFile(d) == task.File.FilePath() {
			out = append(out, d)
		}
	}
	return out
}
