package link

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go/table/dv"
	"github.com/loamdb/loam/storage/wal"
)

// delSet is a set of deleted rows: positions in data files of the
// table's snapshot, by path, and rows of the write log's chunks, by the
// chunk's position. A transaction's deletes are one; a read's are the
// union of those committed beyond its snapshot and its own.
type delSet struct {
	files  map[string]*dv.RoaringPositionBitmap
	chunks map[wal.Pos]*dv.RoaringPositionBitmap
}

func (d *delSet) empty() bool { return d == nil || len(d.files) == 0 && len(d.chunks) == 0 }

func (d *delSet) file(path string) *dv.RoaringPositionBitmap {
	if d == nil {
		return nil
	}
	return d.files[path]
}

func (d *delSet) chunk(pos wal.Pos) *dv.RoaringPositionBitmap {
	if d == nil {
		return nil
	}
	return d.chunks[pos]
}

// add puts one row into the set; it reports false when the row was in it.
func (d *delSet) add(src source, row uint32) bool {
	var b *dv.RoaringPositionBitmap
	if src.path == "" {
		b = bitmapIn(&d.chunks, src.chunk)
	} else {
		b = bitmapIn(&d.files, src.path)
	}
	if b.Contains(uint64(row)) {
		return false
	}
	b.Set(uint64(row))
	return true
}

// bitmapIn is the bitmap of k in *m, made (with the map) when missing.
func bitmapIn[K comparable](m *map[K]*dv.RoaringPositionBitmap, k K) *dv.RoaringPositionBitmap {
	if *m == nil {
		*m = map[K]*dv.RoaringPositionBitmap{}
	}
	b := (*m)[k]
	if b == nil {
		b = dv.NewRoaringPositionBitmap()
		(*m)[k] = b
	}
	return b
}

// union adds o's rows to d, copying the bitmaps it changes (o's and d's
// may be shared with tail entries, which never change).
func (d *delSet) union(o *delSet) {
	if o.empty() {
		return
	}
	if d.files == nil {
		d.files = map[string]*dv.RoaringPositionBitmap{}
	}
	if d.chunks == nil {
		d.chunks = map[wal.Pos]*dv.RoaringPositionBitmap{}
	}
	// Bitmaps are never changed once in a set: one only in o is shared.
	for p, b := range o.files {
		if a := d.files[p]; a != nil {
			b = orCopy(a, b)
		}
		d.files[p] = b
	}
	for p, b := range o.chunks {
		if a := d.chunks[p]; a != nil {
			b = orCopy(a, b)
		}
		d.chunks[p] = b
	}
}

func orCopy(a, b *dv.RoaringPositionBitmap) *dv.RoaringPositionBitmap {
	out := dv.NewRoaringPositionBitmap()
	if a != nil {
		out.Or(a)
	}
	out.Or(b)
	return out
}

// clone copies the set's maps (not its bitmaps).
func (d *delSet) clone() *delSet {
	if d == nil {
		return &delSet{}
	}
	return &delSet{files: maps.Clone(d.files), chunks: maps.Clone(d.chunks)}
}

// Delete record payload:
//
//	txn u64 | table (3 × u16-length strings: namespace, name, UUID) |
//	files u32 | per file: path (u32-length string), bitmap (u32-length,
//	Iceberg's portable Roaring format) | chunks u32 | per chunk: position
//	u64, bitmap (u32-length)
const recDelete byte = 5

func encodeDeletes(h chunkHeader, d *delSet) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(binary.LittleEndian.AppendUint64(nil, h.txn))
	putStrings(&buf, h.key.NS, h.key.Name, h.uuid)
	putBitmap := func(b *dv.RoaringPositionBitmap) error {
		var bb bytes.Buffer
		if err := b.Serialize(&bb); err != nil {
			return err
		}
		buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(bb.Len())))
		buf.Write(bb.Bytes())
		return nil
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(d.files))))
	for _, p := range slices.Sorted(maps.Keys(d.files)) {
		buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(p))))
		buf.WriteString(p)
		if err := putBitmap(d.files[p]); err != nil {
			return nil, err
		}
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(d.chunks))))
	for _, p := range slices.Sorted(maps.Keys(d.chunks)) {
		buf.Write(binary.LittleEndian.AppendUint64(nil, uint64(p)))
		if err := putBitmap(d.chunks[p]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

var errBadDelete = errors.New("link: bad delete record")

func decodeDeletes(p []byte) (chunkHeader, *delSet, error) {
	var h chunkHeader
	if len(p) < 8 {
		return h, nil, errBadDelete
	}
	h.txn = binary.LittleEndian.Uint64(p)
	var strs [3]string
	p, ok := getStrings(p[8:], strs[:])
	if !ok {
		return h, nil, errBadDelete
	}
	h.key, h.uuid = Key{strs[0], strs[1]}, strs[2]
	u32 := func() (uint32, bool) {
		if len(p) < 4 {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(p)
		p = p[4:]
		return v, true
	}
	bytesOf := func() ([]byte, bool) {
		n, ok := u32()
		if !ok || uint32(len(p)) < n {
			return nil, false
		}
		b := p[:n]
		p = p[n:]
		return b, true
	}
	bitmap := func() (*dv.RoaringPositionBitmap, error) {
		b, ok := bytesOf()
		if !ok {
			return nil, errBadDelete
		}
		return dv.DeserializeRoaringPositionBitmap(b)
	}
	d := &delSet{files: map[string]*dv.RoaringPositionBitmap{}, chunks: map[wal.Pos]*dv.RoaringPositionBitmap{}}
	n, ok := u32()
	if !ok {
		return h, nil, errBadDelete
	}
	for range n {
		path, ok := bytesOf()
		if !ok {
			return h, nil, errBadDelete
		}
		b, err := bitmap()
		if err != nil {
			return h, nil, fmt.Errorf("link: delete record: %w", err)
		}
		d.files[string(path)] = b
	}
	if n, ok = u32(); !ok {
		return h, nil, errBadDelete
	}
	for range n {
		if len(p) < 8 {
			return h, nil, errBadDelete
		}
		pos := wal.Pos(binary.LittleEndian.Uint64(p))
		p = p[8:]
		b, err := bitmap()
		if err != nil {
			return h, nil, fmt.Errorf("link: delete record: %w", err)
		}
		d.chunks[pos] = b
	}
	if len(p) != 0 {
		return h, nil, errBadDelete
	}
	return h, d, nil
}

// Delete deletes the rows ids name: row ids a read of this statement
// yielded (RowIDColumn), in any order. A row named twice, or already
// deleted by this transaction, is deleted once. The deletes go to the log
// at once and become visible, like the transaction's rows, when it
// commits.
func (t *Txn) Delete(ids []int64) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	d := &delSet{}
	var n int64
	for _, id := range ids {
		src, row, err := t.st.srcs.of(id)
		if err != nil {
			return 0, err
		}
		if t.dels != nil && containsRow(t.dels, src, row) {
			continue
		}
		if d.add(src, row) {
			n++
		}
	}
	if d.empty() {
		return 0, nil
	}
	pos, err := t.appendRecord(recDelete, "deletes", func(h chunkHeader) ([]byte, error) {
		return encodeDeletes(h, d)
	})
	if err != nil {
		return 0, err
	}
	t.delRecs = append(t.delRecs, pos)
	if t.dels == nil {
		t.dels = &delSet{}
	}
	t.dels.union(d)
	t.keyDeletes(ids)
	return n, nil
}

func containsRow(d *delSet, src source, row uint32) bool {
	var b *dv.RoaringPositionBitmap
	if src.path == "" {
		b = d.chunk(src.chunk)
	} else {
		b = d.file(src.path)
	}
	return b != nil && b.Contains(uint64(row))
}
