package link

import "context"

// TailDeletedFiles lists the data files of the table's snapshot that
// committed transactions not yet in Iceberg delete rows of: their deletes
// name the file by path, so the link must still find it when it commits
// them. Compaction leaves these files alone until then. Called with the
// table's row lock held (LockRows), the answer stays true until it is
// released: no transaction may delete rows without that lock, and one that
// did commits before releasing it.
func (m *Manager) TailDeletedFiles(ctx context.Context, ns, name string) (map[string]bool, error) {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	out := map[string]bool{}
	for _, e := range st.tail {
		if e.dels == nil {
			continue
		}
		for p := range e.dels.files {
			out[p] = true
		}
	}
	return out, nil
}
