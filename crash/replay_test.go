package crash

import (
	"context"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestVisibleOnOtherConnectionRightAfterAck: a row is visible to another
// connection as soon as its INSERT is acknowledged, while it lives only in
// the log tail (the link runs hourly), and still once after CHECKPOINT.
func TestVisibleOnOtherConnectionRightAfterAck(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, t.TempDir(), t.TempDir(), time.Hour)
	a, b := connect(t, ctx, srv), connect(t, ctx, srv)
	mustExec(t, ctx, a, createT)
	led := newLedger()
	deadline := time.Now().Add(40 * time.Second)
	for i := 0; i < 200 && time.Now().Before(deadline); i++ {
		mode := modeExtended
		if i%2 == 1 {
			mode = modeSimple
		}
		s := led.alloc(0, 0, mode, 1)
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := sendStmt(sctx, a, s)
		led.done(s, err)
		if err != nil {
			cancel()
			t.Fatalf("insert %d: %v", i, err)
		}
		var got []int64
		rows, err := b.Query(sctx, "SELECT id FROM t WHERE id = $1", s.lo)
		if err == nil {
			got, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
		cancel()
		if err != nil {
			t.Fatalf("select %d: %v", s.lo, err)
		}
		if len(got) != 1 || got[0] != s.lo {
			t.Fatalf("iteration %d: row id=%d acknowledged on connection A; SELECT on connection B right after returned %v", i, s.lo, got)
		}
	}
	res := led.check("Loam before CHECKPOINT", selectIDs(t, ctx, b), true)
	reportCheck(t, res)
	mustExec(t, ctx, b, "CHECKPOINT")
	for _, c := range []*pgx.Conn{a, b} {
		res = led.check("Loam after CHECKPOINT", selectIDs(t, ctx, c), true)
		reportCheck(t, res)
	}
	// Point lookups after the rows moved into Iceberg.
	for _, s := range led.stmts {
		var got []int64
		rows, err := b.Query(ctx, "SELECT id FROM t WHERE id = $1", s.lo)
		if err == nil {
			got, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
		if err != nil {
			t.Fatalf("select %d after CHECKPOINT: %v", s.lo, err)
		}
		if len(got) != 1 {
			t.Errorf("after CHECKPOINT, SELECT id FROM t WHERE id = %d returned %v", s.lo, got)
		}
	}
	t.Logf("%d rows checked", len(led.stmts))
}

// writeBatch sends statements of random modes and sizes until rows rows
// are sent, all on one connection; each must be acknowledged.
func writeBatch(t *testing.T, ctx context.Context, c *pgx.Conn, led *ledger, rng *rand.Rand, round, rows int, cfg ingestCfg) {
	t.Helper()
	modes := []string{modeSimple, modeExtended}
	if cfg.copyText {
		modes = append(modes, modeCopyText)
	}
	if cfg.copyCSV {
		modes = append(modes, modeCopyCSV)
	}
	if cfg.copyBin {
		modes = append(modes, modeCopyBin)
	}
	for sent := 0; sent < rows; {
		mode := modes[rng.Intn(len(modes))]
		n := min(rows-sent, rowsFor(rng, 500))
		s := led.alloc(round, 0, mode, n)
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := sendStmt(sctx, c, s)
		cancel()
		led.done(s, err)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		sent += n
	}
}

// TestRestartReplaysTail: rows acknowledged but not yet linked survive a
// clean shutdown, come back exactly once from the log, and reach Iceberg
// with CHECKPOINT.
func TestRestartReplaysTail(t *testing.T) {
	ctx := context.Background()
	dataDir, logDir := t.TempDir(), t.TempDir()
	seed := seedFromEnv(t)
	rng := rand.New(rand.NewSource(seed))
	led := newLedger()

	srv := startServer(t, dataDir, logDir, time.Hour)
	c := connect(t, ctx, srv)
	mustExec(t, ctx, c, createT)
	cfg := probeCopy(t, ctx, srv, led)
	writeBatch(t, ctx, c, led, rng, 0, 5000, cfg)
	reportCheck(t, led.check("Loam before the restart", selectIDs(t, ctx, c), true))
	c.Close(ctx)
	srv.stop()

	srv = startServer(t, dataDir, logDir, time.Hour)
	c = connect(t, ctx, srv)
	res := led.check("Loam after the restart", selectIDs(t, ctx, c), true)
	t.Logf("after the restart: %s", res)
	reportCheck(t, res)
	mustExec(t, ctx, c, "CHECKPOINT")
	reportCheck(t, led.check("Loam after CHECKPOINT", selectIDs(t, ctx, c), true))
	c.Close(ctx)
	srv.stop()

	ids, files := icebergIDs(t, ctx, dataDir)
	res = led.check("iceberg-go after CHECKPOINT", ids, true)
	t.Logf("iceberg-go: %s", res)
	reportCheck(t, res)
	if m := missingFiles(t, dataDir, files); len(m) > 0 {
		t.Errorf("the current snapshot references %d files that do not exist: %v", len(m), m)
	}
	if o := orphanDataFiles(t, dataDir, files); len(o) > 0 {
		t.Logf("ORPHANS: %d unreferenced data files: %v", len(o), o)
	}
	if t.Failed() {
		t.Logf("server log:\n%s", srv.logTail())
	}
}

// TestAckedRowsSurviveKillAfterIdleRestart: once the link has committed
// everything and trimmed the log, a restart that writes nothing leaves
// the log directory without segments. The next start must still place
// new log records after the position the Iceberg snapshot records, or a
// crash loses acknowledged rows on replay (invariant 2).
//
// It caught a data-loss bug: trimming removed every segment after an idle
// run, wal.Open restarted at segment 1, and link.Open skipped the new
// commits as lying before the snapshot's position.
func TestAckedRowsSurviveKillAfterIdleRestart(t *testing.T) {
	ctx := context.Background()
	dataDir, logDir := t.TempDir(), t.TempDir()
	led := newLedger()
	rng := rand.New(rand.NewSource(1))

	// Run 1: enough rows that the log reaches well into segment 1.
	srv := startServer(t, dataDir, logDir, time.Hour)
	c := connect(t, ctx, srv)
	mustExec(t, ctx, c, createT)
	writeBatch(t, ctx, c, led, rng, 0, 3000, ingestCfg{})
	mustExec(t, ctx, c, "CHECKPOINT")
	c.Close(ctx)
	srv.stop()

	// Run 2: nothing written; the link commits nothing new and trims the
	// log, whose only segment lies wholly before the position committed.
	srv = startServer(t, dataDir, logDir, time.Hour)
	c = connect(t, ctx, srv)
	mustExec(t, ctx, c, "CHECKPOINT")
	reportCheck(t, led.check("Loam in the idle run", selectIDs(t, ctx, c), true))
	c.Close(ctx)
	srv.stop()
	segs, _ := filepath.Glob(filepath.Join(dataDir, "*", "*.seg"))
	t.Logf("log segments after the idle run: %v", segs)

	// Run 3: a few acknowledged rows, then SIGKILL before any link commit.
	srv = startServer(t, dataDir, logDir, time.Hour)
	c = connect(t, ctx, srv)
	for i := 0; i < 5; i++ {
		s := led.alloc(3, 0, modeExtended, 1)
		err := sendStmt(ctx, c, s)
		led.done(s, err)
		if err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	reportCheck(t, led.check("Loam before the kill", selectIDs(t, ctx, c), true))
	c.Close(ctx)
	srv.kill()
	segs, _ = filepath.Glob(filepath.Join(dataDir, "*", "*.seg"))
	t.Logf("log segments at the kill: %v", segs)

	srv = startServer(t, dataDir, logDir, time.Hour)
	c = connect(t, ctx, srv)
	res := led.check("Loam after the kill", selectIDs(t, ctx, c), false)
	reportCheck(t, res)
	mustExec(t, ctx, c, "CHECKPOINT")
	reportCheck(t, led.check("Loam after CHECKPOINT", selectIDs(t, ctx, c), false))
	c.Close(ctx)
	srv.stop()
	if t.Failed() {
		t.Logf("server log:\n%s", srv.logTail())
	}
}
