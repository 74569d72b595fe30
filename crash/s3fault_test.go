package crash

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/storage/s3test"
)

// TestS3Outage stops the S3 server under a Loam server that ingests
// without pause, and starts it again: while it is down every INSERT is
// still acknowledged (the write log is on local disk) and Loam's SELECT
// still sees every acknowledged row; the link's commits fail and are
// retried, so no snapshot is added, and once S3 is back they resume. Loam
// is also SIGKILLed once while S3 is down and started again. At the end,
// after CHECKPOINT, iceberg-go reading the bucket alone finds exactly the
// acknowledged rows, every file the snapshots reference exists, and after
// VACUUM no object of the table is left that no snapshot references.
//
// It runs on a SeaweedFS server of its own (s3test.Start), whatever
// LOAM_TEST_WAREHOUSE says.
func TestS3Outage(t *testing.T) {
	if testing.Short() {
		t.Skip("stops and restarts an S3 server")
	}
	if s3test.Enabled() {
		t.Skip("runs on a server of its own in the file:// pass already")
	}
	ctx := context.Background()
	seed := seedFromEnv(t)
	rng := rand.New(rand.NewSource(seed))
	began := time.Now()
	store := s3test.Start(t)
	t.Logf("S3 server up after %v", time.Since(began).Round(time.Millisecond))
	w := s3Warehouse(t, store)
	dataDir, logDir := t.TempDir(), t.TempDir()
	useWarehouse(dataDir, w)
	led := newLedger()
	const link = 300 * time.Millisecond

	srv := startServer(t, dataDir, logDir, link)
	c := connect(t, ctx, srv)
	mustExec(t, ctx, c, createT)
	c.Close(ctx)

	ing := startIngest(t, srv, led, rng.Int63())
	snaps := waitForSnapshots(t, ctx, srv, 2, "before the outage")
	t.Logf("%d snapshots before the outage", snaps)

	// A SELECT before the outage fills the caches (manifests, columns)
	// that later ones may be answered from.
	checkAcked(t, ctx, srv, led, "Loam before the outage", false)

	selects, answered := 0, 0
	check := func(where string) {
		t.Helper()
		selects++
		if checkAcked(t, ctx, srv, led, where, true) {
			answered++
		}
	}

	// The first outage, 20 s: S3 is killed as a crash would kill it.
	outage := time.Now()
	store.Stop()
	t.Logf("S3 stopped")
	check("Loam at the start of the outage")
	// A commit whose uploads were done when S3 stopped may still land:
	// count after it.
	time.Sleep(3 * time.Second)
	atStop := countSnapshots(t, ctx, srv)
	// A CHECKPOINT while S3 is down must wait for it or fail, not hang.
	ckpt := make(chan error, 1)
	go func() {
		c, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			ckpt <- err
			return
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, "CHECKPOINT")
		ckpt <- err
	}()
	for time.Since(outage) < 20*time.Second {
		time.Sleep(2 * time.Second)
		check("Loam while S3 is down")
	}
	if n := countSnapshots(t, ctx, srv); n != atStop {
		t.Errorf("t$snapshots went from %d to %d while S3 was down", atStop, n)
	}
	ckptDone := false
	select {
	case err := <-ckpt:
		ckptDone = true
		if err == nil {
			t.Errorf("CHECKPOINT succeeded while S3 was down")
		} else {
			t.Logf("CHECKPOINT while S3 is down failed: %s", firstLine(err.Error()))
		}
	default:
		t.Logf("CHECKPOINT while S3 is down still waiting after %v", time.Since(outage).Round(time.Second))
	}

	// S3 comes back: the link's retries commit the backlog.
	if err := store.Restart(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	t.Logf("S3 back after an outage of %v", back.Sub(outage).Round(time.Millisecond))
	waitForSnapshots(t, ctx, srv, atStop+1, "after the outage")
	t.Logf("the link committed again %v after S3 came back", time.Since(back).Round(time.Millisecond))
	if !ckptDone {
		select {
		case err := <-ckpt:
			if err != nil {
				t.Errorf("CHECKPOINT begun while S3 was down failed after it came back: %v", err)
			} else {
				t.Logf("CHECKPOINT begun while S3 was down finished %v after S3 came back", time.Since(back).Round(time.Millisecond))
			}
		case <-time.After(3 * time.Minute):
			t.Fatalf("CHECKPOINT begun while S3 was down still hangs 3 minutes after it came back; log:\n%s", srv.logTail())
		}
	}
	checkAcked(t, ctx, srv, led, "Loam after the outage", false)
	if fails := srv.logLines("link commit failed; will retry"); len(fails) > 0 {
		t.Logf("%d failed link commits logged, e.g. %s", len(fails), firstLine(fails[0]))
	}

	// The second outage: Loam is SIGKILLed while S3 is down, and started
	// again on the same data dir.
	store.Stop()
	outage2 := time.Now()
	t.Logf("S3 stopped again")
	time.Sleep(3 * time.Second)
	ing.kill(t, srv)
	beforeKill := led.ackedCount()
	t.Logf("Loam killed with S3 down: %s", led.statsByMode())
	// Loam opens each table's metadata from the bucket at start: with S3
	// down it may not start at all, but must not lose anything for it.
	if s, err := tryStart(t, dataDir, logDir, link, w.serveArgs()...); err == nil {
		t.Logf("Loam started again with S3 down")
		srv = s
		check("Loam restarted while S3 is down")
		ing = startIngest(t, srv, led, rng.Int63())
		for time.Since(outage2) < 15*time.Second {
			time.Sleep(2 * time.Second)
			check("Loam while S3 is down, after the restart")
		}
	} else {
		t.Logf("Loam does not start while S3 is down: %s", firstLine(err.Error()))
		ing = nil
	}
	if err := store.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Logf("S3 back after %v", time.Since(outage2).Round(time.Millisecond))
	t.Logf("%d of %d SELECTs while S3 was down answered (the others failed on a file in no cache)", answered, selects)
	if ing == nil {
		srv = startServer(t, dataDir, logDir, link)
		checkAcked(t, ctx, srv, led, "Loam restarted after the kill", false)
		ing = startIngest(t, srv, led, rng.Int63())
	}
	n := countSnapshots(t, ctx, srv)
	waitForSnapshots(t, ctx, srv, n+1, "after the second outage")
	checkAcked(t, ctx, srv, led, "Loam after the second outage", false)
	ing.stop(t)
	if got := led.ackedCount(); got <= beforeKill {
		t.Errorf("no INSERT acknowledged after the kill (%d before, %d after)", beforeKill, got)
	}
	t.Log(led.statsByMode())

	c = connect(t, ctx, srv)
	mustExec(t, ctx, c, "CHECKPOINT")
	reportCheck(t, led.check("Loam after CHECKPOINT", selectIDs(t, ctx, c), true))
	c.Close(ctx)

	ids, files := icebergIDs(t, ctx, dataDir)
	res := led.check("iceberg-go after CHECKPOINT", ids, true)
	t.Logf("iceberg-go after CHECKPOINT: %s", res)
	reportCheck(t, res)
	if m := missingFiles(t, dataDir, files); len(m) > 0 {
		t.Errorf("the current snapshot references %d files that are not in the bucket: %v", len(m), m)
	}
	referenced := snapshotFiles(t, ctx, dataDir)
	if m := missingFiles(t, dataDir, referenced); len(m) > 0 {
		t.Errorf("snapshots reference %d files that are not in the bucket: %v", len(m), m)
	}
	var unref []string
	for _, p := range w.list(t, "public.db/t") {
		if !referenced[p] && !strings.HasSuffix(p, ".metadata.json") {
			unref = append(unref, p)
		}
	}
	t.Logf("%d objects of the table referenced by no snapshot before VACUUM", len(unref))

	// An upload cut off by a crash leaves at most an object no snapshot
	// names (an unfinished multipart upload is no object at all); one is
	// put here, so that VACUUM surely has an orphan to remove.
	stray := w.prefix + "/public.db/t/data/interrupted-upload.parquet"
	if _, err := store.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(w.bucket), Key: aws.String(stray),
		Body: strings.NewReader("PAR1 cut off")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // older than its listing's clock, to the second
	c = connect(t, ctx, srv)
	mustExec(t, ctx, c, "VACUUM t")
	reportCheck(t, led.check("Loam after VACUUM", selectIDs(t, ctx, c), true))
	c.Close(ctx)
	srv.stop()

	referenced = snapshotFiles(t, ctx, dataDir)
	var left []string
	for _, p := range w.list(t, "public.db/t") {
		if !referenced[p] && !strings.HasSuffix(p, ".metadata.json") {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		t.Errorf("%d objects of the table referenced by no snapshot are left after VACUUM: %v", len(left), left)
	}
	if m := missingFiles(t, dataDir, referenced); len(m) > 0 {
		t.Errorf("after VACUUM, snapshots reference %d files that are not in the bucket: %v", len(m), m)
	}
	ids, _ = icebergIDs(t, ctx, dataDir)
	reportCheck(t, led.check("iceberg-go after VACUUM", ids, true))
	t.Logf("whole test: %v", time.Since(began).Round(time.Millisecond))
	if t.Failed() {
		t.Logf("seed %d; server log:\n%s", seed, srv.logTail())
	}
}

// ingest is one client inserting batches into t as fast as they are
// acknowledged, until stopped or its server is killed.
type ingest struct {
	cancel context.CancelFunc
	done   chan struct{}
	killed atomic.Bool
	err    error
}

func startIngest(t *testing.T, srv *server, led *ledger, seed int64) *ingest {
	ctx, cancel := context.WithCancel(context.Background())
	in := &ingest{cancel: cancel, done: make(chan struct{})}
	rng := rand.New(rand.NewSource(seed))
	go func() {
		defer close(in.done)
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		c, err := pgx.Connect(cctx, srv.url())
		ccancel()
		if err != nil {
			in.err = fmt.Errorf("connect: %w", err)
			return
		}
		defer c.Close(context.Background())
		for ctx.Err() == nil {
			mode := modeSimple
			if rng.Intn(2) == 0 {
				mode = modeExtended
			}
			s := led.alloc(0, 0, mode, 1+rng.Intn(200))
			// An INSERT goes to the log alone: it must be acknowledged
			// quickly whatever S3 does, so a stuck one is a failure.
			sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
			err := sendStmt(sctx, c, s)
			scancel()
			led.done(s, err)
			if err != nil {
				if ctx.Err() == nil && !in.killed.Load() {
					in.err = fmt.Errorf("%s: %w", s, err)
				}
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return in
}

// stop ends the ingest and fails the test if an INSERT failed.
func (in *ingest) stop(t *testing.T) {
	t.Helper()
	in.cancel()
	<-in.done
	if in.err != nil {
		t.Errorf("an INSERT failed: %v", in.err)
	}
}

// kill SIGKILLs srv under the ingest.
func (in *ingest) kill(t *testing.T, srv *server) {
	t.Helper()
	in.killed.Store(true)
	srv.kill()
	select {
	case <-in.done:
	case <-time.After(45 * time.Second):
		t.Fatal("the ingest client is still busy 45 s after the kill")
	}
	in.cancel()
	if in.err != nil {
		t.Errorf("an INSERT failed before the kill: %v", in.err)
	}
}

// ackedCount is how many statements were acknowledged so far.
func (l *ledger) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.stmts {
		if s.acked {
			n++
		}
	}
	return n
}

// ackedStmts copies the statements acknowledged so far.
func (l *ledger) ackedStmts() []stmt {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []stmt
	for _, s := range l.stmts {
		if s.acked {
			out = append(out, *s)
		}
	}
	return out
}

// checkAcked reads t through Loam while the ingest goes on: every
// statement acknowledged before the SELECT began must be there whole, and
// no id twice (statements in flight may or may not be). While S3 is down
// (s3Down) the SELECT may fail instead, with an error that says S3 cannot
// be reached, when a file it needs is in no cache; it must not hang.
func checkAcked(t *testing.T, ctx context.Context, srv *server, led *ledger, where string, s3Down bool) (ok bool) {
	t.Helper()
	acked := led.ackedStmts()
	c := connect(t, ctx, srv)
	defer c.Close(ctx)
	// With S3 down, a file in no cache is asked for until the SDK's
	// attempts run out (their backoff grows to 20 s): minutes, not forever.
	timeout := time.Minute
	if s3Down {
		timeout = 4 * time.Minute
	}
	ids, err := queryIDs(ctx, c, timeout)
	if err != nil {
		if !s3Down || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("%s: SELECT id FROM t: %v", where, err)
		} else {
			t.Logf("%s: SELECT failed: %s", where, firstLine(err.Error()))
		}
		return false
	}
	seen := make(map[int64]bool, len(ids))
	var dups int
	for _, id := range ids {
		if seen[id] {
			dups++
		}
		seen[id] = true
	}
	if dups > 0 {
		t.Errorf("%s: %d ids read twice", where, dups)
	}
	lost := 0
	for _, s := range acked {
		for id := s.lo; id < s.hi; id++ {
			if !seen[id] {
				lost++
				if lost <= 5 {
					t.Errorf("%s: LOST: id %d of the acknowledged %s", where, id, &s)
				}
			}
		}
	}
	if lost == 0 {
		t.Logf("%s: all %d acknowledged statements there (%d rows read)", where, len(acked), len(ids))
	}
	return true
}

// queryIDs is selectIDs returning its error; a SELECT that does not
// finish within timeout fails too.
func queryIDs(ctx context.Context, c *pgx.Conn, timeout time.Duration) ([]int64, error) {
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rows, err := c.Query(qctx, "SELECT id FROM t")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// countSnapshots is how many snapshots t has, through Loam's t$snapshots.
func countSnapshots(t *testing.T, ctx context.Context, srv *server) int {
	t.Helper()
	c := connect(t, ctx, srv)
	defer c.Close(ctx)
	qctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var n int
	if err := c.QueryRow(qctx, `SELECT count(*) FROM "t$snapshots"`).Scan(&n); err != nil {
		t.Fatalf("t$snapshots: %v", err)
	}
	return n
}

// waitForSnapshots waits until t has at least n snapshots: the link has
// committed.
func waitForSnapshots(t *testing.T, ctx context.Context, srv *server, n int, when string) int {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		got := countSnapshots(t, ctx, srv)
		if got >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: t has %d snapshots after 90 s, want %d; server log:\n%s", when, got, n, srv.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// snapshotFiles lists, as iceberg-go reads the table alone, every file a
// snapshot of t references: manifest lists, manifests, their live data
// and delete files, statistics files, and the metadata files.
func snapshotFiles(t *testing.T, ctx context.Context, dataDir string) map[string]bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := warehouseOf(t, dataDir)
	tbl, err := w.catalog(t, db, sqlcat.SQLite).LoadTable(ctx, table.Identifier{"public", "t"})
	if err != nil {
		t.Fatalf("iceberg-go LoadTable: %v", err)
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata()
	out := map[string]bool{w.path(tbl.MetadataLocation()): true}
	for e := range md.PreviousFiles() {
		out[w.path(e.MetadataFile)] = true
	}
	for sf := range md.Statistics() {
		out[w.path(sf.StatisticsPath)] = true
	}
	for sf := range md.PartitionStatistics() {
		out[w.path(sf.StatisticsPath)] = true
	}
	for _, snap := range md.Snapshots() {
		out[w.path(snap.ManifestList)] = true
		mans, err := snap.Manifests(fsys)
		if err != nil {
			t.Fatalf("snapshot %d: manifests: %v", snap.SnapshotID, err)
		}
		for _, m := range mans {
			out[w.path(m.FilePath())] = true
			for e, err := range m.Entries(fsys, true) {
				if err != nil {
					t.Fatalf("manifest %s: %v", m.FilePath(), err)
				}
				out[w.path(e.DataFile().FilePath())] = true
			}
		}
	}
	return out
}
