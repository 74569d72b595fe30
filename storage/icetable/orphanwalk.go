package icetable

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// WalkTolerant is tbl reading its files through walkTolerantIO: every
// call of iceberg-go's DeleteOrphanFiles goes through it.
func WalkTolerant(tbl *table.Table) *table.Table {
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(),
		func(ctx context.Context) (icebergio.IO, error) {
			fsys, err := tbl.FS(ctx)
			if err != nil {
				return nil, err
			}
			return walkTolerantIO{fsys}, nil
		}, nil)
}

// walkTolerantIO is a table's file IO whose WalkDir passes over a
// directory that is gone by the time the walk opens it. On object storage
// a "directory" is a key prefix, listed by its parent and then listed
// itself: the last file under it may be deleted in between (VACUUM has
// just removed a tenant's whole partition; S3 servers may also list a
// prefix emptied a moment ago), and iceberg-go's orphan removal failed
// the whole VACUUM with "open …/data/tenant=x: file does not exist".
// A directory that does not exist holds no orphans.
type walkTolerantIO struct{ icebergio.IO }

func (w walkTolerantIO) WalkDir(root string, fn fs.WalkDirFunc) error {
	l, ok := w.IO.(icebergio.ListableIO)
	if !ok {
		return fmt.Errorf("filesystem %T does not implement iceio.ListableIO", w.IO)
	}
	return l.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fn(p, d, err)
	})
}

// DeleteFiles keeps the bulk deletes of the IO under it.
func (w walkTolerantIO) DeleteFiles(ctx context.Context, paths []string) ([]string, error) {
	if b, ok := w.IO.(icebergio.BulkRemovableIO); ok {
		return b.DeleteFiles(ctx, paths)
	}
	var deleted []string
	var errs []error
	for _, p := range paths {
		if err := w.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		deleted = append(deleted, p)
	}
	return deleted, errors.Join(errs...)
}
