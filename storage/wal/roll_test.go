package wal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Roll lets TrimBefore remove the segment being written: afterwards no
// file of the log holds a byte of the records before the roll, and the
// records after it, and positions, carry on.
func TestRollThenTrimLeavesNoOldRecord(t *testing.T) {
	dir := t.TempDir()
	l, _ := collect(t, dir, Options{})
	marker := []byte("erase-me-7f3a9c1e")
	var last Pos
	for i := 0; i < 3; i++ {
		p, err := l.Append(1, append([]byte{byte(i)}, marker...))
		if err != nil {
			t.Fatal(err)
		}
		last = p
	}
	if err := l.Sync(last); err != nil {
		t.Fatal(err)
	}
	if !dirHolds(t, dir, marker) {
		t.Fatal("the log does not hold the records: the search finds nothing")
	}
	// Without a roll the segment being written stays.
	if err := l.TrimBefore(l.End()); err != nil {
		t.Fatal(err)
	}
	if !dirHolds(t, dir, marker) {
		t.Fatal("trim removed the segment being written")
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if err := l.TrimBefore(l.End()); err != nil {
		t.Fatal(err)
	}
	if dirHolds(t, dir, marker) {
		t.Error("a segment still holds records from before the roll")
	}
	p, err := l.Append(2, []byte("after"))
	if err != nil {
		t.Fatal(err)
	}
	if p <= last {
		t.Errorf("position %s after the roll is not after %s", p, last)
	}
	if err := l.Sync(p); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, got := collect(t, dir, Options{})
	if len(got) != 1 || got[0].pos != p || string(got[0].p) != "after" {
		t.Errorf("replay after the roll: %v, want the one record at %s", got, p)
	}
}

// Rolling an empty log, or twice in a row, makes one empty segment.
func TestRollTwice(t *testing.T) {
	dir := t.TempDir()
	l, _ := collect(t, dir, Options{})
	for range 2 {
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	p, err := l.Append(1, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	l.Sync(p)
	l.Close()
	segs, _ := Segments(dir)
	if len(segs) != 1 {
		t.Errorf("segments %v, want one", segs)
	}
	_, got := collect(t, dir, Options{})
	if len(got) != 1 {
		t.Errorf("replayed %v", got)
	}
}

func dirHolds(t *testing.T, dir string, b []byte) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found = found || bytes.Contains(data, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
