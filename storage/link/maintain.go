package link

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
)

// MaintainFunc commits one change to a table beside the link (a compaction
// rewrite, a retention drop, a snapshot expiry). tbl is the table's current
// state; every snapshot it adds must carry snapProps in its summary, which
// hold the log position the current snapshot records: the position lives
// in the current snapshot's summary (invariant 2), and a snapshot without
// it would make a restart replay rows already in Iceberg. It returns the
// table as committed, or nil when it committed nothing.
type MaintainFunc func(ctx context.Context, tbl *table.Table, snapProps iceberg.Properties) (*table.Table, error)

// Maintain runs fn with the table's link lock held, so no link commit of
// this server lands between fn's view of the table and its commit, and
// only while this server holds the table's write lease (invariant 5: one
// writer, which alone maintains the table). Work that reads or writes data
// files should be done before, on a View's table, with fn only committing
// it: the link waits while fn runs. The tail stays as it was; the snapshot
// fn commits holds the same position.
func (m *Manager) Maintain(ctx context.Context, ns, name string, fn MaintainFunc) error {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return err
	}
	if err := refuseExternal(st, "maintain"); err != nil {
		return err
	}
	st.linkMu.Lock()
	defer st.linkMu.Unlock()
	if err := m.ensureLease(ctx, st, false); err != nil {
		return err
	}
	st.mu.Lock()
	dropped := st.dropped
	st.mu.Unlock()
	if dropped {
		return nil
	}
	// A commit landing from elsewhere (an ALTER of another server) moved
	// the pointer: start from the catalog's state when ours has no tail
	// depending on it.
	if err := m.reloadIfIdle(ctx, st); err != nil {
		return fmt.Errorf("maintain %s: %w", st.name(), err)
	}
	st.mu.Lock()
	tbl, pos := st.tbl, st.pos
	st.mu.Unlock()
	props := iceberg.Properties{}
	if pos != (Position{}) {
		props[SummaryKey] = pos.String()
	}
	nt, err := fn(ctx, tbl, props)
	if err != nil {
		return fmt.Errorf("maintain %s: %w", st.name(), err)
	}
	if nt == nil {
		return nil
	}
	npos, err := positionOf(nt)
	if err != nil {
		return err
	}
	if npos != pos {
		return fmt.Errorf("maintain %s: the committed snapshot records log position %s, not %s", st.name(), npos, pos)
	}
	st.mu.Lock()
	if !st.dropped {
		st.tbl = nt
	}
	st.mu.Unlock()
	return nil
}

// Tables lists the tables this server has loaded, for background upkeep.
func (m *Manager) Tables() []Key {
	sts := m.states()
	out := make([]Key, 0, len(sts))
	for _, st := range sts {
		out = append(out, st.name())
	}
	return out
}

// Writes reports whether this server is the table's writer now: it holds
// the table's write lease (or there are no leases: one server alone). A
// table this server has only read is not its to maintain; background
// upkeep skips it, and an external table (external.go) is never.
func (m *Manager) Writes(ns, name string) bool {
	m.mu.Lock()
	st := m.tables[Key{ns, name}]
	m.mu.Unlock()
	if st != nil && st.external.Load() {
		return false
	}
	if m.leases == nil {
		return true
	}
	if st == nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.holdsLease(time.Now())
}

// CatalogTables lists every table in the catalog, loaded by this server
// or not, for the upkeep of tables nobody is writing.
func (m *Manager) CatalogTables(ctx context.Context) ([]Key, error) {
	nss, err := m.store.ListNamespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	var out []Key
	for _, ns := range nss {
		names, err := m.store.ListTables(ctx, ns)
		if err != nil {
			return nil, fmt.Errorf("list tables of %s: %w", ns, err)
		}
		for _, n := range names {
			out = append(out, Key{NS: ns, Name: n})
		}
	}
	return out, nil
}

// MayKeepIdle reports whether this server should look after a table no
// server is writing now: it was the table's last writer, or no lease is
// recorded (never written, or its writer let it go at shutdown). A table
// another server wrote last is that server's to keep, even while its
// lease has lapsed between bursts, so upkeep never takes a lease from
// under an active writer.
func (m *Manager) MayKeepIdle(ctx context.Context, ns, name string) (bool, error) {
	if ext, err := m.externalIdle(ctx, Key{ns, name}); err != nil || ext {
		return false, err
	}
	if m.leases == nil {
		return true, nil
	}
	l, err := m.leases.Lease(ctx, ns, name)
	if errors.Is(err, meta.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return l.Holder.ID == m.holder.ID, nil
}

// Claim takes the write lease of a table this server just created, when
// no other server holds it, so that it is known as the table's writer
// before its first write. It is best effort: a table another server took
// meanwhile is simply written there.
func (m *Manager) Claim(ctx context.Context, ns, name string) {
	if m.leases == nil {
		return
	}
	st, err := m.state(ctx, Key{ns, name})
	if err != nil || st.external.Load() {
		return
	}
	_ = m.ensureLease(ctx, st, false)
}
