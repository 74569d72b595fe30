package maint

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/link"
)

// DeletedFraction is the share of a data file's rows its position deletes
// and deletion vector must delete before background compaction rewrites
// it whatever its size (Iceberg's own default, Java's delete-ratio): below
// it a large file is mostly live rows, and rewriting it costs more than
// skipping its deleted rows at each read saves. VACUUM rewrites every file
// with deletes, so that deleted rows leave the table's files (erasure).
const DeletedFraction = 0.3

// deleteFilesWorthApplying is how many delete files of any kind a data
// file may collect before background compaction rewrites it: each is read
// at every scan of the file.
const deleteFilesWorthApplying = 5

func hasDeletes(t table.FileScanTask) bool {
	return len(t.DeleteFiles)+len(t.EqualityDeleteFiles)+len(t.DeletionVectorFiles) > 0
}

// worthApplying says whether a data file's deletes make it worth
// rewriting now: all says any delete does (VACUUM). Otherwise equality
// deletes always do (every read of the file joins against them, and
// Loam's positional reads for UPDATE and DELETE refuse them), as do many
// delete files or a DeletedFraction of the rows deleted.
func worthApplying(t table.FileScanTask, all bool) bool {
	if !hasDeletes(t) {
		return false
	}
	n := len(t.DeleteFiles) + len(t.EqualityDeleteFiles) + len(t.DeletionVectorFiles)
	if all || len(t.EqualityDeleteFiles) > 0 || n >= deleteFilesWorthApplying {
		return true
	}
	rows := t.File.Count()
	if rows <= 0 {
		return true
	}
	// A position delete file may name other files' rows too (Loam writes
	// one per data file; other engines may not): counting all of its rows
	// only makes the rewrite come sooner.
	var deleted int64
	for _, d := range t.DeletionVectorFiles {
		deleted += d.Count()
	}
	for _, d := range t.DeleteFiles {
		deleted += d.Count()
	}
	return float64(min(deleted, rows))/float64(rows) >= DeletedFraction
}

// deletePaths is the sorted paths of the delete files applying to a file.
func deletePaths(t table.FileScanTask) []string {
	var out []string
	for _, ds := range [][]iceberg.DataFile{t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles} {
		for _, d := range ds {
			out = append(out, d.FilePath())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rowLockWait bounds how long background compaction waits for a table's
// row lock, which a transaction that deleted rows holds until it ends:
// an idle open transaction must not stall the upkeep of every table. The
// rewrite is then reported as a conflict and retried by the next run.
// VACUUM waits as long as its statement may.
var rowLockWait = time.Second

func lockRows(ctx context.Context, m *link.Manager, ns, name string, wait bool) (func(), error) {
	if wait {
		return m.LockRows(ctx, ns, name)
	}
	wctx, cancel := context.WithTimeout(ctx, rowLockWait)
	defer cancel()
	unlock, err := m.LockRows(wctx, ns, name)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, errConflict
	}
	return unlock, err
}
