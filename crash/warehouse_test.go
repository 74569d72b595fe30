package crash

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	// iceberg-go's s3:// file IO, as an outside reader links it in.
	_ "github.com/apache/iceberg-go/io/gocloud/s3"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/loamdb/loam/storage/s3test"
)

// warehouse is where a server keeps its tables, as the tests see it from
// outside: the default file:// directory under the data dir, or (with
// LOAM_TEST_WAREHOUSE=s3, and always for the S3 fault test) a prefix of
// its own in a bucket of an S3 server. The tests read it with iceberg-go and list its
// files themselves, never through Loam.
type warehouse struct {
	url   string
	props iceberg.Properties // file IO properties of an outside reader; nil on file://

	dir string // file://: the directory

	s3             *s3test.Server // s3://: the server, bucket and key prefix
	bucket, prefix string
}

// warehouses holds each data dir's warehouse: a server restarted on a data
// dir must find its tables where the metastore there says they are, so
// one data dir keeps one warehouse across restarts.
var warehouses sync.Map // data dir → *warehouse

// warehouseOf returns dataDir's warehouse, creating it on first use: a
// new warehouse on the shared S3 server when s3test.Enabled, else the
// server's default file://DATA-DIR/warehouse.
func warehouseOf(t *testing.T, dataDir string) *warehouse {
	t.Helper()
	if w, ok := warehouses.Load(dataDir); ok {
		return w.(*warehouse)
	}
	var w *warehouse
	if s3test.Enabled() {
		w = s3Warehouse(t, s3test.Shared(t))
		t.Logf("warehouse %s", w.url)
	} else {
		dir := filepath.Join(dataDir, "warehouse")
		w = &warehouse{url: "file://" + dir, dir: dir}
	}
	actual, _ := warehouses.LoadOrStore(dataDir, w)
	return actual.(*warehouse)
}

// newWarehouse returns a warehouse not tied to one data dir, for servers
// that share one (with a PostgreSQL metastore).
func newWarehouse(t *testing.T) *warehouse {
	t.Helper()
	if s3test.Enabled() {
		return s3Warehouse(t, s3test.Shared(t))
	}
	dir := t.TempDir()
	return &warehouse{url: "file://" + dir, dir: dir}
}

// s3Warehouse is a new warehouse on srv: a prefix of its own in the
// tests' bucket.
func s3Warehouse(t *testing.T, srv *s3test.Server) *warehouse {
	t.Helper()
	u := srv.NewWarehouse(t)
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(u, "s3://"), "/")
	props := iceberg.Properties{}
	for k, v := range srv.IOProps() {
		props[k] = v
	}
	return &warehouse{url: u, props: props, s3: srv, bucket: bucket, prefix: prefix}
}

// useWarehouse ties dataDir to w before its first server starts.
func useWarehouse(dataDir string, w *warehouse) { warehouses.Store(dataDir, w) }

// serveArgs are the `loam serve` flags that put a server's tables in w.
func (w *warehouse) serveArgs() []string {
	if w.s3 == nil {
		return []string{"--warehouse", w.url}
	}
	return []string{"--warehouse", w.url, "--s3-endpoint", w.s3.Endpoint}
}

// catalog opens iceberg-go's own SQL catalog on a metastore database,
// reading the files of w.
func (w *warehouse) catalog(t *testing.T, db *sql.DB, dialect sqlcat.SupportedDialect) *sqlcat.Catalog {
	t.Helper()
	props := iceberg.Properties{"warehouse": w.url}
	for k, v := range w.props {
		props[k] = v
	}
	cat, err := sqlcat.NewCatalog("loam", db, dialect, props)
	if err != nil {
		t.Fatalf("iceberg-go NewCatalog: %v", err)
	}
	return cat
}

// path is a file's name as the tests compare them: a local path on
// file://, the s3:// URL on S3.
func (w *warehouse) path(location string) string {
	if w.s3 == nil {
		return strings.TrimPrefix(location, "file://")
	}
	return strings.Replace(location, "s3a://", "s3://", 1)
}

// list returns every file under sub (a path inside the warehouse, such as
// public.db/t/data), named as path names them.
func (w *warehouse) list(t *testing.T, sub string) []string {
	t.Helper()
	var out []string
	if w.s3 == nil {
		root := filepath.Join(w.dir, sub)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == root {
					return filepath.SkipDir
				}
				return err
			}
			if !d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("listing %s: %v", root, err)
		}
		sort.Strings(out)
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prefix := w.prefix + "/" + strings.Trim(sub, "/") + "/"
	p := s3.NewListObjectsV2Paginator(w.s3.Client(), &s3.ListObjectsV2Input{Bucket: aws.String(w.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("listing s3://%s/%s: %v", w.bucket, prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, "s3://"+w.bucket+"/"+aws.ToString(o.Key))
		}
	}
	sort.Strings(out)
	return out
}

// exists says whether the file a path names is there.
func (w *warehouse) exists(t *testing.T, p string) bool {
	t.Helper()
	if w.s3 == nil {
		_, err := os.Stat(p)
		return err == nil
	}
	rest, ok := strings.CutPrefix(p, "s3://"+w.bucket+"/")
	if !ok {
		return false // not in this bucket at all
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := w.s3.Client().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(w.bucket), Key: aws.String(rest)})
	return err == nil
}

// orphanDataFiles lists files under the table's data/ directory that the
// current snapshot does not reference, relative to that directory.
func orphanDataFiles(t *testing.T, dataDir string, referenced map[string]bool) []string {
	t.Helper()
	w := warehouseOf(t, dataDir)
	const sub = "public.db/t/data"
	var orphans []string
	for _, p := range w.list(t, sub) {
		if !referenced[p] {
			_, rel, _ := strings.Cut(p, sub+"/")
			orphans = append(orphans, rel)
		}
	}
	return orphans
}

// missingFiles lists referenced files that are not in dataDir's
// warehouse.
func missingFiles(t *testing.T, dataDir string, referenced map[string]bool) []string {
	t.Helper()
	w := warehouseOf(t, dataDir)
	var out []string
	for p := range referenced {
		if !w.exists(t, p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
