package meta_test

import (
	"path/filepath"
	"testing"

	"github.com/loamdb/loam/meta/metatest"
)

func TestSQLiteStore(t *testing.T) {
	metatest.Run(t, func(t *testing.T) (string, string) {
		dir := t.TempDir()
		return "sqlite://" + filepath.Join(dir, "meta.db"), "file://" + filepath.Join(dir, "warehouse")
	})
}
