package engine

import (
	"sync"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
)

// rowWaitGraph is who holds and who waits for the tables' row locks, so
// that two transactions waiting for each other (each updated a table the
// other now wants) end in PostgreSQL's 40P01 instead of waiting forever.
// Only sessions wait for a row lock while holding others; the link and
// compaction hold one briefly and wait for none.
type rowWaitGraph struct {
	mu     sync.Mutex
	holder map[link.Key]*Session
	waits  map[*Session]link.Key
}

// wait records that s is about to wait for key's lock, or fails with
// 40P01 when the holder of key waits, directly or through others, for a
// lock s holds.
func (g *rowWaitGraph) wait(s *Session, key link.Key) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	seen := map[*Session]bool{}
	for h := g.holder[key]; h != nil && !seen[h]; {
		if h == s {
			e := pgerr.New(pgerr.DeadlockDetected, "deadlock detected")
			e.Detail = "Another transaction holds the row lock of table " + key.Name + " and waits for one this transaction holds."
			return e
		}
		seen[h] = true
		k, ok := g.waits[h]
		if !ok {
			break
		}
		h = g.holder[k]
	}
	if g.waits == nil {
		g.waits = map[*Session]link.Key{}
	}
	g.waits[s] = key
	return nil
}

// got records the end of s's wait: it holds key's lock when ok.
func (g *rowWaitGraph) got(s *Session, key link.Key, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.waits, s)
	if ok {
		if g.holder == nil {
			g.holder = map[link.Key]*Session{}
		}
		g.holder[key] = s
	}
}

// released records that s no longer holds key's lock.
func (g *rowWaitGraph) released(s *Session, key link.Key) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.holder[key] == s {
		delete(g.holder, key)
	}
}
