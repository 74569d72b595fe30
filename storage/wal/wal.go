// Package wal is Loam's write-ahead log: the durable record of every write
// before it reaches Iceberg.
//
// On disk the log is a directory of segment files named by a 16-hex-digit
// index (0000000000000001.seg, …). A segment is a sequence of records:
//
//	crc32c  uint32  Castagnoli CRC of type and payload
//	length  uint32  payload length in bytes
//	type    uint8   record type, chosen by the caller (never 0)
//	payload [length]byte
//
// all integers little-endian. A record's position (Pos) is its segment
// index in the high 32 bits and its byte offset in the low 32 bits, so
// positions grow with the log. A segment is closed once it passes the
// segment size and the next record starts a new one. On open, the last
// segment is scanned and cut at its first torn or corrupt record: a crash
// can only damage the tail, and nothing before it was acknowledged with a
// damaged record behind it. Damage in any earlier segment is an error.
package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Pos is a record's position in the log.
type Pos uint64

// MakePos builds a position from a segment index and offset.
func MakePos(seg uint32, off uint32) Pos { return Pos(uint64(seg)<<32 | uint64(off)) }

// Segment is the index of the segment holding the record.
func (p Pos) Segment() uint32 { return uint32(p >> 32) }

// Offset is the record's byte offset within its segment.
func (p Pos) Offset() uint32 { return uint32(p) }

func (p Pos) String() string { return fmt.Sprintf("%d/%d", p.Segment(), p.Offset()) }

const headerSize = 9

// DefaultSegmentSize is the size after which a segment is closed.
const DefaultSegmentSize = 128 << 20

// maxPending is how many bytes of appended records may wait in memory
// before the appender writes them out (without waiting for fsync).
const maxPending = 8 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt reports damage before the last segment's tail.
var ErrCorrupt = errors.New("wal: corrupt record")

// CorruptError says where damage was found.
type CorruptError struct {
	Segment uint32
	Offset  int64
	Reason  string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("wal: corrupt record in segment %d at offset %d: %s", e.Segment, e.Offset, e.Reason)
}

func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Options tune a log.
type Options struct {
	SegmentSize int64 // default DefaultSegmentSize
	NoSync      bool  // skip fsync (tests of logic only; never in a server)
}

// Log appends records durably. Append and Sync are safe for concurrent
// use; many writers waiting in Sync share one fsync (group commit).
type Log struct {
	dir  string
	opts Options

	mu       sync.Mutex
	cond     *sync.Cond
	seg      uint32 // segment the next record goes to
	off      int64  // its offset there
	pending  []chunk
	pendingN int
	written  Pos // every record before this position is written to its file
	synced   Pos // … and fsynced
	end      Pos // position after the last appended record
	busy     bool
	err      error // sticky: after a failed write the log refuses appends
	file     *os.File
	fileSeg  uint32

	readMu  sync.Mutex
	readers map[uint32]*os.File
}

type chunk struct {
	seg  uint32
	data []byte
	end  Pos
}

func segName(dir string, seg uint32) string {
	return filepath.Join(dir, fmt.Sprintf("%016x.seg", seg))
}

// Segments lists the segment indexes present in dir, ascending.
func Segments(dir string) ([]uint32, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []uint32
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".seg") {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSuffix(name, ".seg"), 16, 32)
		if err != nil {
			continue
		}
		out = append(out, uint32(v))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// Open opens (or creates) the log in dir. It calls replay for every intact
// record in order, cutting a torn tail off the last segment, then positions
// the log to append after the last record in a fresh segment.
func Open(dir string, opts Options, replay func(pos Pos, typ byte, payload []byte) error) (*Log, error) {
	if opts.SegmentSize <= 0 {
		opts.SegmentSize = DefaultSegmentSize
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	segs, err := Segments(dir)
	if err != nil {
		return nil, fmt.Errorf("wal: list %s: %w", dir, err)
	}
	for i, s := range segs {
		last := i == len(segs)-1
		if err := replaySegment(dir, s, last, replay); err != nil {
			return nil, err
		}
	}
	next := uint32(1)
	if len(segs) > 0 {
		next = segs[len(segs)-1] + 1
	}
	l := &Log{dir: dir, opts: opts, seg: next, readers: map[uint32]*os.File{}}
	l.cond = sync.NewCond(&l.mu)
	l.end = MakePos(next, 0)
	l.written, l.synced = l.end, l.end
	return l, nil
}

// replaySegment reads one segment; in the last one a bad record is the torn
// tail of a crash and the file is truncated there.
func replaySegment(dir string, seg uint32, last bool, fn func(Pos, byte, []byte) error) error {
	name := segName(dir, seg)
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("wal: open segment %d: %w", seg, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	var hdr [headerSize]byte
	var off int64
	for off < size {
		bad := ""
		var payload []byte
		var typ byte
		if size-off < headerSize {
			bad = "short header"
		} else if _, err := f.ReadAt(hdr[:], off); err != nil {
			return fmt.Errorf("wal: read segment %d: %w", seg, err)
		} else {
			sum := binary.LittleEndian.Uint32(hdr[0:4])
			n := int64(binary.LittleEndian.Uint32(hdr[4:8]))
			typ = hdr[8]
			switch {
			case typ == 0:
				bad = "zero record type"
			case off+headerSize+n > size:
				bad = "record runs past the end of the segment"
			default:
				payload = make([]byte, n)
				if _, err := f.ReadAt(payload, off+headerSize); err != nil {
					return fmt.Errorf("wal: read segment %d: %w", seg, err)
				}
				h := crc32.Update(crc32.Checksum([]byte{typ}, castagnoli), castagnoli, payload)
				if h != sum {
					bad = "checksum mismatch"
				}
			}
		}
		if bad != "" {
			if !last {
				return &CorruptError{Segment: seg, Offset: off, Reason: bad}
			}
			if err := f.Truncate(off); err != nil {
				return fmt.Errorf("wal: cut torn tail of segment %d at %d: %w", seg, off, err)
			}
			return f.Sync()
		}
		if fn != nil {
			if err := fn(MakePos(seg, uint32(off)), typ, payload); err != nil {
				return err
			}
		}
		off += headerSize + int64(len(payload))
	}
	return nil
}

// Append adds a record and returns its position. The record is durable
// only once Sync(pos) returns.
func (l *Log) Append(typ byte, payload []byte) (Pos, error) {
	if typ == 0 {
		return 0, errors.New("wal: record type 0 is reserved")
	}
	rec := make([]byte, headerSize+len(payload))
	binary.LittleEndian.PutUint32(rec[4:8], uint32(len(payload)))
	rec[8] = typ
	copy(rec[headerSize:], payload)
	binary.LittleEndian.PutUint32(rec[0:4], crc32.Checksum(rec[8:], castagnoli))

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, l.err
	}
	if l.off > 0 && l.off+int64(len(rec)) > l.opts.SegmentSize {
		l.seg++
		l.off = 0
	}
	pos := MakePos(l.seg, uint32(l.off))
	l.off += int64(len(rec))
	l.end = MakePos(l.seg, uint32(l.off))
	if n := len(l.pending); n > 0 && l.pending[n-1].seg == l.seg {
		l.pending[n-1].data = append(l.pending[n-1].data, rec...)
		l.pending[n-1].end = l.end
	} else {
		l.pending = append(l.pending, chunk{seg: l.seg, data: rec, end: l.end})
	}
	l.pendingN += len(rec)
	if l.pendingN > maxPending {
		// Keep memory bounded under a large write: write out now, fsync later.
		if err := l.flushLocked(l.end, false); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

// Sync returns once every record before upto (and the one at upto) is on
// disk. Concurrent callers share the fsync of whichever of them runs it.
func (l *Log) Sync(upto Pos) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Flushed positions are record ends, so any past upto covers it.
	return l.flushLocked(upto+1, true)
}

// Flush writes every record up to upto to its segment file without
// waiting for the disk, so that Read can find it.
func (l *Log) Flush(upto Pos) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked(upto+1, false)
}

// AdvancePast moves the log so that every later record lies after pos. A
// caller that finds a position recorded elsewhere (an Iceberg snapshot
// summary) at or beyond the log's end uses it, so that a lost or reset log
// directory can never make new records look older than committed ones.
func (l *Log) AdvancePast(pos Pos) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end > pos {
		return
	}
	// Records already appended keep their positions; the next one starts
	// a new segment beyond pos.
	l.seg = pos.Segment() + 1
	l.off = 0
	l.end = MakePos(l.seg, 0)
	if len(l.pending) == 0 && l.written == l.synced {
		l.written, l.synced = l.end, l.end
	}
}

// End is the position after the last appended record.
func (l *Log) End() Pos {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.end
}

// flushLocked writes (and with sync, fsyncs) every record that starts
// before upto. One caller at a time does the I/O with the lock released;
// the others wait for it and find their records already covered.
func (l *Log) flushLocked(upto Pos, sync bool) error {
	for {
		if l.err != nil {
			return l.err
		}
		done := l.written
		if sync {
			done = l.synced
		}
		if done >= upto || done >= l.end {
			return nil
		}
		if l.busy {
			l.cond.Wait()
			continue
		}
		l.busy = true
		work := l.pending
		l.pending, l.pendingN = nil, 0
		end := l.end
		l.mu.Unlock()
		err := l.write(work, sync)
		l.mu.Lock()
		l.busy = false
		if err != nil {
			l.err = fmt.Errorf("wal: write failed, log closed to writes: %w", err)
		} else {
			l.written = end
			if sync {
				l.synced = end
			}
		}
		l.cond.Broadcast()
	}
}

// write appends chunks to their segment files; only one goroutine runs it
// at a time.
func (l *Log) write(work []chunk, sync bool) error {
	for _, c := range work {
		if l.file == nil || l.fileSeg != c.seg {
			if l.file != nil {
				if !l.opts.NoSync {
					if err := l.file.Sync(); err != nil {
						return err
					}
				}
				if err := l.file.Close(); err != nil {
					return err
				}
			}
			f, err := os.OpenFile(segName(l.dir, c.seg), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return err
			}
			// Under mu: TrimBefore reads which segment is open. Only the
			// busy writer changes it here, so its own reads need no lock.
			l.mu.Lock()
			l.file, l.fileSeg = f, c.seg
			l.mu.Unlock()
			if !l.opts.NoSync {
				if err := syncDir(l.dir); err != nil {
					return err
				}
			}
		}
		if _, err := l.file.Write(c.data); err != nil {
			return err
		}
	}
	if sync && l.file != nil && !l.opts.NoSync {
		return l.file.Sync()
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Read returns the record at pos, which must have been written (Sync'd or
// replayed). The payload is the caller's.
func (l *Log) Read(pos Pos) (byte, []byte, error) {
	f, err := l.reader(pos.Segment())
	if err != nil {
		return 0, nil, err
	}
	var hdr [headerSize]byte
	if _, err := f.ReadAt(hdr[:], int64(pos.Offset())); err != nil {
		return 0, nil, fmt.Errorf("wal: read %s: %w", pos, err)
	}
	n := binary.LittleEndian.Uint32(hdr[4:8])
	payload := make([]byte, n)
	if _, err := f.ReadAt(payload, int64(pos.Offset())+headerSize); err != nil {
		return 0, nil, fmt.Errorf("wal: read %s: %w", pos, err)
	}
	sum := crc32.Update(crc32.Checksum(hdr[8:9], castagnoli), castagnoli, payload)
	if sum != binary.LittleEndian.Uint32(hdr[0:4]) {
		return 0, nil, &CorruptError{Segment: pos.Segment(), Offset: int64(pos.Offset()), Reason: "checksum mismatch"}
	}
	return hdr[8], payload, nil
}

func (l *Log) reader(seg uint32) (*os.File, error) {
	l.readMu.Lock()
	defer l.readMu.Unlock()
	if f, ok := l.readers[seg]; ok {
		return f, nil
	}
	f, err := os.Open(segName(l.dir, seg))
	if err != nil {
		return nil, fmt.Errorf("wal: open segment %d: %w", seg, err)
	}
	l.readers[seg] = f
	return f, nil
}

// TrimBefore removes every segment whose records all lie before pos, but
// never the newest segment on disk. The caller guarantees nothing before
// pos is needed any more.
func (l *Log) TrimBefore(pos Pos) error {
	segs, err := Segments(l.dir)
	if err != nil {
		return err
	}
	l.mu.Lock()
	current := l.seg
	l.mu.Unlock()
	removed := false
	for i, s := range segs {
		// The newest segment on disk always stays, even when nothing in it
		// is needed: its index is what keeps positions growing across
		// restarts, and snapshot summaries compare against them.
		if s >= pos.Segment() || s >= current || i == len(segs)-1 {
			break
		}
		l.readMu.Lock()
		if f, ok := l.readers[s]; ok {
			f.Close()
			delete(l.readers, s)
		}
		l.readMu.Unlock()
		l.mu.Lock()
		if l.file != nil && l.fileSeg == s {
			l.mu.Unlock()
			continue
		}
		l.mu.Unlock()
		if err := os.Remove(segName(l.dir, s)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("wal: remove segment %d: %w", s, err)
		}
		removed = true
	}
	if removed && !l.opts.NoSync {
		return syncDir(l.dir)
	}
	return nil
}

// Close syncs and closes the log.
func (l *Log) Close() error {
	l.mu.Lock()
	err := l.flushLocked(l.end, true)
	if l.file != nil {
		if cerr := l.file.Close(); err == nil {
			err = cerr
		}
		l.file = nil
	}
	if l.err == nil {
		l.err = errors.New("wal: closed")
	}
	l.mu.Unlock()
	l.readMu.Lock()
	for s, f := range l.readers {
		f.Close()
		delete(l.readers, s)
	}
	l.readMu.Unlock()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}
