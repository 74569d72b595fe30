package s3test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Tests that look at a warehouse's files themselves (is a data file gone,
// how many are there, a stray one a crash left) use these on a warehouse
// location: a local path or file:// URL, or an s3:// one of the shared
// server, reached through the S3 API. So a test checks the same thing on
// both.

// SplitS3 parses s3://bucket/key; ok is false for any other location.
func SplitS3(loc string) (bucket, key string, ok bool) {
	rest, ok := strings.CutPrefix(loc, "s3://")
	if !ok {
		return "", "", false
	}
	bucket, key, _ = strings.Cut(rest, "/")
	return bucket, key, true
}

// Exists says whether the file at loc exists.
func Exists(t testing.TB, loc string) bool {
	t.Helper()
	bucket, key, ok := SplitS3(loc)
	if !ok {
		_, err := os.Stat(strings.TrimPrefix(loc, "file://"))
		return err == nil
	}
	_, err := Shared(t).Client().HeadObject(context.Background(),
		&s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	var nf *types.NotFound
	if err != nil && !errors.As(err, &nf) {
		t.Fatalf("s3test: head %s: %v", loc, err)
	}
	return err == nil
}

// Put writes data at loc.
func Put(t testing.TB, loc string, data []byte) {
	t.Helper()
	bucket, key, ok := SplitS3(loc)
	if !ok {
		if err := os.WriteFile(strings.TrimPrefix(loc, "file://"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := Shared(t).Client().PutObject(context.Background(),
		&s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)}); err != nil {
		t.Fatalf("s3test: put %s: %v", loc, err)
	}
}

// Read reads the file at loc.
func Read(t testing.TB, loc string) []byte {
	t.Helper()
	bucket, key, ok := SplitS3(loc)
	if !ok {
		data, err := os.ReadFile(strings.TrimPrefix(loc, "file://"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	r, err := Shared(t).Client().GetObject(context.Background(),
		&s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("s3test: get %s: %v", loc, err)
	}
	defer r.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r.Body); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Files lists the files under the directory (or key prefix) loc whose
// name ends with suffix; none when loc does not exist.
func Files(t testing.TB, loc, suffix string) []string {
	t.Helper()
	var out []string
	bucket, prefix, ok := SplitS3(loc)
	if !ok {
		err := filepath.WalkDir(strings.TrimPrefix(loc, "file://"), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
				out = append(out, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	p := s3.NewListObjectsV2Paginator(Shared(t).Client(), &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket), Prefix: aws.String(strings.TrimSuffix(prefix, "/") + "/")})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("s3test: list %s: %v", loc, err)
		}
		for _, o := range page.Contents {
			if k := aws.ToString(o.Key); strings.HasSuffix(k, suffix) {
				out = append(out, "s3://"+bucket+"/"+k)
			}
		}
	}
	return out
}
