package link

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/wal"
)

// RowIDColumn is the column a read with row ids adds after the table's
// columns: each row's id, which UPDATE, DELETE and MERGE hand back to
// RowWriter.Delete to name the rows they remove.
const RowIDColumn = icetable.RowIDColumn

// A row id names one row of a table as this server reads it: the high 32
// bits are a source registered in the table's state (a data file of the
// snapshot, by path, or a chunk of the write log, by position), the low
// 32 bits the row's position in it. Ids are only meaningful to the server
// that issued them, and only while the rows have not moved: a statement
// that deletes rows holds the table's row lock (LockRows) from before it
// reads them until its transaction ends, and the link and compaction take
// that lock before moving rows (out of the log into files, or into new
// files).
type source struct {
	path  string  // a data file, or "" for a chunk
	chunk wal.Pos // the chunk's position in the log
}

// sources numbers the sources row ids name.
type sources struct {
	mu   sync.Mutex
	ids  map[source]uint32
	list []source
}

func (s *sources) id(src source) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.ids[src]
	if !ok {
		if s.ids == nil {
			s.ids = map[source]uint32{}
		}
		id = uint32(len(s.list))
		s.ids[src] = id
		s.list = append(s.list, src)
	}
	return int64(id) << 32
}

// reset forgets every source: the ids issued so far name nothing. The
// row lock's holder calls it when it takes the lock (LockRows): ids are
// used only while the lock is held, so none issued before is used after,
// and the list does not grow with every chunk and file a long-running
// server ever read with row ids.
func (s *sources) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.ids)
	s.list = s.list[:0]
}

func (s *sources) of(rowID int64) (source, uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := uint64(rowID) >> 32
	if id >= uint64(len(s.list)) {
		return source{}, 0, fmt.Errorf("link: row id %d names no source", rowID)
	}
	return s.list[id], uint32(rowID), nil
}

// FileRowIDs is the row id of the first row of the data file path; row
// k's is FileRowIDs(path) + k.
func (r *Read) FileRowIDs(path string) int64 {
	return r.st.srcs.id(source{path: path})
}

func (st *tableState) chunkRowIDs(pos wal.Pos) int64 {
	return st.srcs.id(source{chunk: pos})
}

// rowIDsOf is the row ids of a batch read with them (RowIDColumn).
func rowIDsOf(rec arrow.RecordBatch) (*array.Int64, error) {
	idc := rec.Schema().FieldIndices(RowIDColumn)
	if len(idc) == 0 {
		return nil, fmt.Errorf("link: rows lack %s", RowIDColumn)
	}
	ids, ok := rec.Column(idc[0]).(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("link: %s is not bigint", RowIDColumn)
	}
	return ids, nil
}
