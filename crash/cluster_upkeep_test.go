package crash

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loamdb/loam/meta/pgtest"
)

// TestUpkeepOnlyByWriter runs two servers on one metastore with
// background upkeep every 300 ms: only the table's writer compacts it.
// The other server, which reads the table, leaves it alone without
// complaint; its VACUUM of the table is refused naming the writer, and a
// VACUUM of every table skips it with a warning.
func TestUpkeepOnlyByWriter(t *testing.T) {
	ctx := context.Background()
	pgURL := pgtest.Database(t)
	logDir := t.TempDir()
	extra := append([]string{"--metastore", pgURL, "--compact-interval", "300ms"}, newWarehouse(t).serveArgs()...)
	a := startServer(t, t.TempDir(), logDir, time.Hour, extra...)
	b := startServer(t, t.TempDir(), logDir, time.Hour, extra...)
	ca, cb := connect(t, ctx, a), connect(t, ctx, b)

	mustExec(t, ctx, ca, `CREATE TABLE ta (id BIGINT NOT NULL, writer INT, payload TEXT, ts TIMESTAMPTZ) PARTITIONED BY (day(ts))`)
	files := func() int64 { return count(t, ctx, ca, `"ta$files"`) }
	for r := 0; r < 12; r++ {
		if err := insertRange(ctx, ca, "ta", r*10, (r+1)*10); err != nil {
			t.Fatal(err)
		}
		mustExec(t, ctx, ca, "CHECKPOINT")
		if n := count(t, ctx, cb, "ta"); n != int64((r+1)*10) {
			t.Fatalf("b reads %d rows, want %d", n, (r+1)*10)
		}
	}
	// a's background upkeep compacts its table.
	deadline := time.Now().Add(30 * time.Second)
	for files() > 4 {
		if time.Now().After(deadline) {
			t.Fatalf("a's table still has %d files 30s after 12 small commits", files())
		}
		time.Sleep(100 * time.Millisecond)
	}

	_, err := cb.Exec(ctx, "VACUUM ta")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "55006" || !strings.Contains(pe.Message, a.addr) {
		t.Fatalf("VACUUM ta on the other server: %v; want 55006 naming %s", err, a.addr)
	}
	cfg, err := pgx.ParseConfig(b.url())
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { warnings = append(warnings, n.Severity+": "+n.Message) }
	cw, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cw.Close(ctx)
	if _, err := cw.Exec(ctx, "VACUUM"); err != nil {
		t.Fatalf("VACUUM on the other server: %v", err)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], `WARNING: skipping "ta"`) {
		t.Errorf("VACUUM on the other server warned %q; want it to skip ta", warnings)
	}
	if n := count(t, ctx, cb, "ta"); n != 120 {
		t.Fatalf("b reads %d rows after the VACUUMs, want 120", n)
	}
	if lines := b.logLines("upkeep failed"); len(lines) > 0 {
		t.Errorf("the reading server's upkeep complained: %v", lines)
	}
	if lines := a.logLines("upkeep failed"); len(lines) > 0 {
		t.Errorf("the writer's upkeep failed: %v", lines)
	}
}
