package maint

import (
	"context"
	"testing"
	"time"
)

// A file a compaction replaced is deleted when the snapshots that added it
// expire; when the compaction's own snapshot expires later, iceberg-go
// deletes it again, and the missing file must not fail the expiry (as it
// did the first kill -9 test with snapshots kept a second).
func TestExpireAfterCompactionTwice(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, nil)
	for i := int64(0); i < 6; i++ {
		e.insert(t, []row{{id: i, ts: at(0)}})
	}
	if rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{}); err != nil || rep.FilesRemoved != 6 {
		t.Fatalf("compact: %+v %v", rep, err)
	}
	later := time.Now().Add(72 * time.Hour)
	for round := 0; round < 3; round++ {
		for i := int64(0); i < 3; i++ {
			e.insert(t, []row{{id: 100*int64(round+1) + i, ts: at(0)}})
		}
		if _, err := MergeManifests(ctx, e.m, "public", "t", true); err != nil {
			t.Fatal(err)
		}
		if _, err := ExpireSnapshots(ctx, e.m, "public", "t", later); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	if ids, _ := e.readBack(t); len(ids) != 6+9 {
		t.Errorf("rows after expiries: %v", ids)
	}
}
