package icetable

import (
	"context"
	"sync"

	"github.com/apache/iceberg-go/table"
)

// Pointers reads a table's metadata location (its pointer) from the
// metastore: one indexed row, where loading the table also reads and
// parses the metadata file it names. meta.Store is one.
type Pointers interface {
	TablePointer(ctx context.Context, ns, name string) (string, error)
}

// NewWithPointers is New with a loaded-table cache: Load reads only the
// pointer when the table's metadata location has not moved since the
// last load, and reuses the table loaded then. A metadata file is
// immutable (a commit writes a new one and swaps the pointer), so the
// location names one metadata; another server's commit or ALTER moves
// the pointer and the next Load reloads.
func NewWithPointers(cat Catalog, ptrs Pointers) *Store {
	s := New(cat)
	s.loaded = &loadedTables{ptrs: ptrs, tables: map[tableKey]*table.Table{}}
	return s
}

// loadedTablesLimit bounds the tables kept; past it one is forgotten at
// random (the next Load of it reloads).
const loadedTablesLimit = 1024

type tableKey struct{ ns, name string }

// loadedTables is the last table loaded under each name. A *table.Table
// is not changed once loaded (Loam never calls its Refresh; commits
// return new ones), so callers may share it.
type loadedTables struct {
	ptrs   Pointers
	mu     sync.Mutex
	tables map[tableKey]*table.Table
}

// get is the table last loaded under the name if the pointer still names
// its metadata. A pointer that cannot be read (the table is gone, the
// metastore failed) is a miss: the catalog's load says why.
func (l *loadedTables) get(ctx context.Context, ns, name string) (*table.Table, bool) {
	l.mu.Lock()
	t := l.tables[tableKey{ns, name}]
	l.mu.Unlock()
	if t == nil {
		return nil, false
	}
	loc, err := l.ptrs.TablePointer(ctx, ns, name)
	if err != nil || loc != t.MetadataLocation() {
		return nil, false
	}
	return t, true
}

func (l *loadedTables) put(ns, name string, t *table.Table) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tables) >= loadedTablesLimit {
		for k := range l.tables {
			delete(l.tables, k)
			break
		}
	}
	l.tables[tableKey{ns, name}] = t
}

func (l *loadedTables) forget(ns, name string) {
	l.mu.Lock()
	delete(l.tables, tableKey{ns, name})
	l.mu.Unlock()
}
