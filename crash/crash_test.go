package crash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const createT = `CREATE TABLE t (id BIGINT NOT NULL, writer INT, payload TEXT, ts TIMESTAMPTZ) PARTITIONED BY (day(ts)) SORTED BY (writer, id)`

// Write modes.
const (
	modeSimple   = "insert-simple"   // multi-row INSERT … VALUES with literals, simple protocol
	modeExtended = "insert-extended" // multi-row INSERT … VALUES ($1, …), extended protocol
	modeCopyText = "copy-text"       // COPY … FROM STDIN (text) through PgConn().CopyFrom
	modeCopyCSV  = "copy-csv"        // COPY … FROM STDIN (FORMAT csv) through PgConn().CopyFrom
	modeCopyBin  = "copy-binary"     // pgx's Conn.CopyFrom (binary COPY)
)

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// unsupported tells whether a probe error means the server lacks the
// feature (SQLSTATE 0A000 or a protocol-level failure) rather than a bug.
func unsupported(err error) bool {
	if err == nil {
		return false
	}
	if sqlState(err) == "0A000" || sqlState(err) == "08P01" {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return false
	}
	var pce *pgconn.ConnectError
	return !errors.As(err, &pce) // protocol trouble: unexpected message, closed connection
}

// sendStmt sends one statement inserting ids [s.lo, s.hi) in its mode.
func sendStmt(ctx context.Context, c *pgx.Conn, s *stmt) error {
	var tag pgconn.CommandTag
	var err error
	n := s.hi - s.lo
	switch s.mode {
	case modeSimple:
		var b strings.Builder
		b.WriteString("INSERT INTO t (id, writer, payload, ts) VALUES ")
		for id := s.lo; id < s.hi; id++ {
			if id > s.lo {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%d, %d, '%s', '%s')", id, s.writer, payloadOf(id), tsOf(id).Format("2006-01-02 15:04:05Z07:00"))
		}
		tag, err = c.Exec(ctx, b.String(), pgx.QueryExecModeSimpleProtocol)
	case modeExtended:
		var b strings.Builder
		b.WriteString("INSERT INTO t (id, writer, payload, ts) VALUES ")
		args := make([]any, 0, 4*n)
		for id := s.lo; id < s.hi; id++ {
			if id > s.lo {
				b.WriteString(", ")
			}
			k := len(args)
			fmt.Fprintf(&b, "($%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4)
			args = append(args, id, int32(s.writer), payloadOf(id), tsOf(id))
		}
		tag, err = c.Exec(ctx, b.String(), args...)
	case modeCopyText:
		var buf bytes.Buffer
		for id := s.lo; id < s.hi; id++ {
			fmt.Fprintf(&buf, "%d\t%d\t%s\t%s\n", id, s.writer, payloadOf(id), tsOf(id).Format("2006-01-02 15:04:05Z07:00"))
		}
		tag, err = c.PgConn().CopyFrom(ctx, &buf, "COPY t (id, writer, payload, ts) FROM STDIN")
	case modeCopyCSV:
		var buf bytes.Buffer
		for id := s.lo; id < s.hi; id++ {
			fmt.Fprintf(&buf, "%d,%d,\"%s\",%s\n", id, s.writer, payloadOf(id), tsOf(id).Format(time.RFC3339))
		}
		tag, err = c.PgConn().CopyFrom(ctx, &buf, "COPY t (id, writer, payload, ts) FROM STDIN WITH (FORMAT csv)")
	case modeCopyBin:
		rows := make([][]any, 0, n)
		for id := s.lo; id < s.hi; id++ {
			rows = append(rows, []any{id, int32(s.writer), payloadOf(id), tsOf(id)})
		}
		var k int64
		k, err = c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "writer", "payload", "ts"}, pgx.CopyFromRows(rows))
		if err == nil && k != n {
			return fmt.Errorf("COPY reported %d rows, sent %d", k, n)
		}
		return err
	default:
		panic(s.mode)
	}
	if err == nil && tag.RowsAffected() != n {
		return fmt.Errorf("command tag %q, sent %d rows", tag.String(), n)
	}
	return err
}

// rowsFor picks a batch size in [1, max], log-uniform so that small and
// large batches both occur.
func rowsFor(rng *rand.Rand, max int) int {
	return min(max, int(math.Exp(rng.Float64()*math.Log(float64(max))))+rng.Intn(2))
}

type ingestCfg struct {
	copyText, copyCSV, copyBin bool
}

// writer sends statements until ctx ends or a statement fails; it returns
// the first error it saw (nil when ctx ended it).
func writer(ctx context.Context, url string, round, w int, rng *rand.Rand, led *ledger, cfg ingestCfg) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := pgx.Connect(cctx, url)
	cancel()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.Close(cctx)
		cancel()
	}()
	var modes []string
	for i := 0; i < 3; i++ {
		modes = append(modes, modeSimple, modeExtended)
	}
	if cfg.copyText {
		modes = append(modes, modeCopyText, modeCopyText)
	}
	if cfg.copyCSV {
		modes = append(modes, modeCopyCSV)
	}
	if cfg.copyBin {
		modes = append(modes, modeCopyBin, modeCopyBin)
	}
	for i := 0; i < 100000 && ctx.Err() == nil; i++ {
		mode := modes[rng.Intn(len(modes))]
		n := rowsFor(rng, 500)
		if strings.HasPrefix(mode, "copy-") {
			n = rowsFor(rng, 20000)
		}
		s := led.alloc(round, w, mode, n)
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := sendStmt(sctx, c, s)
		cancel()
		led.done(s, err)
		if err != nil {
			return err
		}
	}
	return nil
}

// probeCopy tries each COPY path once with a small batch (recorded in the
// ledger like any other statement) and tells which ones the server takes.
func probeCopy(t *testing.T, ctx context.Context, srv *server, led *ledger) ingestCfg {
	var cfg ingestCfg
	for _, mode := range []string{modeCopyText, modeCopyCSV, modeCopyBin} {
		c := connect(t, ctx, srv)
		s := led.alloc(0, -1, mode, 3)
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := sendStmt(sctx, c, s)
		cancel()
		led.done(s, err)
		switch {
		case err == nil:
			switch mode {
			case modeCopyText:
				cfg.copyText = true
			case modeCopyCSV:
				cfg.copyCSV = true
			default:
				cfg.copyBin = true
			}
		case unsupported(err):
			t.Logf("%s is not supported by this server (%v); skipping that path", mode, err)
		default:
			t.Errorf("%s probe failed: %v", mode, err)
		}
		c.Close(ctx)
	}
	return cfg
}

func seedFromEnv(t *testing.T) int64 {
	seed := time.Now().UnixNano()
	if v := os.Getenv("LOAM_CRASH_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("LOAM_CRASH_SEED: %v", err)
		}
		seed = s
	}
	t.Logf("seed %d (rerun with LOAM_CRASH_SEED=%d)", seed, seed)
	return seed
}

// finalCheck restarts the server one last time and checks the ledger:
// through Loam, again after the statements (CHECKPOINT, VACUUM …), then
// through iceberg-go reading the warehouse alone, whose current snapshot
// must reference only files that exist. It returns those files.
func finalCheck(t *testing.T, ctx context.Context, led *ledger, dataDir, logDir string, args []string, stmts ...string) map[string]bool {
	t.Helper()
	after := "after " + strings.Join(stmts, " and ")
	srv := startServer(t, dataDir, logDir, 200*time.Millisecond, args...)
	c := connect(t, ctx, srv)
	res := led.check("Loam after the final restart", selectIDs(t, ctx, c), true)
	t.Logf("Loam after the final restart: %s", res)
	reportCheck(t, res)
	for _, st := range stmts {
		mustExec(t, ctx, c, st)
	}
	res = led.check("Loam "+after, selectIDs(t, ctx, c), true)
	reportCheck(t, res)
	c.Close(ctx)
	srv.stop()
	if t.Failed() {
		t.Logf("server log of the final run:\n%s", srv.logTail())
	}

	ids, files := icebergIDs(t, ctx, dataDir)
	res = led.check("iceberg-go "+after, ids, true)
	t.Logf("iceberg-go %s: %s", after, res)
	reportCheck(t, res)
	if m := missingFiles(t, dataDir, files); len(m) > 0 {
		t.Errorf("the current snapshot references %d files that do not exist: %v", len(m), m)
	}
	return files
}

func reportCheck(t *testing.T, res checkResult) {
	t.Helper()
	const show = 25
	for i, p := range res.problems {
		if i == show {
			t.Errorf("… and %d more problems", len(res.problems)-show)
			break
		}
		t.Error(p)
	}
}

// TestKillDuringIngest restarts the server on one data dir round after
// round, has four clients write while the link commits every 200 ms, and
// SIGKILLs the server at a random moment. After each restart every
// acknowledged statement must be there once, and every other one whole or
// not at all; at the end the same must hold for iceberg-go reading the
// warehouse after CHECKPOINT.
func TestKillDuringIngest(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a server many times")
	}
	ctx := context.Background()
	seed := seedFromEnv(t)
	rng := rand.New(rand.NewSource(seed))
	rounds := envInt("LOAM_CRASH_ROUNDS", 12)
	const writers = 4
	dataDir, logDir := t.TempDir(), t.TempDir()
	led := newLedger()
	start := time.Now()
	var cfg ingestCfg

	for round := 0; round < rounds; round++ {
		srv := startServer(t, dataDir, logDir, 200*time.Millisecond)
		c := connect(t, ctx, srv)
		if round == 0 {
			mustExec(t, ctx, c, createT)
			cfg = probeCopy(t, ctx, srv, led)
		} else {
			res := led.check(fmt.Sprintf("Loam after restart %d", round), selectIDs(t, ctx, c), true)
			reportCheck(t, res)
			if t.Failed() {
				t.Fatalf("seed %d round %d: %s; server log:\n%s", seed, round, res, srv.logTail())
			}
		}
		c.Close(ctx)

		delay := time.Duration(50+rng.Intn(1451)) * time.Millisecond
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		var wg sync.WaitGroup
		var killed atomic.Bool
		errs := make([]error, writers)
		for w := 0; w < writers; w++ {
			wrng := rand.New(rand.NewSource(seed + int64(round)*1000 + int64(w)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := writer(wctx, srv.url(), round, w, wrng, led, cfg)
				if err != nil && !killed.Load() {
					errs[w] = err
				}
			}()
		}
		time.Sleep(delay)
		killAndDrain(t, srv, &killed, &wg, round, "writers")
		cancel()
		for w, err := range errs {
			if err != nil {
				t.Errorf("seed %d round %d writer %d: statement failed before the kill: %v", seed, round, w, err)
			}
		}
		if n := len(srv.logLines("removed files of an interrupted commit")); n > 0 {
			t.Logf("round %d: server cleaned files of an interrupted commit at start", round)
		}
		t.Logf("round %d: killed after %v", round, delay)
		if time.Since(start) > 75*time.Second {
			t.Logf("stopping after %d rounds to stay in the time budget", round+1)
			break
		}
	}
	t.Log(led.statsByMode())

	files := finalCheck(t, ctx, led, dataDir, logDir, nil, "CHECKPOINT")
	if o := orphanDataFiles(t, dataDir, files); len(o) > 0 {
		// Reported, not failed: see the brief (invariant 4's cleanup).
		t.Logf("ORPHANS: %d data files under public.db/t/data are referenced by no snapshot after restart+CHECKPOINT (seed %d): %v",
			len(o), seed, o)
	} else {
		t.Logf("no orphan data files (%d referenced)", len(files))
	}
	if t.Failed() {
		t.Logf("seed %d; rerun with LOAM_CRASH_SEED=%d LOAM_CRASH_ROUNDS=%d", seed, seed, rounds)
	}
}
