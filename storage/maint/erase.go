package maint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/link"
)

// Erasure: VACUUM makes rows a DELETE removed leave every file Loam
// writes. The runner commits the table's tail (the deletes reach Iceberg),
// compaction rewrites every file with deletes (AllDeletes), the manifests
// are rewritten (a rewrite's manifest lists the replaced files, with their
// column bounds, as deleted entries), and then:

// historyHoldsDeletes says whether a snapshot the table keeps besides its
// current one may reference rows since deleted: one that committed row
// deletes or dropped files (a delete or overwrite), or whose files have
// delete files applying (their raw rows include the deleted ones). The
// current snapshot's own delete files are applied by compaction first.
func historyHoldsDeletes(tbl *table.Table) bool {
	cur := tbl.CurrentSnapshot()
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary == nil {
			continue
		}
		if s.Summary.Operation == table.OpDelete || s.Summary.Operation == table.OpOverwrite {
			return true
		}
		if cur != nil && s.SnapshotID == cur.SnapshotID {
			continue
		}
		if n := s.Summary.Properties["total-delete-files"]; n != "" && n != "0" {
			return true
		}
	}
	return false
}

// ExpireHistory expires every snapshot of the table but the current one
// (and those a branch or tag points to, which a DROP of the reference
// frees) when its history holds deleted rows, and deletes the files only
// they referenced: old data files, delete files, manifests and manifest
// lists. It ends time travel to before the VACUUM: erasure outranks the
// table's snapshot retention.
func ExpireHistory(ctx context.Context, m *link.Manager, ns, name string) (ExpireReport, error) {
	var rep ExpireReport
	// iceberg-go expires snapshots strictly older than its clock, in
	// milliseconds: one committed within the same millisecond as the
	// expiry stays, and the next attempt takes it.
	for range 3 {
		var holds bool
		r, err := expire(ctx, m, ns, name, func(tbl *table.Table) (time.Duration, int, error) {
			holds = historyHoldsDeletes(tbl)
			if !holds {
				return 0, 0, errNothingToErase
			}
			return 0, 1, nil
		})
		if err != nil {
			if errors.Is(err, errNothingToErase) {
				return rep, nil
			}
			return rep, err
		}
		rep.Snapshots += r.Snapshots
		left, err := unreferencedSnapshots(ctx, m, ns, name)
		if err != nil || left == 0 {
			return rep, err
		}
		time.Sleep(2 * time.Millisecond)
	}
	return rep, nil
}

var errNothingToErase = errors.New("no snapshot holds deleted rows")

// unreferencedSnapshots counts the snapshots no branch or tag points to
// besides the current one.
func unreferencedSnapshots(ctx context.Context, m *link.Manager, ns, name string) (int, error) {
	var n int
	err := m.Maintain(ctx, ns, name, func(_ context.Context, tbl *table.Table, _ iceberg.Properties) (*table.Table, error) {
		heads := map[int64]bool{}
		for _, ref := range tbl.Metadata().Refs() {
			heads[ref.SnapshotID] = true
		}
		for _, s := range tbl.Metadata().Snapshots() {
			if !heads[s.SnapshotID] {
				n++
			}
		}
		return nil, nil
	})
	return n, err
}

// RemoveOrphansNow deletes every file of the table no snapshot references,
// however young: after ExpireHistory, the files an interrupted or refused
// commit left may hold deleted rows too. The listing and the deletes run
// with the link lock held (Maintain), so no link commit or maintenance of
// this server has files in flight; metadata files are left to
// RemoveOrphans's margin, as a catalog commit of DDL writes its own
// without that lock (they hold no rows).
func RemoveOrphansNow(ctx context.Context, m *link.Manager, ns, name string) (files int, err error) {
	err = m.Maintain(ctx, ns, name, func(ctx context.Context, t *table.Table, _ iceberg.Properties) (*table.Table, error) {
		fs, err := t.FS(ctx)
		if err != nil {
			return nil, err
		}
		// iceberg-go deletes in parallel: the count is shared.
		var removed atomic.Int64
		defer func() { files = int(removed.Load()) }()
		remove := func(path string) error {
			if strings.HasSuffix(path, ".metadata.json") {
				return nil
			}
			removed.Add(1)
			return fs.Remove(path)
		}
		if _, err := t.DeleteOrphanFiles(ctx, table.WithFilesOlderThan(0), table.WithDeleteFunc(remove)); err != nil {
			return nil, fmt.Errorf("remove orphans of %s.%s: %w", ns, name, err)
		}
		// The link waits outside: no upload of ours is in flight.
		if _, err := abortStaleUploads(ctx, t, time.Now()); err != nil {
			return nil, fmt.Errorf("remove orphans of %s.%s: %w", ns, name, err)
		}
		if err := removeEmptyDirs(t.Location()); err != nil {
			return nil, fmt.Errorf("remove empty directories of %s.%s: %w", ns, name, err)
		}
		return nil, nil
	})
	return files, err
}

// removeEmptyDirs removes the empty directories under a local table's
// data directory: a partition's directory is named by its values
// (tenant=acme), which outlive its last file on a file system (object
// stores have no directories). Writers make them again as needed.
func removeEmptyDirs(location string) error {
	u, err := url.Parse(location)
	if err != nil || (u.Scheme != "file" && u.Scheme != "") {
		return nil
	}
	root := filepath.Join(u.Path, "data")
	var dirs []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() && path != root {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Deepest first, so a parent emptied by its children goes too.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil && !isNotEmpty(err) && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// isNotEmpty says os.Remove refused a directory that still has entries.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}
