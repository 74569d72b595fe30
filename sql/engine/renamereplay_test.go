package engine_test

import "testing"

// TestRenameReplay: rows a transaction block wrote before another
// session's ALTER TABLE … RENAME TO and committed after it are in the
// write log under the old name; a restart before the link commits them
// replays them into the renamed table, once, however the names moved.
func TestRenameReplay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		renames []string
		want    map[string]string // table → its ids after the restart
	}{
		{"rename", []string{`ALTER TABLE a RENAME TO a2`}, map[string]string{"a2": "1\n2", "b": "10"}},
		{"chain", []string{`ALTER TABLE a RENAME TO a2`, `ALTER TABLE a2 RENAME TO a3`}, map[string]string{"a3": "1\n2", "b": "10"}},
		{"swap", []string{`ALTER TABLE a RENAME TO tmp`, `ALTER TABLE b RENAME TO a`, `ALTER TABLE tmp RENAME TO b`},
			map[string]string{"b": "1\n2", "a": "10"}},
		// The new a's directory would be a2's (location.go).
		{"old name taken", []string{`ALTER TABLE a RENAME TO a2`, `CREATE TABLE a (id int)`, `INSERT INTO a VALUES (100)`},
			map[string]string{"a2": "1\n2", "a": "100", "b": "10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			e := openEngineAt(t, dir)
			w, ddl := newSession(t, e), newSession(t, e)
			mustRun(t, w, `CREATE TABLE a (id int)`)
			mustRun(t, w, `CREATE TABLE b (id int)`)
			mustRun(t, w, `INSERT INTO a VALUES (1)`)
			mustRun(t, w, `INSERT INTO b VALUES (10)`)
			mustRun(t, w, `BEGIN`)
			mustRun(t, w, `INSERT INTO a VALUES (2)`)
			for _, q := range tc.renames {
				mustRun(t, ddl, q)
			}
			mustRun(t, w, `COMMIT`)
			e.Close()

			e = openEngineAt(t, dir)
			s := newSession(t, e)
			for _, when := range []string{"after the restart", "after CHECKPOINT"} {
				for name, want := range tc.want {
					if got := txt(mustRun(t, s, `SELECT id FROM `+name+` ORDER BY id`).rows); got != want {
						t.Errorf("%s: %s holds %q, want %q", when, name, got, want)
					}
				}
				mustRun(t, s, `CHECKPOINT`)
			}
		})
	}
}
