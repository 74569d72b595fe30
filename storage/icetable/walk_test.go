package icetable_test

import (
	"io/fs"
	"path/filepath"
)

func walk(dir string, f func(string)) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			f(p)
		}
		return err
	})
}
