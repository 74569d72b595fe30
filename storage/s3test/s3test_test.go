package s3test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestServerStoresAndSurvivesRestart writes an object, kills the server,
// starts it again on the same directory and reads the object back: the
// fault tests rely on both.
func TestServerStoresAndSurvivesRestart(t *testing.T) {
	s := Start(t)
	b := s.Bucket(t)
	ctx := context.Background()
	body := []byte("hello, bucket")
	if _, err := s.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("a/b.txt"), Body: bytes.NewReader(body)}); err != nil {
		t.Fatalf("put: %v", err)
	}
	s.Stop()
	if _, err := s.Client().ListBuckets(ctx, &s3.ListBucketsInput{}); err == nil {
		t.Fatal("a stopped server still answers")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	out, err := s.Client().GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("a/b.txt")})
	if err != nil {
		t.Fatalf("get after restart: %v", err)
	}
	got, _ := io.ReadAll(out.Body)
	if !bytes.Equal(got, body) {
		t.Fatalf("got %q, want %q", got, body)
	}
}

// TestSignaturesAreChecked: a request signed with another key is refused,
// so tests exercise the same signing as a real bucket.
func TestSignaturesAreChecked(t *testing.T) {
	s := Shared(t)
	b := s.Bucket(t)
	c := s3.New(s3.Options{Region: Region, BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: aws.AnonymousCredentials{}})
	_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("x"), Body: bytes.NewReader([]byte("x"))})
	if err == nil {
		t.Fatal("an anonymous put was accepted")
	}
}

// TestSweepShared: directories of Shared servers idle since before the
// cutoff go, a fresh one stays.
func TestSweepShared(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	old, err := os.MkdirTemp("", sharedPrefix)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := os.MkdirTemp("", sharedPrefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{old, fresh} {
		if err := os.WriteFile(filepath.Join(d, "weed.log"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(old, "weed.log"), long, long); err != nil {
		t.Fatal(err)
	}
	// An old one whose weed still runs (this process stands in) stays.
	running, err := os.MkdirTemp("", sharedPrefix)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(running, "weed.log"), nil, 0o644)
	os.Chtimes(filepath.Join(running, "weed.log"), long, long)
	os.WriteFile(filepath.Join(running, "weed.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	sweepShared(time.Now().Add(-time.Hour))
	if _, err := os.Stat(running); err != nil {
		t.Errorf("the directory of a running server went: %v", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("an old shared server's directory stayed: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh one went: %v", err)
	}
}
