package engine_test

import (
	"strings"
	"testing"
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
