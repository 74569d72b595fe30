package icetable

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// planFiles is the data files of t's current snapshot whose rows may match
// filter: iceberg-go's Scan.PlanFiles, but with the snapshot's manifest
// list and manifests taken from s.manifests instead of read and parsed
// anew by every scan. iceberg-go keeps neither across tables (a manifest
// list only per loaded table, manifests not at all), and a point query
// spent most of its CPU parsing them.
//
// The cached path answers only what it answers exactly as PlanFiles does:
// delete files only of the kinds Loam writes, which name their data file
// (matchDeletes), a filter filePruner accepts that names no partition
// source column (so partition pruning would prune nothing). Everything
// else plans through iceberg-go. Either way a file is one task, whole
// (wholeFiles).
func (s *Store) planFiles(ctx context.Context, t *table.Table, filter iceberg.BooleanExpression, opts []table.ScanOption) ([]table.FileScanTask, error) {
	if s.manifests != nil && !pinnedSchema(t) {
		tasks, err := s.planCached(ctx, t, filter)
		if err == nil {
			return tasks, nil
		}
		if !errors.Is(err, errUnsupportedPrune) {
			return nil, err
		}
	}
	if filter != nil {
		opts = append(opts, table.WithRowFilter(filter))
	}
	tasks, err := t.Scan(opts...).PlanFiles(ctx)
	if err != nil {
		return nil, err
	}
	return wholeFiles(tasks), nil
}

// wholeFiles merges the byte-range tasks iceberg-go splits a large Parquet
// file into (read.split.target-size, by row-group offsets) back into one
// task for the whole file: Loam reads a file whole, pruning its row groups
// itself, so each split read as a file would yield the file's rows again.
func wholeFiles(tasks []table.FileScanTask) []table.FileScanTask {
	out := tasks[:0]
	seen := map[string]bool{}
	for _, task := range tasks {
		if task.Start == 0 && task.Length == task.File.FileSizeBytes() {
			out = append(out, task)
			continue
		}
		path := task.File.FilePath()
		if seen[path] {
			continue
		}
		seen[path] = true
		task.Start, task.Length = 0, task.File.FileSizeBytes()
		out = append(out, task)
	}
	return out
}

// planCached is planFiles from the cache, or errUnsupportedPrune.
func (s *Store) planCached(ctx context.Context, t *table.Table, filter iceberg.BooleanExpression) ([]table.FileScanTask, error) {
	snap := t.CurrentSnapshot()
	if snap == nil || snap.ManifestList == "" {
		return nil, errUnsupportedPrune
	}
	pr, err := newFilePruner(t.Schema(), filter)
	if err != nil {
		return nil, err
	}
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("file IO: %w", err)
	}
	mans, err := s.manifests.manifests(fs, snap)
	if err != nil {
		return nil, err
	}
	md := t.Metadata()
	dels, err := s.fileDeletes(fs, mans)
	if err != nil {
		return nil, err
	}
	for _, m := range mans {
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue // matched by fileDeletes
		}
		spec := md.PartitionSpecByID(int(m.PartitionSpecID()))
		if spec == nil {
			return nil, errUnsupportedPrune
		}
		for _, f := range spec.Fields() {
			for _, id := range f.SourceIDs {
				if pr.fieldIDs[id] {
					return nil, errUnsupportedPrune
				}
			}
		}
	}
	var tasks []table.FileScanTask
	for _, m := range mans {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		entries, err := s.manifests.entries(fs, m)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			f := e.DataFile()
			if f.ContentType() != iceberg.EntryContentData {
				return nil, errUnsupportedPrune
			}
			ok, err := pr.mayMatch(f)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			task := table.FileScanTask{File: f, Length: f.FileSizeBytes(), FirstRowID: f.FirstRowID()}
			if seq := e.SequenceNum(); seq >= 0 {
				task.DataSequenceNumber = &seq
			}
			dels.match(&task, e)
			tasks = append(tasks, task)
		}
	}
	return tasks, nil
}
