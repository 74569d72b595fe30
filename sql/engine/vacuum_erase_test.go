package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/pgerr"
)

// VACUUM erases the write log's older segments (docs/upkeep.md, Erasure);
// a transaction open in another session keeps those it needs, and VACUUM
// warns of it. Once that transaction has ended, VACUUM warns no more.
func TestVacuumWarnsOfSegmentsOpenTransactionsKeep(t *testing.T) {
	e := openEngine(t)
	s, o := newSession(t, e), newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id int, note text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	mustRun(t, s, "DELETE FROM t WHERE id = 2")
	warned := func() bool {
		t.Helper()
		s.TakeNotices()
		mustRun(t, s, "VACUUM t")
		for _, n := range s.TakeNotices() {
			if n.Severity == "WARNING" && n.Code == "01000" && strings.Contains(n.Message, "write log") {
				return true
			}
		}
		return false
	}
	if warned() {
		t.Error("VACUUM warned with no transaction open")
	}
	mustRun(t, o, "BEGIN")
	mustRun(t, o, "INSERT INTO t VALUES (3, 'c')")
	if !warned() {
		t.Error("VACUUM did not warn of the segments an open transaction keeps")
	}
	mustRun(t, o, "COMMIT")
	if warned() {
		t.Error("VACUUM warned after the transaction ended")
	}
	if r := mustRun(t, s, "SELECT string_agg(id::text, ',' ORDER BY id) FROM t"); r.rows[0][0] != "1,3" {
		t.Errorf("rows %s, want 1,3", r.rows[0][0])
	}
}

// A transaction holding the table's row lock (an open block that deleted
// rows) does not make VACUUM wait: it does what it can, warns that deleted
// rows remain, and a VACUUM after the block ends erases them.
func TestVacuumDoesNotWaitForTheRowLock(t *testing.T) {
	e := openEngine(t)
	s, o := newSession(t, e), newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id int)")
	mustRun(t, s, "INSERT INTO t VALUES (1), (2), (3)")
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, "DELETE FROM t WHERE id = 2") // in the log, naming the file
	mustRun(t, o, "BEGIN")
	mustRun(t, o, "DELETE FROM t WHERE id = 3")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.TakeNotices()
	if _, err := runSQL(ctx, s, "VACUUM t"); err != nil {
		t.Fatalf("VACUUM beside a block holding the row lock: %v", err)
	}
	if !remainWarned(s.TakeNotices()) {
		t.Error("VACUUM did not warn that deleted rows remain")
	}
	mustRun(t, o, "COMMIT")
	mustRun(t, s, "VACUUM t")
	if remainWarned(s.TakeNotices()) {
		t.Error("VACUUM warned after the block ended")
	}
	if r := mustRun(t, s, "SELECT string_agg(id::text, ',') FROM t"); r.rows[0][0] != "1" {
		t.Errorf("rows %s, want 1", r.rows[0][0])
	}
}

func remainWarned(ns []*pgerr.Error) bool {
	for _, n := range ns {
		if n.Severity == "WARNING" && strings.Contains(n.Message, "remain in its files") {
			return true
		}
	}
	return false
}
