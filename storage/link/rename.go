package link

import (
	"context"
	"fmt"
)

// Rename moves a table's state to a new name as rename (the catalog's
// rename) moves the table: ALTER TABLE … RENAME TO. The tail is committed
// into Iceberg first, and open transactions writing the table keep their
// state, so their rows commit into the renamed table. Chunks they wrote
// before carry the old name in the log: were the server to stop before
// the link commits them, a restart would not find their table (the tail
// is committed at once to keep that window short).
func (m *Manager) Rename(ctx context.Context, from, to Key, rename func() error) error {
	m.mu.Lock()
	st := m.tables[from]
	m.mu.Unlock()
	if st == nil {
		if err := rename(); err != nil {
			return err
		}
		m.Forget(to) // a stale state of an earlier table of that name
		return nil
	}
	st.linkMu.Lock()
	defer st.linkMu.Unlock()
	if err := m.linkLocked(ctx, st, true); err != nil {
		return err
	}
	if err := rename(); err != nil {
		return err
	}
	// The table as loaded names itself by its old name, which commits go
	// by: it is loaded again under the new one.
	nt, err := m.store.Load(ctx, to.NS, to.Name)
	if err != nil {
		return fmt.Errorf("rename %s: reload as %s: %w", from, to, err)
	}
	m.Forget(to)
	m.mu.Lock()
	st.mu.Lock()
	st.tbl = nt
	st.mu.Unlock()
	st.keyMu.Lock()
	st.key = to
	st.keyMu.Unlock()
	delete(m.tables, from)
	m.tables[to] = st
	m.mu.Unlock()
	return nil
}
