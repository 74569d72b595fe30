package maint

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/loamdb/loam/storage/s3test"
)

// TestRemoveOrphansAbortsStaleUploads: an upload cut short under a table
// on S3 leaves parts that no file listing sees; orphan removal aborts them
// once they are past the margin, and leaves the table's rows alone.
func TestRemoveOrphansAbortsStaleUploads(t *testing.T) {
	t.Setenv("LOAM_TEST_WAREHOUSE", "s3")
	srv := s3test.Shared(t)
	ctx := context.Background()
	e := newLifeEnv(t, false, nil)
	now := time.Now()
	e.write(t, now, map[int64]time.Duration{1: time.Hour, 2: time.Hour})
	tbl, rows := e.outside(t)
	if !strings.HasPrefix(tbl.Location(), "s3://") {
		t.Skipf("the test warehouse is %s, not on S3", tbl.Location())
	}

	s3test.CutShortUpload(t, srv.IOProps(), tbl.Location()+"/data/cut-short.parquet")
	pending := func() int {
		u := strings.TrimPrefix(tbl.Location(), "s3://")
		bucket, prefix, _ := strings.Cut(u, "/")
		out, err := srv.Client().ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix + "/")})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Uploads)
	}
	if pending() == 0 {
		t.Skip("the server completed or aborted the upload itself: nothing to clean")
	}
	if _, err := RemoveOrphans(ctx, e.m, "public", "t", now); err != nil || pending() == 0 {
		t.Fatalf("within the margin: %v; pending uploads %d, want kept", err, pending())
	}
	if _, err := RemoveOrphans(ctx, e.m, "public", "t", now.Add(2*OrphanMargin)); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n != 0 {
		t.Errorf("past the margin %d uploads are still open", n)
	}
	if _, after := e.outside(t); !slices.Equal(after, rows) {
		t.Errorf("rows %v, want %v", after, rows)
	}
}
