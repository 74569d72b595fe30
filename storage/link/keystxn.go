package link

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
)

// SetOwner makes the statement's writes belong to owner: a session's
// transaction block, whose statements each write through their own
// transactions, sees its keys and deletes as one (keys.go). Zero, the
// default, makes each statement its own owner.
func (s *Statement) SetOwner(owner uint64) { s.owner = owner }

func (t *Txn) keyState() *txnKeys {
	if t.kx == nil {
		t.kx = &txnKeys{done: make(chan struct{})}
	}
	return t.kx
}

// addKeyed is Add on a keyed table: each row's keys are checked against
// the index, then the rows are appended and their keys held by the
// transaction until it ends. A key another open transaction holds waits
// for it.
func (t *Txn) addKeyed(ix *keyIndex, rec arrow.RecordBatch) error {
	ctx := t.ctx
	for {
		ix.mu.Lock()
		if err := t.m.ensureKeys(ctx, t.st, ix); err != nil {
			ix.mu.Unlock()
			return err
		}
		t.st.mu.Lock()
		tbl := t.st.tbl
		t.st.mu.Unlock()
		ks, err := ix.keys(tbl, rec)
		if err != nil {
			ix.mu.Unlock()
			return err
		}
		var wait *Txn
		var verr error
		batch := make([]map[string]bool, len(ix.cons))
	rows:
		for i := range int(rec.NumRows()) {
			for c := range ix.cons {
				k := ks[c][i]
				if k == "" {
					continue
				}
				if batch[c] == nil {
					batch[c] = map[string]bool{}
				}
				if batch[c][k] {
					verr = ix.violation(tbl, c, rec, i)
					break rows
				}
				batch[c][k] = true
				if f, ok := ix.find(t, c, k); ok {
					if f.wait != nil {
						wait = f.wait
					} else {
						verr = ix.violation(tbl, c, rec, i)
					}
					break rows
				}
			}
		}
		if wait != nil {
			ix.mu.Unlock()
			if err := t.m.waitFor(ctx, t, wait); err != nil {
				return err
			}
			continue
		}
		if verr != nil {
			ix.mu.Unlock()
			return verr
		}
		pos, err := t.appendRows(rec)
		if err != nil {
			ix.mu.Unlock()
			return err
		}
		kx := t.keyState()
		for c := range ix.cons {
			for i, k := range ks[c] {
				if k == "" {
					continue
				}
				a := keyAdd{con: c, key: k, row: loc{source{chunk: pos}, uint32(i)}}
				if p, ok := ix.pend[c][k]; ok {
					a.prev = p
				}
				ix.pend[c][k] = pendKey{t: t, row: a.row}
				kx.adds = append(kx.adds, a)
			}
		}
		ix.mu.Unlock()
		return nil
	}
}

// keyDeletes holds the rows a transaction deletes as its own until it
// ends: its block may insert their keys again, others wait.
func (t *Txn) keyDeletes(ids []int64) {
	ix := t.st.keys
	if ix == nil {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	kx := t.keyState()
	for _, rid := range ids {
		id, err := t.st.locOf(rid)
		if err != nil {
			continue // Delete refused it already
		}
		if _, ok := ix.pdel[id]; !ok {
			ix.pdel[id] = t
			kx.dels = append(kx.dels, id)
		}
	}
}

// endKeys ends the transaction's hold on keys: committed (its keys become
// live, the rows it deleted leave) or not. ix.mu is held.
func (ix *keyIndex) endKeys(t *Txn, committed bool) {
	kx := t.kx
	if kx == nil || kx.ended {
		return
	}
	kx.ended = true
	if committed && ix.valid {
		for _, id := range kx.dels {
			ix.removeRow(id)
		}
		for _, a := range kx.adds {
			if t.dels != nil && containsRow(t.dels, a.row.src, a.row.row) {
				continue
			}
			if a.con >= len(ix.live) {
				continue // the constraints changed meanwhile (rekey)
			}
			ix.live[a.con][a.key] = a.row
			r := ix.byRow[a.row]
			if r == nil {
				r = make([]string, len(ix.cons))
				ix.byRow[a.row] = r
			}
			r[a.con] = a.key
		}
	}
	for _, id := range kx.dels {
		if ix.pdel[id] == t {
			delete(ix.pdel, id)
		}
	}
	for i := len(kx.adds) - 1; i >= 0; i-- {
		a := kx.adds[i]
		if a.con >= len(ix.pend) {
			continue // the constraints changed meanwhile (rekey)
		}
		if p := ix.pend[a.con][a.key]; p.t == t && p.row == a.row {
			if a.prev.t != nil && !a.prev.t.kx.ended {
				ix.pend[a.con][a.key] = a.prev
			} else {
				delete(ix.pend[a.con], a.key)
			}
		}
	}
	close(kx.done)
}

// endTxnKeys is endKeys for a transaction that ends outside a commit
// (Abort).
func (t *Txn) endTxnKeys(committed bool) {
	if ix := t.st.keys; ix != nil && t.kx != nil {
		ix.mu.Lock()
		ix.endKeys(t, committed)
		ix.mu.Unlock()
	}
}

// waits is who waits for whom: a transaction's owner → the transaction
// it waits for, to find deadlocks.
type waits struct {
	mu   sync.Mutex
	for_ map[uint64]*Txn
}

// waitFor waits until other ends, unless that would never happen: other's
// owner waits, through others, for t's.
func (m *Manager) waitFor(ctx context.Context, t, other *Txn) error {
	m.waits.mu.Lock()
	if m.waits.for_ == nil {
		m.waits.for_ = map[uint64]*Txn{}
	}
	for o, n := other.owner, 0; n < 1000; n++ {
		if o == t.owner {
			m.waits.mu.Unlock()
			return pgerr.New(pgerr.DeadlockDetected, "deadlock detected").
				WithHint("See server log for query details.")
		}
		w, ok := m.waits.for_[o]
		if !ok {
			break
		}
		o = w.owner
	}
	m.waits.for_[t.owner] = other
	m.waits.mu.Unlock()
	defer func() {
		m.waits.mu.Lock()
		delete(m.waits.for_, t.owner)
		m.waits.mu.Unlock()
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case <-other.kx.done:
		return nil
	case <-ctx.Done():
		return pgerr.Canceled(ctx)
	}
}
