package rest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// metadataCache keeps parsed table metadata by file location: a metadata
// file is never rewritten, so once read it answers every load until the
// pointer moves. It is bounded by dropping everything when full, which is
// cheap and rare.
type metadataCache struct {
	mu sync.Mutex
	m  map[string]table.Metadata
}

const metadataCacheSize = 256

// ioProps are the file IO properties for a table with the given metadata
// properties: the warehouse's first, then the table's.
func (s *Server) ioProps(tableProps iceberg.Properties) iceberg.Properties {
	p := iceberg.Properties{}
	maps.Copy(p, s.opts.TableConfig)
	maps.Copy(p, tableProps)
	return p
}

// metadata reads the table metadata file at loc.
func (s *Server) metadata(c context.Context, loc string) (table.Metadata, error) {
	s.mds.mu.Lock()
	md, ok := s.mds.m[loc]
	s.mds.mu.Unlock()
	if ok {
		return md, nil
	}
	t, err := table.NewFromLocation(c, nil, loc, icebergio.LoadFSFunc(s.ioProps(nil), loc), nil)
	if err != nil {
		return nil, fmt.Errorf("read table metadata %s: %w", loc, err)
	}
	md = t.Metadata()
	s.mds.mu.Lock()
	if s.mds.m == nil || len(s.mds.m) >= metadataCacheSize {
		s.mds.m = map[string]table.Metadata{}
	}
	s.mds.m[loc] = md
	s.mds.mu.Unlock()
	return md, nil
}

// writeMetadata writes md as the next metadata file after the one at old
// and returns its location. The file is plain JSON whatever the table's
// compression property says: it is written once, read by every engine.
func (s *Server) writeMetadata(c context.Context, md table.Metadata, old string) (string, error) {
	props := maps.Clone(md.Properties())
	if props == nil {
		props = iceberg.Properties{}
	}
	delete(props, table.MetadataCompressionKey)
	lp, err := table.LoadLocationProvider(md.Location(), props)
	if err != nil {
		return "", fmt.Errorf("table location %s: %w", md.Location(), err)
	}
	loc, err := lp.NewTableMetadataFileLocation(metadataVersion(old) + 1)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(md)
	if err != nil {
		return "", fmt.Errorf("encode table metadata: %w", err)
	}
	fsys, err := icebergio.LoadFS(c, s.ioProps(md.Properties()), loc)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", loc, err)
	}
	wfs, ok := fsys.(icebergio.WriteFileIO)
	if !ok {
		return "", fmt.Errorf("write %s: the warehouse is not writable", loc)
	}
	out, err := wfs.Create(loc)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", loc, err)
	}
	if _, err := out.Write(data); err != nil {
		out.Close()
		return "", fmt.Errorf("write %s: %w", loc, err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", loc, err)
	}
	return loc, nil
}

// metadataVersion is the number a metadata file name starts with
// (00003-<uuid>.metadata.json, or v3.metadata.json), 0 when it has none.
func metadataVersion(loc string) int {
	name := strings.TrimPrefix(path.Base(loc), "v")
	end := strings.IndexFunc(name, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 {
		return 0
	}
	v, err := strconv.Atoi(name[:end])
	if err != nil {
		return 0
	}
	return v
}

// etag names a table's current metadata: the pointer decides everything a
// load returns, so its hash is the entity tag.
func etag(loc string) string {
	h := sha256.Sum256([]byte(loc))
	return `"` + hex.EncodeToString(h[:16]) + `"`
}

// matchesETag says an If-None-Match header names tag.
func matchesETag(header, tag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == tag || t == "*" {
			return true
		}
	}
	return false
}
