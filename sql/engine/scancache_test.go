package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/storage/s3test"
)

// TestScanCache checks that scans answer the same from the column cache
// as from the files, across new snapshots, for concurrent sessions.
func TestScanCache(t *testing.T) {
	dir := t.TempDir()
	cached := openEngineAt(t, dir)
	s := newSession(t, cached)
	mustRun(t, s, "CREATE TABLE ev (ts TIMESTAMP WITH TIME ZONE, tenant TEXT, n INTEGER) PARTITIONED BY (day(ts))")
	insert := func(from, to int) {
		var vals []string
		for i := from; i < to; i++ {
			vals = append(vals, fmt.Sprintf("('2026-11-%02d 10:00+00', 't%d', %d)", 1+i%5, i%7, i))
		}
		mustRun(t, s, "INSERT INTO ev VALUES "+strings.Join(vals, ","))
		mustRun(t, s, "CHECKPOINT")
	}
	q := "SELECT tenant, count(*), sum(n), min(ts) FROM ev GROUP BY tenant ORDER BY tenant"
	insert(0, 500)
	// A filtered scan first: files it reads go into the cache whole, not
	// just the rows that passed (Iceberg's residual filter is not applied
	// to rows), so the queries after it see every row.
	wantN, wantSum := 0, 0
	for i := 0; i < 500; i++ {
		if i%7 == 3 && i%5 != 0 { // tenant t3, on or after Nov 2
			wantN, wantSum = wantN+1, wantSum+i
		}
	}
	got := mustRun(t, s, "SELECT count(*), sum(n) FROM ev WHERE tenant = 't3' AND ts >= '2026-11-02' AND n >= 0").rows[0]
	if got[0] != fmt.Sprint(wantN) || got[1] != fmt.Sprint(wantSum) {
		t.Fatalf("filtered count, sum %v, want %d, %d", got, wantN, wantSum)
	}
	if got := mustRun(t, s, "SELECT count(*) FROM ev WHERE ts IS NOT NULL AND tenant IS NOT NULL AND n >= 0").rows[0][0]; got != "500" {
		t.Fatalf("after a filtered scan, %s rows, want 500", got)
	}
	// A row with a NULL in another column than the filter's is found
	// (iceberg-go's row filter would drop it).
	mustRun(t, s, "INSERT INTO ev VALUES ('2026-11-03 10:00+00', NULL, 100000)")
	mustRun(t, s, "CHECKPOINT")
	if got := mustRun(t, s, "SELECT count(*) FROM ev WHERE n = 100000").rows[0][0]; got != "1" {
		t.Fatalf("row with a NULL tenant: count %s, want 1", got)
	}
	first := show(mustRun(t, s, q).rows)
	// Warm, then again from the cache, from several sessions at once.
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			sw, err := cached.NewSession("loam", "loam", nil)
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < 3; i++ {
				rs, err := runSQL(context.Background(), sw, q)
				if err != nil {
					errs <- err
					return
				}
				if got := show(rs[0].rows); got != first {
					errs <- fmt.Errorf("run %d: %s, want %s", i, got, first)
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// A new snapshot adds files: the cached ones stay right, the new ones
	// are read.
	insert(500, 800)
	second := show(mustRun(t, s, q).rows)
	if second == first {
		t.Fatal("the second insert changed nothing")
	}
	// The same data without a cache answers the same.
	cached.Close()
	wh, whIO := s3test.Warehouse(t, dir)
	plain, err := engine.Open(context.Background(), engine.Config{
		MetastoreURL: "sqlite://" + dir + "/meta.db", WarehouseURL: wh, WarehouseIO: whIO,
		DataDir: dir, ScanCacheBytes: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if got := show(mustRun(t, newSession(t, plain), q).rows); got != second {
		t.Fatalf("without cache %s, with cache %s", got, second)
	}
}
