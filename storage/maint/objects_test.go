package maint

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loamdb/loam/storage/maint/erasetest"
	"github.com/loamdb/loam/storage/s3test"
)

// The upkeep tests look at the warehouse's files themselves (is a data
// file gone, is a stray one removed): on a local directory or, when the
// warehouse is a bucket of the S3 server (s3test.Enabled), through the S3
// API, so both check the same thing.

var (
	splitS3    = s3test.SplitS3
	exists     = s3test.Exists
	putFile    = s3test.Put
	readFile   = s3test.Read
	filesUnder = s3test.Files
)

// warehouseHolding lists the warehouse files of the test directory dir
// (openWarehouse's) holding b: under dir/warehouse, or every object in
// its bucket when the warehouse is on S3.
func warehouseHolding(t *testing.T, dir string, b []byte) []string {
	t.Helper()
	wh, _ := s3test.Warehouse(t, dir)
	bucket, _, ok := splitS3(wh)
	if !ok {
		return filesHolding(t, filepath.Join(dir, "warehouse"), b)
	}
	out, err := erasetest.ObjectsHolding(context.Background(), s3test.Shared(t).Client(), bucket, b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// holdingAnywhere lists the files under dir (write log, metastore, a
// local warehouse) and the objects of the warehouse's bucket holding b.
func holdingAnywhere(t *testing.T, dir string, b []byte) []string {
	t.Helper()
	out := filesHolding(t, dir, b)
	if wh, _ := s3test.Warehouse(t, dir); strings.HasPrefix(wh, "s3://") {
		out = append(out, warehouseHolding(t, dir, b)...)
	}
	return out
}

// sibling is the location of name in the directory of loc.
func sibling(loc, name string) string {
	return loc[:strings.LastIndex(loc, "/")+1] + name
}
