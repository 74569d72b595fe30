package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// UPDATEs and CHECKPOINTs in one session while another VACUUMs the table
// over and over: compaction rewrites files whose rows the UPDATEs delete,
// and neither loses the other's work (docs/upkeep.md, Compaction).
func TestVacuumBesideUpdates(t *testing.T) {
	e := openEngine(t)
	s, v := newSession(t, e), newSession(t, e)
	mustRun(t, s, "CREATE TABLE c (id int, n int)")
	for i := 1; i <= 20; i++ {
		mustRun(t, s, fmt.Sprintf("INSERT INTO c VALUES (%d, 0)", i))
		if i%4 == 0 {
			mustRun(t, s, "CHECKPOINT")
		}
	}
	const updates = 60
	done := make(chan struct{})
	var wg sync.WaitGroup
	var vacuums int
	var verr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := runSQL(context.Background(), v, "VACUUM c"); err != nil {
				verr = err
				return
			}
			vacuums++
		}
	}()
	for i := 0; i < updates; i++ {
		mustRun(t, s, fmt.Sprintf("UPDATE c SET n = n + 1 WHERE id = %d", i%20+1))
		if i%7 == 0 {
			mustRun(t, s, "CHECKPOINT")
		}
	}
	close(done)
	wg.Wait()
	if verr != nil {
		t.Fatal(verr)
	}
	mustRun(t, s, "VACUUM c")
	r := mustRun(t, s, "SELECT count(*), sum(n), min(n), max(n) FROM c")
	if got := fmt.Sprint(r.rows[0]); got != "[20 60 3 3]" {
		t.Errorf("count, sum, min, max %s, want [20 60 3 3]", got)
	}
	t.Logf("%d VACUUMs beside %d UPDATEs", vacuums, updates)
}
