package icetable

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ScanAdded reads the named columns of the data files t's current
// snapshot added, and only those: a snapshot the link just committed
// holds the rows it moved out of the write log there, and a key index
// (storage/link/keys.go) must learn where they went without reading the
// rest of the table. pos works as in Scan; files a snapshot adds carry no
// deletes yet.
func (s *Store) ScanAdded(ctx context.Context, t *table.Table, fields []string, pos *Positions) (iter.Seq2[arrow.RecordBatch, error], error) {
	snap := t.CurrentSnapshot()
	if snap == nil {
		return func(func(arrow.RecordBatch, error) bool) {}, nil
	}
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("file IO: %w", err)
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("scan added files of %s: %w", t.Identifier(), err)
	}
	var tasks []table.FileScanTask
	for _, m := range mans {
		if m.ManifestContent() != iceberg.ManifestContentData || m.SnapshotID() != snap.SnapshotID {
			continue
		}
		entries, err := m.FetchEntries(fs, true)
		if err != nil {
			return nil, fmt.Errorf("scan added files of %s: %w", t.Identifier(), err)
		}
		for _, e := range entries {
			if e.Status() != iceberg.EntryStatusADDED || e.SnapshotID() != snap.SnapshotID {
				continue
			}
			df := e.DataFile()
			tasks = append(tasks, table.FileScanTask{File: df, Length: df.FileSizeBytes()})
		}
	}
	return s.readTasks(t, tasks, fields, nil, nil, nil, pos), nil
}

// ScanFile reads the named columns of one data file of t's current
// snapshot, with its deletes applied, as Scan reads it with pos: an
// upsert fetches the row a key names from there.
func (s *Store) ScanFile(ctx context.Context, t *table.Table, path string, fields []string, pos *Positions) (iter.Seq2[arrow.RecordBatch, error], error) {
	snap := snapshotIDOf(t)
	byPath, ok := s.fileTasks.get(snap)
	if !ok {
		// Planned once per snapshot: a run of upserts fetches from the
		// same snapshot until the link commits again, and planning a
		// table with delete files goes through iceberg-go's manifests.
		tasks, err := s.planFiles(ctx, t, iceberg.AlwaysTrue{}, nil)
		if err != nil {
			return nil, fmt.Errorf("scan %s: plan: %w", t.Identifier(), err)
		}
		byPath = make(map[string]table.FileScanTask, len(tasks))
		for _, task := range tasks {
			byPath[task.File.FilePath()] = task
		}
		s.fileTasks.put(snap, byPath)
	}
	task, ok := byPath[path]
	if !ok {
		return nil, fmt.Errorf("scan %s: data file %s is not in the snapshot", t.Identifier(), path)
	}
	return s.readTasks(t, []table.FileScanTask{task}, fields, nil, nil, nil, pos), nil
}

func snapshotIDOf(t *table.Table) int64 {
	if s := t.CurrentSnapshot(); s != nil {
		return s.SnapshotID
	}
	return -1
}

// fileTaskCache keeps the planned data files of the few snapshots most
// recently fetched from, by path.
type fileTaskCache struct {
	mu    sync.Mutex
	snaps []int64 // oldest first
	tasks map[int64]map[string]table.FileScanTask
}

const fileTaskSnapshots = 8

func (c *fileTaskCache) get(snap int64) (map[string]table.FileScanTask, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.tasks[snap]
	return m, ok
}

func (c *fileTaskCache) put(snap int64, m map[string]table.FileScanTask) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tasks == nil {
		c.tasks = map[int64]map[string]table.FileScanTask{}
	}
	if _, ok := c.tasks[snap]; !ok {
		c.snaps = append(c.snaps, snap)
	}
	c.tasks[snap] = m
	for len(c.snaps) > fileTaskSnapshots {
		delete(c.tasks, c.snaps[0])
		c.snaps = c.snaps[1:]
	}
}
