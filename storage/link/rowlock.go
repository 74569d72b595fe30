package link

import (
	"context"
	"errors"
	"time"
)

// rowLockWait is how long the background link waits for a table's row
// lock before leaving the table for its next round.
const rowLockWait = time.Second

var errRowsBusy = errors.New("link: the table's row lock is held")

// rowLock is a table's row lock: one statement's transaction at a time may
// delete rows of a table (UPDATE, DELETE, MERGE, an upsert), from before
// it reads them until its transaction ends, and the link and compaction
// hold it while they move rows. Row ids then stay valid for as long as a
// statement may use them, and two transactions never delete the same row.
// A channel, not a mutex, so that a waiting statement can be cancelled.
type rowLock chan struct{}

func newRowLock() rowLock { return make(rowLock, 1) }

func (l rowLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l rowLock) unlock() { <-l }

type rowLockWaitKey struct{}

// withRowLockWait bounds how long a link commit under ctx waits for a
// row lock (errRowsBusy), without bounding the commit itself.
func withRowLockWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, rowLockWaitKey{}, d)
}

// lockFor is lock, bounded by the wait ctx carries (withRowLockWait).
func (l rowLock) lockFor(ctx context.Context) error {
	d, ok := ctx.Value(rowLockWaitKey{}).(time.Duration)
	if !ok {
		return l.lock(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errRowsBusy
	}
}

// LockRows takes the row lock of the table ns.name, waiting for the
// transaction holding it to end. The caller unlocks once the transaction
// that deletes rows has committed or aborted. It is not reentrant: a
// session keeps the locks it holds.
func (m *Manager) LockRows(ctx context.Context, ns, name string) (unlock func(), err error) {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return nil, err
	}
	if err := st.rows.lock(ctx); err != nil {
		return nil, err
	}
	st.srcs.reset()
	done := false
	return func() {
		if !done {
			done = true
			st.rows.unlock()
		}
	}, nil
}
