package maint

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/link"
)

// A table nobody writes is still looked after, by the server that wrote
// it last or by any server when its writer let it go; never while another
// server's lease, even a lapsed one, says that server wrote it last.
func TestRunnerKeepsIdleTables(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, nil)
	ms := e.meta
	server := func(id string, ttl time.Duration) *link.Manager {
		m, err := link.Open(ctx, e.store, link.Options{Dir: t.TempDir(), LinkInterval: time.Hour,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Leases: ms,
			Holder: meta.Holder{ID: id, Address: "127.0.0.1:" + id}, LeaseTTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	e.m.Close()
	writer := server("6001", 50*time.Millisecond)
	e.m = writer
	for i := int64(0); i < 6; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	time.Sleep(100 * time.Millisecond) // the writer's lease lapses; its record stays

	other := server("6002", time.Minute)
	r := NewRunner(other, slog.New(slog.NewTextHandler(testWriter{t}, nil)), 10*time.Millisecond)
	r.pass(ctx)
	if _, files := e.readBack(t); len(files) != 6 {
		t.Fatalf("the other server compacted a table another wrote last: %d files", len(files))
	}

	// The writer's own runner looks after it, idle as it is.
	wr := NewRunner(writer, slog.New(slog.NewTextHandler(testWriter{t}, nil)), 10*time.Millisecond)
	wr.pass(ctx)
	ids, files := e.readBack(t)
	if len(files) != 1 || len(ids) != 6 {
		t.Fatalf("idle table by its last writer: %d files, rows %v", len(files), ids)
	}

	// A writer that let the table go at shutdown leaves it to anyone.
	for i := int64(6); i < 12; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	writer.Close()
	r.idleSwept = time.Time{}
	r.pass(ctx)
	if ids, files := e.readBack(t); len(files) != 1 || len(ids) != 12 {
		t.Fatalf("table released by its writer: %d files, %d rows", len(files), len(ids))
	}
}

// testWriter logs through t, so a failed upkeep says why.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
