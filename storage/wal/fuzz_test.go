package wal

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzReplayDamaged writes records, damages one segment file (cut short,
// bytes overwritten, bytes appended) and opens the log again. Replay must
// never panic nor yield garbage: damage in the last segment leaves a
// prefix of the records written, which a second open replays the same
// and after which the log appends cleanly; damage in an earlier segment
// is ErrCorrupt or yields only records that were written, at their
// positions. Without -fuzz the seeds run as a unit test.
//
//	go test ./storage/wal/ -run '^$' -fuzz FuzzReplayDamaged -fuzztime 60s
func FuzzReplayDamaged(f *testing.F) {
	// recs: each record is its first byte's worth (mod 48) of the bytes
	// that follow; mode: 0 cut, 1 overwrite, 2 append.
	f.Add([]byte("\x05hello\x03abc\x00\x10sixteen bytes..."), uint16(0), uint8(0), uint8(0), uint32(20), []byte{})
	f.Add([]byte("\x05hello\x03abc\x07goodbye"), uint16(0), uint8(0), uint8(1), uint32(4), []byte{0xff, 0xff, 0xff, 0x7f})
	f.Add([]byte("\x05hello\x03abc\x07goodbye"), uint16(0), uint8(0), uint8(1), uint32(8), []byte{0})
	f.Add([]byte("\x05hello\x03abc\x07goodbye"), uint16(0), uint8(0), uint8(2), uint32(0), []byte{1, 2, 3, 4, 5})
	f.Add([]byte("\x05hello\x03abc\x07goodbye\x02hi\x04four"), uint16(24), uint8(0), uint8(1), uint32(12), []byte("xyz"))
	f.Add([]byte("\x05hello\x03abc\x07goodbye\x02hi\x04four"), uint16(24), uint8(1), uint8(0), uint32(3), []byte{})
	f.Add([]byte("\x05hello\x03abc\x07goodbye\x02hi\x04four"), uint16(24), uint8(9), uint8(2), uint32(0), []byte("\x00\x00\x00\x00\x00\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, recs []byte, segSize uint16, damageSeg, mode uint8, off uint32, patch []byte) {
		if len(recs) > 1<<12 || len(patch) > 1<<10 {
			return
		}
		opts := Options{SegmentSize: int64(segSize), NoSync: true} // durability is not what this tests
		dir := t.TempDir()
		l, err := Open(dir, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		var written []rec
		for len(recs) > 0 {
			n := min(int(recs[0])%48, len(recs)-1)
			p := bytes.Clone(recs[1 : 1+n])
			recs = recs[1+n:]
			typ := byte(1 + len(written)%3)
			pos, err := l.Append(typ, p)
			if err != nil {
				t.Fatal(err)
			}
			written = append(written, rec{pos, typ, p})
		}
		if len(written) > 0 {
			if err := l.Sync(written[len(written)-1].pos); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		segs, err := Segments(dir)
		if err != nil || len(segs) == 0 {
			return
		}
		seg := segs[int(damageSeg)%len(segs)]
		last := seg == segs[len(segs)-1]
		damage(t, segName(dir, seg), mode, int64(off), patch)

		var got []rec
		l2, err := Open(dir, opts, func(pos Pos, typ byte, p []byte) error {
			got = append(got, rec{pos, typ, p})
			return nil
		})
		if !last {
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("damage in segment %d of %v: %v, want ErrCorrupt", seg, segs, err)
				}
				return
			}
			l2.Close()
			for _, g := range got {
				if !wasWritten(written, g) {
					t.Fatalf("replayed a record never written: %v type %d %q", g.pos, g.typ, g.p)
				}
			}
			return
		}
		if err != nil {
			t.Fatalf("damage in the last segment: %v", err)
		}
		// Appended bytes may form whole records of their own: only those
		// may follow the records written.
		m := 0
		for m < len(got) && m < len(written) && sameRec(got[m], written[m]) {
			m++
		}
		for _, g := range got[m:] {
			if mode%3 != 2 || m < len(written) {
				t.Fatalf("replayed %d records, the first %d as written, then %v type %d %q", len(got), m, g.pos, g.typ, g.p)
			}
		}
		// The cut is durable: the log appends after what survived, and a
		// second open replays the same records and the new one.
		p, err := l2.Append(7, []byte("after"))
		if err != nil {
			t.Fatal(err)
		}
		if err := l2.Sync(p); err != nil {
			t.Fatal(err)
		}
		l2.Close()
		var again []rec
		l3, err := Open(dir, opts, func(pos Pos, typ byte, p []byte) error {
			again = append(again, rec{pos, typ, p})
			return nil
		})
		if err != nil {
			t.Fatalf("second open: %v", err)
		}
		l3.Close()
		if len(again) != len(got)+1 || !sameRec(again[len(got)], rec{p, 7, []byte("after")}) {
			t.Fatalf("second open replayed %d records, want the %d of the first and the new one", len(again), len(got))
		}
		for i := range got {
			if !sameRec(again[i], got[i]) {
				t.Fatalf("second open: record %d differs", i)
			}
		}
	})
}

// damage cuts the file at off (mode 0), overwrites it with patch at off
// (1) or appends patch (2); off wraps to the file's size.
func damage(t *testing.T, path string, mode uint8, off int64, patch []byte) {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()
	if size > 0 {
		off %= size + 1
	} else {
		off = 0
	}
	switch mode % 3 {
	case 0:
		err = os.Truncate(path, off)
	case 1:
		var f *os.File
		if f, err = os.OpenFile(path, os.O_RDWR, 0); err == nil {
			_, err = f.WriteAt(patch, off)
			f.Close()
		}
	case 2:
		var f *os.File
		if f, err = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0); err == nil {
			_, err = f.Write(patch)
			f.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func sameRec(a, b rec) bool { return a.pos == b.pos && a.typ == b.typ && bytes.Equal(a.p, b.p) }

func wasWritten(written []rec, g rec) bool {
	for _, w := range written {
		if sameRec(w, g) {
			return true
		}
	}
	return false
}
