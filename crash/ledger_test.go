package crash

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// stmt is one write statement a client sent: the ids [lo, hi) it inserts,
// and whether the server acknowledged it (Exec returned without error,
// i.e. CommandComplete and ReadyForQuery arrived).
type stmt struct {
	round, writer int
	mode          string
	lo, hi        int64
	acked         bool
	err           string
	seen          int // -1 unknown, 0 absent, 1 present: first state a check found after it ended
}

func (s *stmt) String() string {
	st := "UNACKNOWLEDGED"
	if s.acked {
		st = "acknowledged"
	}
	e := ""
	if s.err != "" {
		e = " err=" + s.err
	}
	return fmt.Sprintf("round %d writer %d %s ids [%d,%d) (%d rows) %s%s", s.round, s.writer, s.mode, s.lo, s.hi, s.hi-s.lo, st, e)
}

// ledger records every statement and hands out unique ids.
type ledger struct {
	mu    sync.Mutex
	next  int64
	stmts []*stmt
}

func newLedger() *ledger { return &ledger{next: 1} }

// alloc reserves n fresh ids and records the statement that will send them.
func (l *ledger) alloc(round, writer int, mode string, n int) *stmt {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &stmt{round: round, writer: writer, mode: mode, lo: l.next, hi: l.next + int64(n), seen: -1}
	l.next += int64(n)
	l.stmts = append(l.stmts, s)
	return s
}

func (l *ledger) done(s *stmt, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		s.acked = true
	} else {
		s.err = firstLine(err.Error())
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// checkResult summarizes one exactly-once check.
type checkResult struct {
	rows, acked, unacked, unackedPresent int
	problems                             []string
}

func (r checkResult) String() string {
	return fmt.Sprintf("%d rows; %d acknowledged statements, %d unacknowledged (%d of them present); %d problems",
		r.rows, r.acked, r.unacked, r.unackedPresent, len(r.problems))
}

// check compares the ids a table holds with the ledger: every acknowledged
// statement present whole, every other one whole or not at all, no id
// twice, no id nobody sent, and each statement's presence the same as at
// the previous check once it has ended (remember fixes it for later checks).
func (l *ledger) check(where string, ids []int64, remember bool) checkResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	res := checkResult{rows: len(ids)}
	counts := make([]uint8, l.next)
	var unknown []int64
	var dups []int64
	for _, id := range ids {
		if id < 1 || id >= l.next {
			unknown = append(unknown, id)
			continue
		}
		if counts[id] == 1 {
			dups = append(dups, id)
		}
		if counts[id] < 255 {
			counts[id]++
		}
	}
	add := func(format string, args ...any) {
		res.problems = append(res.problems, where+": "+fmt.Sprintf(format, args...))
	}
	if len(unknown) > 0 {
		add("%d ids no client sent, e.g. %v", len(unknown), head(unknown))
	}
	if len(dups) > 0 {
		sort.Slice(dups, func(i, j int) bool { return dups[i] < dups[j] })
		add("%d ids present more than once, e.g. %v (in %s)", len(dups), head(dups), l.owner(dups[0]))
	}
	for _, s := range l.stmts {
		present := 0
		for id := s.lo; id < s.hi; id++ {
			if counts[id] > 0 {
				present++
			}
		}
		n := int(s.hi - s.lo)
		if s.acked {
			res.acked++
		} else {
			res.unacked++
			if present > 0 {
				res.unackedPresent++
			}
		}
		switch {
		case s.acked && present != n:
			add("LOST: %d of %d rows of an acknowledged statement missing: %s", n-present, n, s)
		case present != 0 && present != n:
			add("NOT ATOMIC: %d of %d rows present: %s", present, n, s)
		}
		state := 0
		if present == n {
			state = 1
		}
		if present == 0 || present == n {
			if s.seen >= 0 && s.seen != state {
				add("FLIPPED: statement was %s at an earlier check, now %s: %s", presence(s.seen), presence(state), s)
			}
			if remember && s.seen < 0 {
				s.seen = state
			}
		}
	}
	return res
}

func presence(s int) string {
	if s == 1 {
		return "present"
	}
	return "absent"
}

func (l *ledger) owner(id int64) string {
	for _, s := range l.stmts {
		if id >= s.lo && id < s.hi {
			return s.String()
		}
	}
	return "no statement"
}

func head(v []int64) []int64 {
	if len(v) > 10 {
		return v[:10]
	}
	return v
}

// statsByMode counts statements and rows per mode, for the test log.
func (l *ledger) statsByMode() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	type agg struct{ stmts, acked, rows int64 }
	m := map[string]*agg{}
	for _, s := range l.stmts {
		a := m[s.mode]
		if a == nil {
			a = &agg{}
			m[s.mode] = a
		}
		a.stmts++
		if s.acked {
			a.acked++
			a.rows += s.hi - s.lo
		}
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d statements (%d acknowledged, %d rows); ", k, m[k].stmts, m[k].acked, m[k].rows)
	}
	return b.String()
}

// tsOf spreads ids over five days, so day(ts) makes several partitions.
func tsOf(id int64) time.Time {
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	return base.Add(time.Duration((id*7919)%(5*86400)) * time.Second)
}

func payloadOf(id int64) string {
	return fmt.Sprintf("p%d-%s", id, strings.Repeat("x", int(id%23)))
}
