package link

import (
	"context"
	"testing"
)

// A statement's writes are nothing until the session commits what End
// hands it; an aborted statement leaves nothing, even after a restart.
func TestStatementWrites(t *testing.T) {
	e := newEnv(t)
	m := e.open(t)
	ctx := context.Background()
	add := func(st *Statement, from, to int64) {
		t.Helper()
		w, err := st.Table(ctx, "public", "t", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(rows(t, w.(*Txn), from, to)); err != nil {
			t.Fatal(err)
		}
	}
	var prev int64
	for _, c := range []struct {
		name    string
		abort   bool
		from    int64
		to      int64
		visible int64 // rows seen after the step, from id 0
	}{
		{"committed", false, 0, 10, 10},
		{"aborted", true, 10, 30, 10},
		{"committed again", false, 10, 20, 20},
	} {
		st := m.Statement()
		// Two writes to one table go into one transaction.
		add(st, c.from, (c.from+c.to)/2)
		add(st, (c.from+c.to)/2, c.to)
		all, _ := seen(t, m, e)
		exactly(t, c.name+", before the statement ended", all, 0, prev)
		if c.abort {
			st.Abort()
		} else {
			done, err := st.End(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(done.Txns) != 1 || done.Rows() != c.to-c.from {
				t.Fatalf("%s: End gave %d transactions of %d rows, want 1 of %d", c.name, len(done.Txns), done.Rows(), c.to-c.from)
			}
			if err := m.CommitAll(done.Txns); err != nil {
				t.Fatal(err)
			}
		}
		all, _ = seen(t, m, e)
		exactly(t, c.name, all, 0, c.visible)
		prev = c.visible
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = e.open(t)
	defer m.Close()
	all, _ := seen(t, m, e)
	exactly(t, "after restart", all, 0, 20)
}
