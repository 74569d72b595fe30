package s3test

import (
	"context"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
)

// CutShortUpload starts a 20 MiB upload to path through iceberg-go's file
// IO with props and cancels it before it completes, as a crash or a lost
// connection would: the object must not appear, though its parts may stay
// behind as an open multipart upload.
func CutShortUpload(t testing.TB, props map[string]string, path string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fsys, err := icebergio.LoadFS(ctx, props, path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := fsys.(icebergio.WriteFileIO).Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for i := 0; i < 20; i++ {
		if _, err := w.Write(chunk); err != nil {
			break
		}
	}
	cancel()
	if err := w.Close(); err == nil {
		t.Fatal("s3test: an upload cut short completed")
	}
}
