package icetable

import (
	"container/list"
	"fmt"
	"sync"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// manifestCacheLimit bounds the manifest entries and manifest-list
// descriptors kept, together: a few hundred bytes to a few kilobytes
// each (paths, partition values, column bounds), so some tens of
// megabytes at most. A table of more files than that plans as before,
// reading its manifests each time.
const manifestCacheLimit = 50_000

// manifestCache keeps parsed manifest lists and the live entries of
// manifests, by file path. Both are immutable once written (DESIGN.md
// invariant 4: a commit writes new ones, never rewrites one), so an entry
// stays right for as long as anything reads it; what a newer snapshot
// references is a new path and is read afresh. Reading one costs a file
// open and an Avro schema parse (most of a point query's CPU before this
// cache), and a short query reads the same few files every time.
type manifestCache struct {
	mu    sync.Mutex
	limit int
	used  int
	order *list.List // front = most recently used
	items map[string]*list.Element
}

type manifestItem struct {
	path    string
	list    []iceberg.ManifestFile  // a manifest list's manifests
	entries []iceberg.ManifestEntry // a manifest's live entries
}

func (it *manifestItem) size() int { return len(it.list) + len(it.entries) + 1 }

func newManifestCache(limit int) *manifestCache {
	return &manifestCache{limit: limit, order: list.New(), items: map[string]*list.Element{}}
}

// manifests returns the manifests a snapshot's manifest list names.
func (c *manifestCache) manifests(fs icebergio.IO, snap *table.Snapshot) ([]iceberg.ManifestFile, error) {
	if it, ok := c.get(snap.ManifestList); ok {
		return it.list, nil
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("manifest list %s: %w", snap.ManifestList, err)
	}
	c.put(&manifestItem{path: snap.ManifestList, list: mans})
	return mans, nil
}

// entries returns a manifest's live entries (deleted ones dropped), with
// their full column statistics, as iceberg-go's scan planning reads them.
// The entries are shared: callers must not change them.
func (c *manifestCache) entries(fs icebergio.IO, m iceberg.ManifestFile) ([]iceberg.ManifestEntry, error) {
	if it, ok := c.get(m.FilePath()); ok {
		return it.entries, nil
	}
	// Entries, not FetchEntries: the reader scan planning uses, with its
	// inheritance of sequence numbers and first row IDs.
	var es []iceberg.ManifestEntry
	for e, err := range m.Entries(fs, true) {
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", m.FilePath(), err)
		}
		es = append(es, e)
	}
	c.put(&manifestItem{path: m.FilePath(), entries: es})
	return es, nil
}

func (c *manifestCache) get(path string) (*manifestItem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[path]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*manifestItem), true
}

// put adds an item and evicts the least recently used beyond the limit.
// An item larger than the whole limit is not kept. Two scans reading the
// same file at once both put it; the second replaces the first, which
// holds the same entries.
func (c *manifestCache) put(it *manifestItem) {
	n := it.size()
	if n > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[it.path]; ok {
		c.used -= el.Value.(*manifestItem).size()
		c.order.Remove(el)
	}
	c.items[it.path] = c.order.PushFront(it)
	c.used += n
	for c.used > c.limit {
		el := c.order.Back()
		old := el.Value.(*manifestItem)
		c.order.Remove(el)
		delete(c.items, old.path)
		c.used -= old.size()
	}
}
