package meta

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/loamdb/loam/storage/s3test"
)

// flaky answers the first tries of every request with throttling or a
// 5xx, then passes it to the real server.
type flaky struct {
	next  http.Handler
	fails int // answers refused before one is passed on

	mu    sync.Mutex
	seen  map[string]int
	codes []int
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.String()
	f.mu.Lock()
	n := f.seen[key]
	f.seen[key] = n + 1
	f.mu.Unlock()
	if n < f.fails {
		io.Copy(io.Discard, r.Body)
		code, kind := http.StatusServiceUnavailable, "SlowDown"
		if n%2 == 1 {
			code, kind = http.StatusInternalServerError, "InternalError"
		}
		f.mu.Lock()
		f.codes = append(f.codes, code)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(code)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+kind+`</Code><Message>try again</Message></Error>`)
		return
	}
	f.next.ServeHTTP(w, r)
}

// TestS3RetriesThrottlingAnd5xx: writes and reads through an endpoint
// that throttles and fails each request three times still succeed.
func TestS3RetriesThrottlingAnd5xx(t *testing.T) {
	srv := s3test.Shared(t)
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	f := &flaky{next: httputil.NewSingleHostReverseProxy(target), fails: 3, seen: map[string]int{}}
	proxy := httptest.NewServer(f)
	defer proxy.Close()

	wh := srv.NewWarehouse(t)
	props, err := WarehouseIO(wh, S3{Endpoint: proxy.URL})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := icebergio.LoadFS(context.Background(), props, wh)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("retry me "), 1000)
	if err := fsys.(icebergio.WriteFileIO).WriteFile(wh+"/data/f.parquet", body); err != nil {
		t.Fatalf("write through a flaky endpoint: %v", err)
	}
	r, err := fsys.Open(wh + "/data/f.parquet")
	if err != nil {
		t.Fatalf("open through a flaky endpoint: %v", err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(body))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.codes) < 6 {
		t.Errorf("the endpoint refused %d requests; the test did not exercise retries", len(f.codes))
	}
}
