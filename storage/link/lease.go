package link

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
)

// Leases is what the link needs of the metastore to keep one writer per
// table (invariant 5) when several servers share a catalog.
type Leases interface {
	AcquireLease(ctx context.Context, ns, name string, holder meta.Holder, ttl time.Duration) (meta.Lease, error)
	ReleaseLease(ctx context.Context, ns, name, holderID string) error
	// Lease is the lease as stored, expired or not; meta.ErrNotFound when none.
	Lease(ctx context.Context, ns, name string) (meta.Lease, error)
}

// DefaultLeaseTTL is how long a table's write lease lasts unless renewed.
const DefaultLeaseTTL = 15 * time.Second

// holdsLease reports whether this server's lease on the table is live.
func (st *tableState) holdsLease(now time.Time) bool {
	return now.Before(st.leaseUntil)
}

// ensureLease takes or renews the table's lease when it is due. Without a
// lease store (one server alone) every table is this server's.
func (m *Manager) ensureLease(ctx context.Context, st *tableState, force bool) error {
	if err := refuseExternal(st, "change"); err != nil {
		return err
	}
	if m.leases == nil {
		return nil
	}
	now := time.Now()
	st.mu.Lock()
	until := st.leaseUntil
	st.mu.Unlock()
	if !force && now.Add(m.leaseTTL/2).Before(until) {
		return nil
	}
	l, err := m.leases.AcquireLease(ctx, st.name().NS, st.name().Name, m.holder, m.leaseTTL)
	if errors.Is(err, meta.ErrLeaseHeld) {
		st.mu.Lock()
		st.leaseUntil = time.Time{}
		st.mu.Unlock()
		return &pgerr.Error{Code: "55006",
			Message: fmt.Sprintf("table %s is written by another Loam server (at %s) until its lease expires", st.name(), l.Holder.Address),
			Hint:    "Send writes for this table to that server; it keeps the table's write lease while it runs."}
	}
	if err != nil {
		return fmt.Errorf("lease on %s: %w", st.name(), err)
	}
	// Renew a little before the store's expiry, measured from before the call.
	st.mu.Lock()
	st.leaseUntil = now.Add(m.leaseTTL)
	st.mu.Unlock()
	return nil
}

// renewLeases keeps the leases of tables this server still has to write
// or link, and lets the others lapse.
func (m *Manager) renewLeases(ctx context.Context) {
	if m.leases == nil {
		return
	}
	now := time.Now()
	for _, st := range m.states() {
		st.mu.Lock()
		busy := len(st.tail) > 0 || len(st.pending) > 0 || now.Sub(st.lastWrite) < m.leaseTTL
		held := st.holdsLease(now)
		st.mu.Unlock()
		if held && busy {
			if err := m.ensureLease(ctx, st, false); err != nil {
				m.logger.Error("lost a table's write lease", "table", st.name(), "err", err)
			}
		}
	}
}

// releaseLeases gives up every lease at shutdown, so another server may
// take the tables over at once.
func (m *Manager) releaseLeases() {
	if m.leases == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A lapsed lease is released too: its record names this server as
	// the table's last writer, which keeps other servers' upkeep off the
	// table (MayKeepIdle) until this one comes back.
	for _, st := range m.states() {
		_ = m.leases.ReleaseLease(ctx, st.name().NS, st.name().Name, m.holder.ID)
	}
}

// refresh reloads a table this server does not write, so that queries see
// the commits of the server that does.
func (m *Manager) refresh(ctx context.Context, st *tableState) error {
	if st.external.Load() {
		return m.refreshExternal(ctx, st)
	}
	if m.leases == nil {
		return nil
	}
	st.mu.Lock()
	mine := st.holdsLease(time.Now()) || len(st.tail) > 0
	st.mu.Unlock()
	if mine {
		return nil
	}
	tbl, err := m.store.Load(ctx, st.name().NS, st.name().Name)
	if err != nil {
		return err
	}
	pos, err := positionOf(tbl)
	if err != nil {
		return err
	}
	st.mu.Lock()
	if len(st.tail) == 0 {
		st.tbl, st.pos = tbl, pos
	}
	st.mu.Unlock()
	return nil
}
