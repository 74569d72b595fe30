package link

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
)

// memLeases keeps leases in memory with the Store's semantics.
type memLeases struct {
	mu sync.Mutex
	m  map[Key]meta.Lease
}

func (l *memLeases) AcquireLease(_ context.Context, ns, name string, h meta.Holder, ttl time.Duration) (meta.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := Key{ns, name}
	cur, ok := l.m[k]
	if ok && cur.Holder.ID != h.ID && time.Now().Before(cur.Expires) {
		return cur, meta.ErrLeaseHeld
	}
	l.m[k] = meta.Lease{Holder: h, Expires: time.Now().Add(ttl)}
	return l.m[k], nil
}

func (l *memLeases) Lease(_ context.Context, ns, name string) (meta.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.m[Key{ns, name}]
	if !ok {
		return meta.Lease{}, meta.ErrNotFound
	}
	return cur, nil
}

func (l *memLeases) ReleaseLease(_ context.Context, ns, name, id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.m[Key{ns, name}]; ok && cur.Holder.ID == id {
		delete(l.m, Key{ns, name})
	}
	return nil
}

func (e *env) openAs(t *testing.T, dir string, leases Leases, id string, ttl time.Duration) *Manager {
	t.Helper()
	m, err := Open(context.Background(), e.store, Options{Dir: dir, LinkInterval: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Leases: leases,
		Holder: meta.Holder{ID: id, Address: "127.0.0.1:" + id}, LeaseTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Two servers on one catalog: one writes a table at a time, the other is
// refused with the writer's address, reads the writer's commits, and takes
// over once the lease is released or expires.
func TestOneWriterPerTable(t *testing.T) {
	e := newEnv(t)
	leases := &memLeases{m: map[Key]meta.Lease{}}
	a := e.openAs(t, t.TempDir(), leases, "5001", 300*time.Millisecond)
	b := e.openAs(t, t.TempDir(), leases, "5002", 300*time.Millisecond)
	defer b.Close()

	write(t, a, 0, 100, 50, true)
	_, err := b.Begin(context.Background(), "public", "t")
	if pgerr.Code(err) != "55006" || !strings.Contains(err.Error(), "127.0.0.1:5001") {
		t.Fatalf("second writer: %v; want 55006 naming 127.0.0.1:5001", err)
	}
	if err := a.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	all, _ := seen(t, b, e)
	exactly(t, "b reads a's commit", all, 0, 100)

	// Expiry: a stops renewing (no writes, nothing pending).
	time.Sleep(400 * time.Millisecond)
	write(t, b, 100, 150, 50, true)
	if err := b.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Close()
	all, ice := seen(t, b, e)
	exactly(t, "after takeover", all, 0, 150)
	exactly(t, "iceberg after takeover", ice, 0, 150)
}
