package link

import "context"

// Flush commits one table's whole tail into Iceberg, as Checkpoint does
// for every table: afterwards its current snapshot holds every row
// acknowledged so far. Creating a branch or tag flushes first, so the new
// reference names a snapshot with all of them.
func (m *Manager) Flush(ctx context.Context, ns, name string) error {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return err
	}
	return m.linkTable(ctx, st, true)
}
