package icetable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// A table's default location is derived from its name, and a renamed
// table keeps its files where they are: ALTER TABLE a RENAME TO b, then
// CREATE TABLE a, gives the new a the directory b's files are in. Two
// tables in one directory lose each other's files: each one's orphan
// cleanup (the link's at restart, VACUUM's) and DROP remove the files it
// does not reference. A table created in a directory another's files are
// in is therefore created again in a directory of its own.

// ownLocation returns t, or, when t's location holds files that are not
// t's, t created anew (by create, at the location given) under
// "<location>-<random>", t's catalog entry and metadata file removed.
func (s *Store) ownLocation(ctx context.Context, t *table.Table, id table.Identifier,
	create func(location string) (*table.Table, error)) (*table.Table, error) {
	shared, err := sharedLocation(ctx, t)
	if err != nil || !shared {
		return t, err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	loc := strings.TrimSuffix(t.Location(), "/") + "-" + hex.EncodeToString(b[:])
	if err := s.cat.DropTable(ctx, id); err != nil {
		return nil, fmt.Errorf("create table %s: move out of %s: %w", strings.Join(id, "."), t.Location(), err)
	}
	if fsys, err := t.FS(ctx); err == nil {
		_ = fsys.Remove(t.MetadataLocation()) // else an orphan the other table's cleanup removes
	}
	return create(loc)
}

// sharedLocation tells whether t's location holds a file other than t's
// own first metadata file. A warehouse that cannot be listed is taken as
// not shared.
func sharedLocation(ctx context.Context, t *table.Table) (bool, error) {
	fsys, err := t.FS(ctx)
	if err != nil {
		return false, err
	}
	lfs, ok := fsys.(icebergio.ListableIO)
	if !ok {
		return false, nil
	}
	own := path.Base(t.MetadataLocation())
	shared := false
	err = lfs.WalkDir(strings.TrimSuffix(t.Location(), "/"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() && path.Base(strings.ReplaceAll(p, "\\", "/")) != own {
			shared = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("list %s: %w", t.Location(), err)
	}
	return shared, nil
}
