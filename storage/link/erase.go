package link

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// EraseLog makes the write log let go of every record written so far, for
// erasure (VACUUM): rows a DELETE removed reached the log as the INSERT's
// chunks, which stay on disk as long as their segment does. It commits
// every table's tail into Iceberg (tables share segments), rolls the log
// onto a new segment, and removes the older ones, waiting for queries
// reading tail chunks to finish. Segments an open transaction still needs
// (its rows are not committed yet, or it holds a table's row lock, so that
// table's tail cannot be committed) stay: pinned reports it, and a later
// EraseLog, once the transaction has ended, removes them.
func (m *Manager) EraseLog(ctx context.Context) (pinned bool, err error) {
	for _, st := range m.states() {
		// A table whose row lock an open transaction holds keeps its
		// tail, and the segments it needs, until a later EraseLog: the
		// VACUUM of one table does not wait on another's transactions.
		err := m.linkTable(withRowLockWait(ctx, rowLockWait), st, true)
		switch {
		case err == nil, errors.Is(err, errRowsBusy):
		case ctx.Err() != nil:
			return false, ctx.Err()
		default:
			// Another table's trouble (its lease moved to another
			// server, its catalog) keeps its segments, not this erasure.
			m.logger.Warn("link commit for write log erasure failed; its segments stay", "table", st.name(), "err", err)
		}
	}
	if err := m.log.Roll(); err != nil {
		return false, fmt.Errorf("erase write log: %w", err)
	}
	rolled := m.log.End()
	need := m.needed()
	// Views hold trimMu for reading while a query may read tail chunks:
	// wait them out without blocking new ones, as Lock would.
	for !m.trimMu.TryLock() {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	defer m.trimMu.Unlock()
	if err := m.log.TrimBefore(need); err != nil {
		return false, fmt.Errorf("erase write log: %w", err)
	}
	return need.Segment() < rolled.Segment(), nil
}
