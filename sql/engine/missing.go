package engine

import (
	"sync"
	"time"

	"github.com/loamdb/loam/storage/link"
)

// missingTTL is how long a name found to hold no table is believed so.
const missingTTL = time.Second

// missingTables remembers the names a lookup found no table under, for
// missingTTL. Every unqualified name is tried in the "$user" schema first,
// which seldom exists, and asking the metastore each time cost a third of
// a small INSERT. A table this server creates is forgotten at once; one
// another server creates is seen within missingTTL.
type missingTables struct {
	mu sync.Mutex
	at map[link.Key]time.Time
}

func (m *missingTables) has(k link.Key) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.at[k]
	return ok && time.Since(t) < missingTTL
}

func (m *missingTables) add(k link.Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.at == nil {
		m.at = map[link.Key]time.Time{}
	}
	now := time.Now()
	if len(m.at) >= 4096 {
		for k, t := range m.at {
			if now.Sub(t) >= missingTTL {
				delete(m.at, k)
			}
		}
	}
	m.at[k] = now
}

func (m *missingTables) forget(k link.Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.at, k)
}
