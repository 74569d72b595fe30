package icetable

import (
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// taskDeletes is every delete file that applies to task's data file.
// iceberg-go v0.7 plans them into three lists: position delete files
// (DeleteFiles), equality delete files and deletion vectors. Code that
// looks at DeleteFiles alone misses a v3 table's deletion vectors: it
// would cache a file's rows with them applied as if they were the whole
// file, count rows they deleted, and number rows by position after them.
func taskDeletes(task table.FileScanTask) []iceberg.DataFile {
	n := len(task.DeleteFiles) + len(task.EqualityDeleteFiles) + len(task.DeletionVectorFiles)
	if n == 0 {
		return nil
	}
	out := make([]iceberg.DataFile, 0, n)
	out = append(out, task.DeleteFiles...)
	out = append(out, task.EqualityDeleteFiles...)
	return append(out, task.DeletionVectorFiles...)
}

// hasDeletes reports whether any delete file applies to task's data file.
func hasDeletes(task table.FileScanTask) bool {
	return len(task.DeleteFiles) > 0 || len(task.EqualityDeleteFiles) > 0 || len(task.DeletionVectorFiles) > 0
}

// withoutDeletes is task with no delete file applying: its data file's
// rows as written, in position order.
func withoutDeletes(task table.FileScanTask) table.FileScanTask {
	task.DeleteFiles, task.EqualityDeleteFiles, task.DeletionVectorFiles = nil, nil, nil
	return task
}
