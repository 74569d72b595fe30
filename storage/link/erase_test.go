package link

import (
	"context"
	"testing"
)

// EraseLog commits every tail and leaves one segment, the new one, once no
// transaction is open; a transaction open across it keeps the segments it
// needs (pinned), and a later EraseLog removes them once it has ended,
// without losing its rows.
func TestEraseLog(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	m := e.open(t)
	write(t, m, 0, 300, 50, true) // several 4 kB segments
	if segs, _ := walSegments(e.dir + "/wal"); len(segs) < 2 {
		t.Fatalf("segments %v: the test needs several", segs)
	}
	pinned, err := m.EraseLog(ctx)
	if err != nil || pinned {
		t.Fatalf("EraseLog: pinned %v, %v", pinned, err)
	}
	if segs, _ := walSegments(e.dir + "/wal"); len(segs) != 1 {
		t.Errorf("segments %v after EraseLog, want the one new", segs)
	}
	all, ice := seen(t, m, e)
	exactly(t, "all", all, 0, 300)
	exactly(t, "iceberg", ice, 0, 300)

	open, err := m.Begin(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := open.Add(rows(t, open, 300, 310)); err != nil {
		t.Fatal(err)
	}
	write(t, m, 310, 400, 50, true)
	if pinned, err = m.EraseLog(ctx); err != nil || !pinned {
		t.Fatalf("EraseLog with a transaction open: pinned %v, %v; want pinned", pinned, err)
	}
	if err := open.Commit(); err != nil {
		t.Fatal(err)
	}
	if pinned, err = m.EraseLog(ctx); err != nil || pinned {
		t.Fatalf("EraseLog after it ended: pinned %v, %v", pinned, err)
	}
	if segs, _ := walSegments(e.dir + "/wal"); len(segs) != 1 {
		t.Errorf("segments %v after the last EraseLog, want one", segs)
	}
	m.Close()
	m = e.open(t)
	defer m.Close()
	all, ice = seen(t, m, e)
	exactly(t, "all after a restart", all, 0, 400)
	exactly(t, "iceberg after a restart", ice, 0, 400)
}
