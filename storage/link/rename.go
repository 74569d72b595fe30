package link

import (
	"context"
	"fmt"
)

// Rename moves a table's state to a new name as rename (the catalog's
// rename) moves the table: ALTER TABLE … RENAME TO. The tail is committed
// into Iceberg first, and open transactions writing the table keep their
// state, so their rows commit into the renamed table. Chunks they wrote
// before carry the old name in the log; a rename record, durable before
// the catalog renames the table, lets a restart find their table by its
// UUID (renames.go).
func (m *Manager) Rename(ctx context.Context, from, to Key, rename func() error) error {
	m.mu.Lock()
	st := m.tables[from]
	m.mu.Unlock()
	if st == nil {
		// No state, no transaction writing it (Begin makes the state) and
		// no tail: no chunk in the log needs the table's new name.
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
	if err := m.renameLogged(st, from, to, rename); err != nil {
		return err
	}
	m.Forget(to)
	m.mu.Lock()
	delete(m.tables, from)
	m.tables[to] = st
	m.mu.Unlock()
	// The table as loaded names itself by its old name, which commits go
	// by: it is loaded again under the new one. Should that fail, the
	// link's commits fail until a restart, which replays the tail.
	nt, err := m.store.Load(ctx, to.NS, to.Name)
	if err != nil {
		return fmt.Errorf("rename %s: reload as %s: %w", from, to, err)
	}
	st.mu.Lock()
	st.tbl = nt
	st.mu.Unlock()
	return nil
}

// renameLogged appends the rename record and syncs it, runs rename, and
// gives the state its new key, holding st.renameMu so that no chunk of the
// table is appended in between: chunks before the record carry the old
// name, chunks after it the name the table has.
func (m *Manager) renameLogged(st *tableState, from, to Key, rename func() error) error {
	st.renameMu.Lock()
	defer st.renameMu.Unlock()
	pos, err := m.log.Append(recRename, encodeRename(renameRecord{uuid: st.uuid, from: from, to: to}))
	if err == nil {
		err = m.log.Sync(pos)
	}
	if err != nil {
		return fmt.Errorf("rename %s: write log: %w", from, err)
	}
	if err := rename(); err != nil {
		return err
	}
	st.keyMu.Lock()
	st.key = to
	st.keyMu.Unlock()
	return nil
}
