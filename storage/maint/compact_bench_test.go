package maint

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCompact rewrites 16 small files of a partition (4096 rows each,
// sorted by id, as the link writes them) into one, reporting the cost per
// row read, sorted and written: go test -bench Compact -run '^$' ./storage/maint/
func BenchmarkCompact(b *testing.B) {
	const files, perFile = 16, 4096
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := newEnv(b, nil)
		for f := 0; f < files; f++ {
			rows := make([]row, perFile)
			for r := range rows {
				rows[r] = row{id: int64(r*files + f), ts: at(time.Duration(r) * time.Second), x: int64(r)}
			}
			e.insert(b, rows)
		}
		b.StartTimer()
		rep, err := Compact(ctx, e.m, "public", "t", now, CompactOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.FilesRemoved != files || rep.FilesAdded != 1 {
			b.Fatalf("compaction replaced %d files with %d", rep.FilesRemoved, rep.FilesAdded)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*files*perFile), "ns/row")
}
