package link

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/storage/wal"
)

// Log record types.
//
//	chunk:  txn u64 | rows u32 | table (3 × u16-length strings: namespace,
//	        name, table UUID) | Arrow IPC stream of the rows, in the
//	        table's Iceberg Arrow schema
//	commit: txn u64 — the transaction's chunks become visible, in the
//	        order of this record's position
//	abort:  txn u64 — the chunks are garbage
//	rename: table (5 × u16-length strings: table UUID, old namespace, old
//	        name, new namespace, new name) — ALTER TABLE … RENAME TO, so
//	        replay finds the table of chunks written under the old name
//	        (see renameRecords)
const (
	recChunk  byte = 1
	recCommit byte = 2
	recAbort  byte = 3
	recRename byte = 4
)

// Key names a table.
type Key struct{ NS, Name string }

func (k Key) String() string { return k.NS + "." + k.Name }

type chunkHeader struct {
	txn  uint64
	rows uint32
	key  Key
	uuid string
}

func encodeChunk(h chunkHeader, rec arrow.RecordBatch) ([]byte, error) {
	var buf bytes.Buffer
	// Sized up front: growing by doubling cleared and copied a COPY
	// batch's megabytes several times over.
	buf.Grow(recordBytes(rec) + 4<<10)
	var tmp [12]byte
	binary.LittleEndian.PutUint64(tmp[0:8], h.txn)
	binary.LittleEndian.PutUint32(tmp[8:12], h.rows)
	buf.Write(tmp[:])
	putStrings(&buf, h.key.NS, h.key.Name, h.uuid)
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(memory.DefaultAllocator))
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// recordBytes is the size of rec's buffers, about what its IPC body takes.
func recordBytes(rec arrow.RecordBatch) int {
	n := 0
	for _, c := range rec.Columns() {
		n += arrayBytes(c.Data())
	}
	return n
}

func arrayBytes(d arrow.ArrayData) int {
	n := 0
	for _, b := range d.Buffers() {
		if b != nil {
			n += b.Len() + 8
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}

var errShort = errors.New("link: short chunk record")

// decodeChunkHeader reads a chunk's header; body is the IPC stream.
func decodeChunkHeader(p []byte) (chunkHeader, []byte, error) {
	var h chunkHeader
	if len(p) < 12 {
		return h, nil, errShort
	}
	h.txn = binary.LittleEndian.Uint64(p[0:8])
	h.rows = binary.LittleEndian.Uint32(p[8:12])
	var strs [3]string
	p, ok := getStrings(p[12:], strs[:])
	if !ok {
		return h, nil, errShort
	}
	h.key = Key{strs[0], strs[1]}
	h.uuid = strs[2]
	return h, p, nil
}

// putStrings writes each string with a u16 length before it.
func putStrings(buf *bytes.Buffer, strs ...string) {
	for _, s := range strs {
		var l [2]byte
		binary.LittleEndian.PutUint16(l[:], uint16(len(s)))
		buf.Write(l[:])
		buf.WriteString(s)
	}
}

// getStrings reads len(dst) strings written by putStrings and returns the
// rest of p.
func getStrings(p []byte, dst []string) ([]byte, bool) {
	for i := range dst {
		if len(p) < 2 {
			return nil, false
		}
		n := int(binary.LittleEndian.Uint16(p))
		if len(p) < 2+n {
			return nil, false
		}
		dst[i] = string(p[2 : 2+n])
		p = p[2+n:]
	}
	return p, true
}

// renameRecord is the payload of a rename record.
type renameRecord struct {
	uuid     string
	from, to Key
}

func encodeRename(r renameRecord) []byte {
	var buf bytes.Buffer
	putStrings(&buf, r.uuid, r.from.NS, r.from.Name, r.to.NS, r.to.Name)
	return buf.Bytes()
}

func decodeRename(p []byte) (renameRecord, error) {
	var strs [5]string
	rest, ok := getStrings(p, strs[:])
	if !ok || len(rest) != 0 {
		return renameRecord{}, errors.New("link: bad rename record")
	}
	return renameRecord{uuid: strs[0], from: Key{strs[1], strs[2]}, to: Key{strs[3], strs[4]}}, nil
}

// decodeRows reads the rows of a chunk body.
func decodeRows(body []byte) (arrow.RecordBatch, error) {
	r, err := ipc.NewReader(bytes.NewReader(body), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	if !r.Next() {
		if r.Err() != nil {
			return nil, r.Err()
		}
		return nil, errors.New("link: chunk holds no record batch")
	}
	rec := r.RecordBatch()
	rec.Retain()
	return rec, nil
}

// txnRecord is the payload of a commit or abort record: the transaction
// ids it ends.
func txnRecord(ids ...uint64) []byte {
	b := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint64(b, id)
	}
	return b
}

func txnIDs(p []byte) ([]uint64, bool) {
	if len(p) == 0 || len(p)%8 != 0 {
		return nil, false
	}
	ids := make([]uint64, len(p)/8)
	for i := range ids {
		ids[i] = binary.LittleEndian.Uint64(p[8*i:])
	}
	return ids, true
}

// Position is how far into the log a table's Iceberg snapshot reaches:
// every transaction committed before Commit, and the first Chunks chunks
// of the one committed at Commit (a large COPY may reach Iceberg in
// several commits). It is kept in the snapshot summary.
type Position struct {
	Commit wal.Pos
	Chunks int
}

// SummaryKey is the snapshot summary property holding the Position.
const SummaryKey = "loam.wal.position"

func (p Position) String() string {
	return strconv.FormatUint(uint64(p.Commit), 10) + ":" + strconv.Itoa(p.Chunks)
}

func parsePosition(s string) (Position, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return Position{}, fmt.Errorf("link: bad %s %q", SummaryKey, s)
	}
	c, err1 := strconv.ParseUint(a, 10, 64)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return Position{}, fmt.Errorf("link: bad %s %q", SummaryKey, s)
	}
	return Position{Commit: wal.Pos(c), Chunks: n}, nil
}
