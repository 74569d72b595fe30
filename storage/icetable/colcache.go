package icetable

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// colCache keeps decoded columns of data files in memory. Data files never
// change once written (a new snapshot writes new files), so an entry keyed
// by file path and column stays right for as long as the file is read;
// files no longer read age out. Decoding Parquet is most of the cost of a
// scan, and dashboards ask the same tables again and again.
type colCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	tick  uint64
	files map[string]*cachedFile
}

type cachedFile struct {
	cols     map[string]arrow.Array // one array per column: the whole file
	rows     int64
	bytes    int64
	lastUsed uint64
}

func newColCache(limit int64) *colCache {
	return &colCache{limit: limit, files: map[string]*cachedFile{}}
}

// get returns the file's arrays of the named columns, retained for the
// caller, or ok=false unless every one of them is cached.
func (c *colCache) get(path string, fields []string) ([]arrow.Array, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.files[path]
	if f == nil {
		return nil, false
	}
	out := make([]arrow.Array, len(fields))
	for i, name := range fields {
		a, ok := f.cols[name]
		if !ok {
			return nil, false
		}
		out[i] = a
	}
	c.tick++
	f.lastUsed = c.tick
	for _, a := range out {
		a.Retain()
	}
	return out, true
}

// put caches columns of a file (taking a reference of its own), evicting
// the least recently used files to stay within the limit.
func (c *colCache) put(path string, fields []string, cols []arrow.Array) {
	if c == nil || c.limit <= 0 {
		return
	}
	var size int64
	for _, a := range cols {
		size += arraySize(a)
	}
	if size > c.limit/4 {
		return // one file may not crowd out the rest
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.files[path]
	if f == nil {
		f = &cachedFile{cols: map[string]arrow.Array{}}
		c.files[path] = f
	}
	for i, name := range fields {
		if _, ok := f.cols[name]; ok {
			continue
		}
		if len(f.cols) > 0 && int64(cols[i].Len()) != f.rows {
			continue // cannot happen for one file; never mix row sets
		}
		cols[i].Retain()
		f.cols[name] = cols[i]
		f.rows = int64(cols[i].Len())
		s := arraySize(cols[i])
		f.bytes += s
		c.used += s
	}
	c.tick++
	f.lastUsed = c.tick
	for c.used > c.limit && len(c.files) > 1 {
		var oldest string
		var min uint64
		for p, x := range c.files {
			if p != path && (oldest == "" || x.lastUsed < min) {
				oldest, min = p, x.lastUsed
			}
		}
		c.evict(oldest)
	}
}

func (c *colCache) evict(path string) {
	f := c.files[path]
	for _, a := range f.cols {
		a.Release()
	}
	c.used -= f.bytes
	delete(c.files, path)
}

func arraySize(a arrow.Array) int64 {
	var n int64
	for _, b := range a.Data().Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, ch := range a.Data().Children() {
		for _, b := range ch.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}
