package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

type rec struct {
	pos Pos
	typ byte
	p   []byte
}

func collect(t *testing.T, dir string, opts Options) (*Log, []rec) {
	t.Helper()
	var got []rec
	l, err := Open(dir, opts, func(pos Pos, typ byte, p []byte) error {
		got = append(got, rec{pos, typ, p})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return l, got
}

func payload(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 10+i%50) }

func TestAppendSyncReplay(t *testing.T) {
	for _, segSize := range []int64{64, 1 << 10, DefaultSegmentSize} {
		t.Run(fmt.Sprint(segSize), func(t *testing.T) {
			dir := t.TempDir()
			l, _ := collect(t, dir, Options{SegmentSize: segSize})
			var poss []Pos
			for i := 0; i < 200; i++ {
				p, err := l.Append(byte(1+i%3), payload(i))
				if err != nil {
					t.Fatal(err)
				}
				poss = append(poss, p)
			}
			if err := l.Sync(poss[len(poss)-1]); err != nil {
				t.Fatal(err)
			}
			for i, p := range poss {
				typ, got, err := l.Read(p)
				if err != nil || typ != byte(1+i%3) || !bytes.Equal(got, payload(i)) {
					t.Fatalf("read %d at %s: %v %d", i, p, err, typ)
				}
			}
			l.Close()
			l2, got := collect(t, dir, Options{SegmentSize: segSize})
			defer l2.Close()
			if len(got) != len(poss) {
				t.Fatalf("replayed %d records, want %d", len(got), len(poss))
			}
			for i, r := range got {
				if r.pos != poss[i] || !bytes.Equal(r.p, payload(i)) {
					t.Fatalf("record %d: pos %s want %s", i, r.pos, poss[i])
				}
			}
			if p, _ := l2.Append(1, []byte("x")); p <= poss[len(poss)-1] {
				t.Fatalf("new position %s not after %s", p, poss[len(poss)-1])
			}
		})
	}
}

// damage appends records, then hurts the last segment with f and counts
// what survives a reopen.
func TestDamagedTail(t *testing.T) {
	cases := []struct {
		name string
		hurt func(path string, size int64)
		want int
	}{
		{"torn last record", func(p string, size int64) { os.Truncate(p, size-3) }, 9},
		{"torn header", func(p string, size int64) { os.Truncate(p, size-int64(len(payload(9)))-headerSize+4) }, 9},
		{"bad checksum in last record", func(p string, size int64) { flip(p, size-1) }, 9},
		{"bad length", func(p string, size int64) {
			f, _ := os.OpenFile(p, os.O_RDWR, 0)
			f.WriteAt([]byte{0xff, 0xff, 0xff, 0x7f}, size-int64(len(payload(9)))-headerSize+4)
			f.Close()
		}, 9},
		{"garbage after the end", func(p string, size int64) {
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			f.Write([]byte{1, 2, 3, 4, 5})
			f.Close()
		}, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			l, _ := collect(t, dir, Options{})
			var last Pos
			for i := 0; i < 10; i++ {
				last, _ = l.Append(1, payload(i))
			}
			l.Sync(last)
			l.Close()
			segs, _ := Segments(dir)
			path := segName(dir, segs[len(segs)-1])
			st, _ := os.Stat(path)
			c.hurt(path, st.Size())
			l2, got := collect(t, dir, Options{})
			if len(got) != c.want {
				t.Fatalf("%d records survive, want %d", len(got), c.want)
			}
			// The log appends cleanly after the repair, and both survive.
			p, _ := l2.Append(2, []byte("after"))
			l2.Sync(p)
			l2.Close()
			_, got = collect(t, dir, Options{})
			if len(got) != c.want+1 || string(got[len(got)-1].p) != "after" {
				t.Fatalf("after repair: %d records", len(got))
			}
		})
	}
}

func flip(path string, off int64) {
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	b := make([]byte, 1)
	f.ReadAt(b, off)
	b[0] ^= 0xff
	f.WriteAt(b, off)
	f.Close()
}

func TestCorruptEarlierSegmentIsAnError(t *testing.T) {
	dir := t.TempDir()
	l, _ := collect(t, dir, Options{SegmentSize: 64})
	var last Pos
	for i := 0; i < 20; i++ {
		last, _ = l.Append(1, payload(i))
	}
	l.Sync(last)
	l.Close()
	segs, _ := Segments(dir)
	if len(segs) < 3 {
		t.Fatalf("want several segments, got %d", len(segs))
	}
	flip(segName(dir, segs[0]), headerSize+2)
	_, err := Open(dir, Options{SegmentSize: 64}, nil)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Segment != segs[0] || ce.Offset != 0 {
		t.Fatalf("got %v, want a CorruptError in segment %d at 0", err, segs[0])
	}
}

func TestConcurrentWritersShareSyncs(t *testing.T) {
	dir := t.TempDir()
	l, _ := collect(t, dir, Options{SegmentSize: 4 << 10})
	const writers, each = 8, 200
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[Pos][]byte{}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				p := []byte(fmt.Sprintf("w%d-%d", w, i))
				pos, err := l.Append(1, p)
				if err == nil {
					err = l.Sync(pos)
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[pos] = p
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	l.Close()
	_, got := collect(t, dir, Options{SegmentSize: 4 << 10})
	if len(got) != writers*each {
		t.Fatalf("replayed %d, want %d", len(got), writers*each)
	}
	for _, r := range got {
		if !bytes.Equal(seen[r.pos], r.p) {
			t.Fatalf("record at %s = %q, acknowledged %q", r.pos, r.p, seen[r.pos])
		}
	}
}

func TestTrimBefore(t *testing.T) {
	dir := t.TempDir()
	l, _ := collect(t, dir, Options{SegmentSize: 64})
	var poss []Pos
	for i := 0; i < 20; i++ {
		p, _ := l.Append(1, payload(i))
		poss = append(poss, p)
	}
	l.Sync(poss[len(poss)-1])
	keep := poss[10]
	if err := l.TrimBefore(keep); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, got := collect(t, dir, Options{SegmentSize: 64})
	if len(got) == 0 || got[0].pos > keep {
		t.Fatalf("trim removed a needed record: first left %v, keep %s", got, keep)
	}
	if got[0].pos.Segment() != keep.Segment() {
		t.Fatalf("segments before %d were not removed: first left %s", keep.Segment(), got[0].pos)
	}
}

// Positions keep growing across restarts even when everything was trimmed:
// snapshot summaries record positions, and a reused one would hide new
// records behind an old commit.
func TestPositionsGrowAcrossTrimmedRestarts(t *testing.T) {
	dir := t.TempDir()
	var last Pos
	for round := 0; round < 4; round++ {
		l, _ := collect(t, dir, Options{SegmentSize: 64})
		if round%2 == 0 { // every other run writes nothing at all
			for i := 0; i < 5; i++ {
				p, err := l.Append(1, payload(i))
				if err != nil {
					t.Fatal(err)
				}
				if p <= last {
					t.Fatalf("round %d: position %s not after %s", round, p, last)
				}
				last = p
			}
			l.Sync(last)
		}
		if err := l.TrimBefore(l.End()); err != nil {
			t.Fatal(err)
		}
		l.Close()
		if segs, _ := Segments(dir); len(segs) == 0 {
			t.Fatalf("round %d: trimming removed every segment", round)
		}
	}
}

// Large appends past the pending-bytes bound are written out by the
// appender itself; this once spun forever once the buffer was written.
func TestLargeAppendsDoNotStall(t *testing.T) {
	dir := t.TempDir()
	l, _ := collect(t, dir, Options{SegmentSize: 16 << 20})
	big := bytes.Repeat([]byte{7}, 3<<20)
	done := make(chan error, 1)
	go func() {
		var last Pos
		for i := 0; i < 12; i++ {
			p, err := l.Append(1, big)
			if err != nil {
				done <- err
				return
			}
			last = p
		}
		done <- l.Sync(last)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("appends of 36 MiB did not finish in 30s")
	}
	l.Close()
	_, got := collect(t, dir, Options{SegmentSize: 16 << 20})
	if len(got) != 12 {
		t.Fatalf("replayed %d records, want 12", len(got))
	}
}
