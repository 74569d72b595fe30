package link

import (
	"slices"

	"github.com/apache/iceberg-go/table"
)

// rekey makes st's key index follow the key constraints of nt, the
// table's metadata after an ALTER TABLE: ADD PRIMARY KEY or ADD UNIQUE on
// a table with rows (pgbench -i, pg_dump's output), or the ROLLBACK of
// one. The index is built anew from the rows at the next keyed write
// (ensureKeys), as at a server's start.
//
// PostgreSQL's ALTER TABLE waits for every open transaction on the table;
// Loam's does not, so a transaction that was inserting into the table
// while its constraints changed keeps no hold on the keys it added (they
// are checked again from the rows once it commits and the index is
// rebuilt).
func (m *Manager) rekey(st *tableState, nt *table.Table) {
	cons := Constraints(nt, st.name().Name)
	st.mu.Lock()
	ix := st.keys
	if ix == nil {
		if len(cons) > 0 {
			st.keys = newKeyIndex(nt, st.name().Name)
		}
		st.mu.Unlock()
		return
	}
	st.mu.Unlock()
	// keyIndex.mu orders before tableState.mu.
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if slices.EqualFunc(ix.cons, cons, sameConstraint) {
		return
	}
	ix.cons = cons
	ix.valid = false
	ix.pend = make([]map[string]pendKey, len(cons))
	for i := range ix.pend {
		ix.pend[i] = map[string]pendKey{}
	}
}

func sameConstraint(a, b KeyConstraint) bool {
	return a.Name == b.Name && a.Primary == b.Primary && a.NullsNotDistinct == b.NullsNotDistinct && slices.Equal(a.Fields, b.Fields)
}
