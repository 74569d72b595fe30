package meta

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/s3test"
)

// s3Props are the warehouse IO properties Loam would build for the test
// server, as `--s3-endpoint` gives them.
func s3Props(t *testing.T, srv *s3test.Server) map[string]string {
	t.Helper()
	p, err := WarehouseIO("s3://"+s3test.TestBucket+"/x", S3{Endpoint: srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestS3BucketHandleShared: every file IO of one bucket shares one handle
// (one connection pool), while each keeps its caller's context.
func TestS3BucketHandleShared(t *testing.T) {
	srv := s3test.Shared(t)
	wh := srv.NewWarehouse(t)
	props := s3Props(t, srv)
	ctx := context.Background()
	a, err := icebergio.LoadFS(ctx, props, wh+"/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := icebergio.LoadFS(ctx, props, wh+"/b")
	if err != nil {
		t.Fatal(err)
	}
	type bucketed interface{ As(any) bool }
	var ca, cb *s3.Client
	if !a.(bucketed).As(&ca) || !b.(bucketed).As(&cb) {
		t.Fatal("the file IO is not an S3 bucket")
	}
	if ca != cb {
		t.Error("two loads of one bucket built two S3 clients")
	}
	// A cancelled caller's context reaches the operation.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	c, err := icebergio.LoadFS(cctx, props, wh+"/c")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.(icebergio.WriteFileIO).WriteFile(wh+"/c/x", []byte("x")); err == nil {
		t.Error("a write under a cancelled context succeeded")
	}
}

// TestS3LargeFileInParts: a file larger than a part goes up as a
// multipart upload and reads back whole.
func TestS3LargeFileInParts(t *testing.T) {
	srv := s3test.Shared(t)
	wh := srv.NewWarehouse(t)
	fsys, err := icebergio.LoadFS(context.Background(), s3Props(t, srv), wh)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 20<<20)
	rand.Read(data)
	path := wh + "/data/big.parquet"
	w, err := fsys.(icebergio.WriteFileIO).Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(data); off += 1 << 20 {
		if _, err := w.Write(data[off : off+1<<20]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	head, err := srv.Client().HeadObject(context.Background(), &s3.HeadObjectInput{
		Bucket: aws.String(s3test.TestBucket), Key: aws.String(strings.TrimPrefix(path, "s3://"+s3test.TestBucket+"/"))})
	if err != nil {
		t.Fatal(err)
	}
	// A multipart upload's ETag is the digest of the parts' digests and
	// their count: "…-3".
	if etag := aws.ToString(head.ETag); !strings.Contains(etag, "-") {
		t.Errorf("ETag %s: the 20 MiB file went up in one piece", etag)
	}
	f, err := fsys.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (err %v), want the %d written", len(got), err, len(data))
	}
}

// TestS3InterruptedUploadLeavesNothing: an upload whose context ends
// before it completes leaves no object and no pending parts.
func TestS3InterruptedUploadLeavesNothing(t *testing.T) {
	srv := s3test.Shared(t)
	wh := srv.NewWarehouse(t)
	path := wh + "/data/cut.parquet"
	s3test.CutShortUpload(t, s3Props(t, srv), path)
	after, err := icebergio.LoadFS(context.Background(), s3Props(t, srv), wh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := after.Open(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after an interrupted upload, open: %v, want not found", err)
	}
	if keys := srv.Objects(t, wh); len(keys) != 0 {
		t.Errorf("objects after an interrupted upload: %v", keys)
	}
	// Its parts may stay behind as an open multipart upload, which no
	// listing of objects shows: orphan removal aborts those
	// (storage/maint, TestRemoveOrphansAbortsStaleUploads).
}

// TestS3WalkPassesEmptiedPrefixes: a walk of a table's location passes
// over a partition prefix whose last file was just deleted (SeaweedFS
// lists such a folder for a while, and on any store the file may go
// between the listing and the descent), as orphan removal's walk needs.
func TestS3WalkPassesEmptiedPrefixes(t *testing.T) {
	srv := s3test.Shared(t)
	wh := srv.NewWarehouse(t)
	fsys, err := icebergio.LoadFS(context.Background(), s3Props(t, srv), wh)
	if err != nil {
		t.Fatal(err)
	}
	w := fsys.(icebergio.WriteFileIO)
	for _, p := range []string{"/t/data/p=1/a.parquet", "/t/data/p=2/b.parquet"} {
		if err := w.WriteFile(wh+p, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := fsys.Remove(wh + "/t/data/p=1/a.parquet"); err != nil {
		t.Fatal(err)
	}
	var files []string
	err = fsys.(icebergio.ListableIO).WalkDir(wh+"/t", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk: %v", err)
	}
	if len(files) != 1 || !strings.HasSuffix(files[0], "/p=2/b.parquet") {
		t.Errorf("walk found %v, want the one file left", files)
	}
}

// TestS3ReadErrorsAreIOErrors: a file the bucket cannot give is 58030 to
// the client (58P01 when it is missing), not an internal error, and
// iceberg-go still sees a missing file as fs.ErrNotExist.
func TestS3ReadErrorsAreIOErrors(t *testing.T) {
	srv := s3test.Shared(t)
	wh := srv.NewWarehouse(t)
	fsys, err := icebergio.LoadFS(context.Background(), s3Props(t, srv), wh)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fsys.Open(wh + "/metadata/none.metadata.json")
	if code := pgerr.Code(err); code != pgerr.UndefinedFile || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v (%s), want 58P01 and fs.ErrNotExist", err, code)
	}

	// A store that does not answer, tried once.
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	down, err := WarehouseIO("s3://"+s3test.TestBucket+"/x", S3{Endpoint: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	dfs, err := icebergio.LoadFS(context.Background(), down, "s3://"+s3test.TestBucket+"/x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = dfs.Open("s3://" + s3test.TestBucket + "/x/data/f.parquet")
	if code := pgerr.Code(err); code != pgerr.IOError {
		t.Errorf("a store that does not answer: %v (%s), want 58030", err, code)
	}
	// A cancelled statement stays a cancellation.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfs, err := icebergio.LoadFS(ctx, s3Props(t, srv), wh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfs.Open(wh + "/data/f.parquet"); pgerr.Code(err) == pgerr.IOError || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v (%s), want context.Canceled", err, pgerr.Code(err))
	}
}
