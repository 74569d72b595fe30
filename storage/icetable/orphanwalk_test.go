package icetable

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"

	icebergio "github.com/apache/iceberg-go/io"
)

// vanishingIO lists a directory that is gone when the walk opens it, as an
// object store does when the last file under a prefix is deleted between
// listing the parent and listing the prefix.
type vanishingIO struct{ icebergio.IO }

func (vanishingIO) WalkDir(root string, fn fs.WalkDirFunc) error {
	dir := fstest.MapFS{"d": {Mode: fs.ModeDir}, "f": {}}
	d, _ := fs.Stat(dir, "d")
	f, _ := fs.Stat(dir, "f")
	if err := fn(root+"/data", fs.FileInfoToDirEntry(d), nil); err != nil {
		return err
	}
	err := fn(root+"/data/tenant=x", fs.FileInfoToDirEntry(d), &fs.PathError{Op: "open", Path: root + "/data/tenant=x", Err: fs.ErrNotExist})
	if err != nil && !errors.Is(err, fs.SkipDir) {
		return err
	}
	return fn(root+"/data/f.parquet", fs.FileInfoToDirEntry(f), nil)
}

func TestWalkTolerantPassesOverVanishedDirectory(t *testing.T) {
	var seen []string
	var w icebergio.IO = walkTolerantIO{vanishingIO{}}
	err := w.(icebergio.ListableIO).WalkDir("s3://b/t", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		seen = append(seen, p)
		return nil
	})
	if err != nil || len(seen) != 2 || seen[1] != "s3://b/t/data/f.parquet" {
		t.Fatalf("walked %v, %v; want the directory gone passed over and the file listed", seen, err)
	}
	// Other errors still fail the walk.
	boom := errors.New("boom")
	if err := (walkTolerantIO{failingIO{boom}}).WalkDir("r", func(string, fs.DirEntry, error) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("walk error %v, want boom", err)
	}
}

type failingIO struct{ err error }

func (failingIO) Open(string) (icebergio.File, error) { return nil, fs.ErrNotExist }
func (failingIO) Remove(string) error                 { return nil }
func (f failingIO) WalkDir(root string, fn fs.WalkDirFunc) error {
	return fn(root, nil, f.err)
}
