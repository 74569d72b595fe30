// Package link owns Loam's write path after the parser: transactions
// append rows to the write log and are acknowledged once it is on disk;
// committed rows form each table's tail, which queries read beside the
// table's Iceberg snapshot; and the link commits the tail into Iceberg at
// a cadence, recording in the snapshot summary how far into the log it
// reached, so a restart replays exactly what lies beyond.
package link

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/wal"
)

// CommitIntervalProperty is a table property (milliseconds) overriding the
// link interval for that table.
const CommitIntervalProperty = "loam.commit-interval-ms"

// MaxRowsPerCommit bounds the rows one Iceberg commit takes from the tail,
// which bounds the link's memory: a larger backlog goes in several commits.
var MaxRowsPerCommit = 512 << 10

type chunkRef struct {
	pos  wal.Pos
	rows int64
}

type txnEntry struct {
	commit wal.Pos
	chunks []chunkRef
	// dels are the rows the transaction deleted, read from its delete
	// records (delRecs) when it committed or was replayed.
	dels    *delSet
	delRecs []wal.Pos
}

// tableState is one table as this server sees it: its current Iceberg
// table, how far that reaches into the log, and the committed transactions
// beyond (the tail). mu guards the three together, so a reader always gets
// a consistent pair of snapshot and tail.
type tableState struct {
	keyMu sync.RWMutex
	key   Key // ALTER TABLE … RENAME TO changes it (Rename); read it with name()
	uuid  string
	// renameMu is held for reading while a chunk naming the table by key
	// is appended, and by Rename for writing from its log record until
	// key is the new name: a chunk's key is the table's name at its
	// position in the log (renames.go).
	renameMu sync.RWMutex

	mu      sync.Mutex
	tbl     *table.Table
	pos     Position
	tail    []txnEntry           // commit order; tail[0] may be partly in Iceberg (pos.Chunks)
	pending map[wal.Pos]struct{} // commit records appended but not yet durable
	dropped bool

	linkMu   sync.Mutex // one link commit per table at a time
	lastLink time.Time  // guarded by mu

	leaseUntil time.Time // this server may write the table until then
	lastWrite  time.Time

	rows rowLock   // rowlock.go
	srcs sources   // what row ids name (rowid.go)
	keys *keyIndex // a keyed table's key index (keys.go); nil for others

	// external marks a table outside engines write (external.go): never
	// written, linked or maintained here, reloaded at every View.
	external atomic.Bool
}

// Manager is the write path of one server.
type Manager struct {
	log      *wal.Log
	store    *icetable.Store
	logger   *slog.Logger
	interval time.Duration

	mu     sync.Mutex
	tables map[Key]*tableState

	nextTxn  atomic.Uint64
	inflight sync.Map // txn → first chunk position, for trimming

	// Views hold trimMu for reading while they may read tail chunks;
	// trimming the log takes it for writing.
	trimMu sync.RWMutex

	leases   Leases   // nil: this server alone writes every table
	settings Settings // nil: every table is Loam's (external.go)
	holder   meta.Holder
	leaseTTL time.Duration

	waits waits // transactions waiting for others' keys (keystxn.go)

	stop chan struct{}
	done chan struct{}
}

// Options configure a Manager.
type Options struct {
	Dir          string        // write log directory
	LinkInterval time.Duration // default commit cadence
	Logger       *slog.Logger
	SegmentSize  int64
	// Leases, when set, keeps one writing server per table through the
	// metastore; Holder names this server in them.
	Leases   Leases
	Holder   meta.Holder
	LeaseTTL time.Duration
	// Settings, when set, tells the tables outside engines write
	// (external.go) from Loam's settings rows.
	Settings Settings
}

type replayTxn struct {
	key     Key
	uuid    string
	chunks  []chunkRef
	dels    *delSet
	delRecs []wal.Pos
}

// Open opens the write log in opts.Dir, replays it, and rebuilds each
// table's tail from the position its Iceberg snapshot records.
func Open(ctx context.Context, store *icetable.Store, opts Options) (*Manager, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.LinkInterval <= 0 {
		opts.LinkInterval = 10 * time.Second
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	m := &Manager{store: store, logger: opts.Logger, interval: opts.LinkInterval, tables: map[Key]*tableState{},
		leases: opts.Leases, holder: opts.Holder, leaseTTL: opts.LeaseTTL, settings: opts.Settings}
	open := map[uint64]*replayTxn{}
	type committed struct {
		commit wal.Pos
		txn    *replayTxn
	}
	var done []committed
	var maxTxn uint64
	names := renames{}
	l, err := wal.Open(opts.Dir, wal.Options{SegmentSize: opts.SegmentSize}, func(pos wal.Pos, typ byte, p []byte) error {
		switch typ {
		case recChunk:
			h, _, err := decodeChunkHeader(p)
			if err != nil {
				return fmt.Errorf("link: replay chunk at %s: %w", pos, err)
			}
			maxTxn = max(maxTxn, h.txn)
			t := open[h.txn]
			if t == nil {
				t = &replayTxn{key: h.key, uuid: h.uuid}
				open[h.txn] = t
			}
			t.chunks = append(t.chunks, chunkRef{pos: pos, rows: int64(h.rows)})
		case recDelete:
			h, d, err := decodeDeletes(p)
			if err != nil {
				return fmt.Errorf("link: replay deletes at %s: %w", pos, err)
			}
			maxTxn = max(maxTxn, h.txn)
			t := open[h.txn]
			if t == nil {
				t = &replayTxn{key: h.key, uuid: h.uuid}
				open[h.txn] = t
			}
			if t.dels == nil {
				t.dels = &delSet{}
			}
			t.dels.union(d)
			t.delRecs = append(t.delRecs, pos)
		case recRename:
			r, err := decodeRename(p)
			if err != nil {
				return fmt.Errorf("link: replay rename at %s: %w", pos, err)
			}
			names.add(r)
		case recCommit, recAbort:
			ids, ok := txnIDs(p)
			if !ok {
				return fmt.Errorf("link: replay: bad record at %s", pos)
			}
			// A block's commit lists its statements' transactions; they
			// join into one tail entry per table, known by its UUID: a
			// rename between two statements gives their chunks two keys.
			byTable := map[string]*replayTxn{}
			for _, id := range ids {
				maxTxn = max(maxTxn, id)
				t := open[id]
				delete(open, id)
				if t == nil || typ != recCommit {
					continue
				}
				if j := byTable[t.uuid]; j != nil {
					j.chunks = append(j.chunks, t.chunks...)
					if t.dels != nil {
						if j.dels == nil {
							j.dels = &delSet{}
						}
						j.dels.union(t.dels)
					}
					j.delRecs = append(j.delRecs, t.delRecs...)
					continue
				}
				byTable[t.uuid] = t
				done = append(done, committed{pos, t})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.log = l
	m.nextTxn.Store(max(maxTxn+1, uint64(time.Now().UnixNano())))
	replayed := 0
	for _, c := range done {
		st, err := m.replayState(ctx, names.candidates(c.txn.uuid, c.txn.key), c.txn.uuid)
		if err != nil {
			l.Close()
			return nil, err
		}
		if st == nil || c.commit < st.pos.Commit {
			continue // the table was dropped after the write, or its snapshot holds the rows
		}
		if c.commit == st.pos.Commit && st.pos.Chunks >= len(c.txn.chunks) {
			continue
		}
		st.tail = append(st.tail, txnEntry{commit: c.commit, chunks: c.txn.chunks, dels: c.txn.dels, delRecs: c.txn.delRecs})
		replayed++
	}
	if replayed > 0 {
		m.logger.Info("write log replayed", "transactions", replayed)
	}
	// Files an interrupted commit wrote are referenced by no snapshot.
	for _, st := range m.tables {
		if len(st.tail) > 0 {
			m.cleanOrphans(ctx, st)
		}
	}
	return m, nil
}

// replayState finds the table with the UUID under one of the names the
// log knows it by (renames.go), or nil when it was dropped.
func (m *Manager) replayState(ctx context.Context, names []Key, uuid string) (*tableState, error) {
	for _, k := range names {
		st, err := m.state(ctx, k)
		if errors.Is(err, icetable.ErrNoSuchTable) || errors.Is(err, icetable.ErrNoSuchNamespace) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if st.uuid == uuid {
			return st, nil
		}
	}
	return nil, nil
}

func (m *Manager) cleanOrphans(ctx context.Context, st *tableState) {
	res, err := st.tbl.DeleteOrphanFiles(ctx, table.WithFilesOlderThan(0))
	if err != nil {
		m.logger.Warn("orphan file cleanup failed", "table", st.name(), "err", err)
		return
	}
	if n := len(res.DeletedFiles); n > 0 {
		m.logger.Info("removed files of an interrupted commit", "table", st.name(), "files", n)
	}
}

// state returns the table's state, loading it on first use.
func (m *Manager) state(ctx context.Context, key Key) (*tableState, error) {
	m.mu.Lock()
	st := m.tables[key]
	m.mu.Unlock()
	if st != nil {
		return st, nil
	}
	tbl, err := m.store.Load(ctx, key.NS, key.Name)
	if err != nil {
		return nil, err
	}
	pos, err := positionOf(tbl)
	if err != nil {
		return nil, err
	}
	if end := m.log.End(); pos.Commit >= end {
		m.logger.Warn("table's snapshot records a log position beyond the write log's end; the log was reset or lost",
			"table", key, "position", pos.Commit, "log_end", end)
		m.log.AdvancePast(pos.Commit)
	}
	ext, err := m.isExternal(ctx, key, tbl)
	if err != nil {
		return nil, err
	}
	st = &tableState{key: key, uuid: tbl.Metadata().TableUUID().String(), tbl: tbl, pos: pos, pending: map[wal.Pos]struct{}{},
		rows: newRowLock(), keys: newKeyIndex(tbl, key.Name)}
	st.external.Store(ext)
	m.mu.Lock()
	defer m.mu.Unlock()
	if prev := m.tables[key]; prev != nil {
		return prev, nil
	}
	m.tables[key] = st
	return st, nil
}

// name is the table's name now.
func (st *tableState) name() Key {
	st.keyMu.RLock()
	defer st.keyMu.RUnlock()
	return st.key
}

func positionOf(tbl *table.Table) (Position, error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil || snap.Summary == nil {
		return Position{}, nil
	}
	v, ok := snap.Summary.Properties[SummaryKey]
	if !ok {
		return Position{}, nil
	}
	return parsePosition(v)
}

// Drop runs drop (the metastore drop of the table and the removal of its
// files) and then forgets the table's state. No link commit into the
// table runs meanwhile, so none writes files the drop would leave behind;
// and if drop fails the table keeps its tail, whose rows the write log
// alone may hold (Forget first would lose them at the next trim).
func (m *Manager) Drop(ctx context.Context, key Key, drop func() error) error {
	return m.remove(ctx, key, false, drop)
}

// SetAside is Drop for a table moved out of the name's way (renamed) by
// rename, to be brought back or dropped later: its whole tail is first
// committed into Iceberg, where the moved table keeps it.
func (m *Manager) SetAside(ctx context.Context, key Key, rename func() error) error {
	return m.remove(ctx, key, true, rename)
}

func (m *Manager) remove(ctx context.Context, key Key, flush bool, fn func() error) error {
	m.mu.Lock()
	st := m.tables[key]
	m.mu.Unlock()
	if st != nil {
		st.linkMu.Lock()
		defer st.linkMu.Unlock()
		if flush {
			if err := m.linkLocked(ctx, st, true); err != nil {
				return err
			}
		}
	}
	if err := fn(); err != nil {
		return err
	}
	m.Forget(key)
	return nil
}

// Forget drops a table's state (after DROP TABLE): its tail is garbage.
func (m *Manager) Forget(key Key) {
	m.mu.Lock()
	st := m.tables[key]
	delete(m.tables, key)
	m.mu.Unlock()
	if st != nil {
		st.mu.Lock()
		st.dropped = true
		st.tail = nil
		st.mu.Unlock()
	}
}

// View is a consistent read of a table: a pinned Iceberg table and the
// tail chunks its snapshot does not hold.
type View struct {
	m     *Manager
	st    *tableState
	Table *table.Table
	// tail shares st.tail's array: entries are never changed in place
	// (CommitAll copies before inserting out of order), so pinning is
	// O(1) however long the tail has grown. from chunks of the first
	// entry are already in Table.
	tail []txnEntry
	from int
	once sync.Once
}

// View pins a table for a query. Release must be called when the query
// no longer reads the tail.
func (m *Manager) View(ctx context.Context, ns, name string) (*View, error) {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return nil, err
	}
	if err := m.refresh(ctx, st); err != nil {
		return nil, err
	}
	m.trimMu.RLock()
	st.mu.Lock()
	v := &View{m: m, st: st, Table: st.tbl, tail: st.tail}
	if len(st.tail) > 0 && st.tail[0].commit == st.pos.Commit {
		v.from = st.pos.Chunks
	}
	st.mu.Unlock()
	return v, nil
}

// chunks yields the view's tail chunks in commit order.
func (v *View) chunks(yield func(chunkRef) bool) {
	for i, e := range v.tail {
		cs := e.chunks
		if i == 0 {
			cs = cs[v.from:]
		}
		for _, c := range cs {
			if !yield(c) {
				return
			}
		}
	}
}

// TailRows is the number of rows in the view's tail.
func (v *View) TailRows() int64 {
	var n int64
	for c := range v.chunks {
		n += c.rows
	}
	return n
}

// Tail yields the tail's rows that are not deleted, one batch a chunk,
// in the table's Iceberg Arrow schema. Each batch is the caller's to
// release.
func (v *View) Tail(yield func(arrow.RecordBatch, error) bool) {
	v.Read().Rows(false)(yield)
}

// readChunks yields the rows of each chunk in turn, stopping at an error.
func (m *Manager) readChunks(chunks iter.Seq[chunkRef], yield func(arrow.RecordBatch, error) bool) {
	for c := range chunks {
		rec, err := m.readChunk(c.pos)
		if !yield(rec, err) || err != nil {
			return
		}
	}
}

// Release ends the view.
func (v *View) Release() { v.once.Do(v.m.trimMu.RUnlock) }

func (m *Manager) readChunk(pos wal.Pos) (arrow.RecordBatch, error) {
	typ, p, err := m.log.Read(pos)
	if err != nil {
		return nil, err
	}
	if typ != recChunk {
		return nil, fmt.Errorf("link: record at %s is not a chunk", pos)
	}
	_, body, err := decodeChunkHeader(p)
	if err != nil {
		return nil, err
	}
	return decodeRows(body)
}

// Txn is one atomic write to one table. Add may be called many times (a
// COPY streams its rows in chunks); nothing is visible until Commit.
type Txn struct {
	m       *Manager
	st      *tableState
	id      uint64
	chunks  []chunkRef
	dels    *delSet   // the rows it deleted (deletes.go)
	delRecs []wal.Pos // its delete records
	closed  bool

	ctx   context.Context // the statement's, for waits on others' keys
	owner uint64          // whose keys and deletes it shares (SetOwner)
	kx    *txnKeys        // its keys and deletes in the key index (keys.go)
}

// Begin starts a write to a table.
func (m *Manager) Begin(ctx context.Context, ns, name string) (*Txn, error) {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return nil, err
	}
	if err := refuseExternal(st, "change"); err != nil {
		return nil, err
	}
	if err := m.ensureLease(ctx, st, false); err != nil {
		return nil, err
	}
	if m.leases != nil {
		// The table may have moved on under another writer before this
		// server took the lease.
		if err := m.reloadIfIdle(ctx, st); err != nil {
			return nil, err
		}
	}
	st.mu.Lock()
	st.lastWrite = time.Now()
	st.mu.Unlock()
	id := m.nextTxn.Add(1)
	return &Txn{m: m, st: st, id: id, ctx: ctx, owner: id}, nil
}

// Table is the table the transaction writes, for its schema.
func (t *Txn) Table() *table.Table {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	return t.st.tbl
}

// Add appends rows (in the table's Iceberg Arrow schema) to the log. On
// a keyed table it first checks their keys (keystxn.go): a key a live row
// holds is a 23505 error.
func (t *Txn) Add(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if ix := t.st.keys; ix != nil {
		return t.addKeyed(ix, rec)
	}
	_, err := t.appendRows(rec)
	return err
}

// appendRows appends a chunk of rows to the log; pos is its position.
func (t *Txn) appendRows(rec arrow.RecordBatch) (wal.Pos, error) {
	pos, err := t.appendRecord(recChunk, "rows", func(h chunkHeader) ([]byte, error) {
		h.rows = uint32(rec.NumRows())
		return encodeChunk(h, rec)
	})
	if err != nil {
		return 0, err
	}
	t.chunks = append(t.chunks, chunkRef{pos: pos, rows: rec.NumRows()})
	return pos, nil
}

// appendRecord appends one of the transaction's records (rows, deletes)
// to the log, encoded from its header, which names the table as it is
// called at that point of the log (renames.go), and keeps the log from
// being trimmed past the transaction's first record until it ends.
func (t *Txn) appendRecord(typ byte, what string, encode func(chunkHeader) ([]byte, error)) (wal.Pos, error) {
	t.st.renameMu.RLock()
	key := t.st.name()
	p, err := encode(chunkHeader{txn: t.id, key: key, uuid: t.st.uuid})
	var pos wal.Pos
	if err == nil {
		pos, err = t.m.log.Append(typ, p)
	}
	t.st.renameMu.RUnlock()
	if err != nil {
		return 0, fmt.Errorf("link: append %s for %s: %w", what, key, err)
	}
	if len(t.chunks) == 0 && len(t.delRecs) == 0 {
		t.m.inflight.Store(t.id, pos)
	}
	return pos, nil
}

// Key names the table the transaction writes.
func (t *Txn) Key() Key { return t.st.name() }

// Rebind points an open transaction at the state of the table now under
// its name, when that is the table it wrote (same UUID): one set aside
// (SetAside) and renamed back. Its chunks, in the log under that UUID,
// then commit into it. It reports false, changing nothing, when another
// table holds the name.
func (t *Txn) Rebind(ctx context.Context) (bool, error) {
	st, err := t.m.state(ctx, t.st.name())
	if err != nil {
		return false, err
	}
	if st.uuid != t.st.uuid {
		return false, nil
	}
	t.st = st
	return true, nil
}

// Rows is the number of rows added so far.
func (t *Txn) Rows() int64 {
	var n int64
	for _, c := range t.chunks {
		n += c.rows
	}
	return n
}

// Commit makes the rows durable and visible. It returns once the commit
// record is on disk; from then on every query of this server sees the rows.
func (t *Txn) Commit() error {
	if t.closed {
		return errors.New("link: transaction already ended")
	}
	return t.m.CommitAll([]*Txn{t})
}

// CommitAll commits several transactions, on one or more tables, with one
// commit record: a crash keeps all of them or none. A transaction block
// commits its statements' writes this way.
func (m *Manager) CommitAll(txns []*Txn) error {
	var ids []uint64
	var sts []*tableState
	entries := map[*tableState]*txnEntry{}
	byState := map[*tableState][]*Txn{}
	for _, t := range txns {
		if t.closed {
			continue // aborted, as a ROLLBACK TO does
		}
		t.closed = true
		defer m.inflight.Delete(t.id)
		if t.kx != nil {
			byState[t.st] = append(byState[t.st], t)
		}
		if len(t.chunks) == 0 && len(t.delRecs) == 0 {
			continue
		}
		ids = append(ids, t.id)
		e := entries[t.st]
		if e == nil {
			e = &txnEntry{}
			entries[t.st] = e
			sts = append(sts, t.st)
		}
		e.chunks = append(e.chunks, t.chunks...)
		if t.dels != nil {
			if e.dels == nil {
				e.dels = &delSet{}
			}
			e.dels.union(t.dels)
		}
		e.delRecs = append(e.delRecs, t.delRecs...)
	}
	if len(ids) == 0 {
		for st, ts := range byState {
			st.keys.mu.Lock()
			for _, t := range ts {
				st.keys.endKeys(t, false)
			}
			st.keys.mu.Unlock()
		}
		return nil
	}
	// Keys held by transactions that fail to commit are let go.
	defer func() {
		for st, ts := range byState {
			st.keys.mu.Lock()
			for _, t := range ts {
				st.keys.endKeys(t, false)
			}
			st.keys.mu.Unlock()
		}
	}()
	// Two blocks committing the same tables lock them in one order.
	slices.SortFunc(sts, func(a, b *tableState) int { return strings.Compare(a.name().String(), b.name().String()) })
	// A block may have been open longer than a lease lasts: commit only
	// into tables this server still writes.
	for _, st := range sts {
		if err := m.ensureLease(context.Background(), st, false); err != nil {
			return err
		}
	}
	// Appending the commit record and registering it as pending happen
	// under the tables' locks, so the link never commits past a commit
	// that is in the log but not yet in the tail.
	for _, st := range sts {
		st.mu.Lock()
	}
	pos, err := m.log.Append(recCommit, txnRecord(ids...))
	for _, st := range sts {
		if err == nil {
			st.pending[pos] = struct{}{}
		}
		st.mu.Unlock()
	}
	if err != nil {
		return err
	}
	serr := m.log.Sync(pos)
	for _, st := range sts {
		// A keyed table's index learns the commit as its tail does
		// (keys.go: mu orders before st.mu).
		if st.keys != nil {
			st.keys.mu.Lock()
		}
		st.mu.Lock()
		delete(st.pending, pos)
		ok := serr == nil && !st.dropped
		if ok {
			e := *entries[st]
			e.commit = pos
			st.insertTail(e)
		}
		st.mu.Unlock()
		if st.keys != nil {
			for _, t := range byState[st] {
				st.keys.endKeys(t, ok)
			}
			st.keys.mu.Unlock()
		}
	}
	return serr
}

// insertTail puts a committed transaction into the tail in commit order;
// st.mu is held. Commits reach here in log order but for a race between
// two syncs, when the entry goes into a copy: views share the array.
func (st *tableState) insertTail(e txnEntry) {
	i, _ := slices.BinarySearchFunc(st.tail, e.commit, func(e txnEntry, p wal.Pos) int { return cmpPos(e.commit, p) })
	if i < len(st.tail) {
		st.tail = slices.Clone(st.tail)
	}
	st.tail = slices.Insert(st.tail, i, e)
}

func cmpPos(a, b wal.Pos) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Abort ends the transaction without making anything visible.
func (t *Txn) Abort() {
	if t.closed {
		return
	}
	t.closed = true
	t.m.inflight.Delete(t.id)
	t.endTxnKeys(false)
	if len(t.chunks) > 0 || len(t.delRecs) > 0 {
		// Best effort: without it, replay drops the chunks as never committed.
		_, _ = t.m.log.Append(recAbort, txnRecord(t.id))
	}
}

// Run commits tails into Iceberg at each table's cadence until Close.
func (m *Manager) Run() {
	// The goroutines keep their own copies of the channels: Close
	// clears the fields.
	stop, done := make(chan struct{}), make(chan struct{})
	m.stop, m.done = stop, done
	every := min(m.interval, time.Second)
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-stop:
					cancel()
				case <-ctx.Done():
				}
			}()
			m.renewLeases(ctx)
			for _, st := range m.states() {
				st.mu.Lock()
				last := st.lastLink
				st.mu.Unlock()
				// Half a tick of slack: the last commit began a little
				// after its tick, and a table due at this one must not
				// wait for the next.
				if time.Since(last) < m.intervalOf(st)-every/2 {
					continue
				}
				// A transaction holding the table's row lock (an open
				// block that updated it) must not hold up the other
				// tables: wait a little, then try next time.
				err := m.linkTable(withRowLockWait(ctx, rowLockWait), st, false)
				if errors.Is(err, errRowsBusy) {
					continue
				}
				if err != nil && ctx.Err() == nil {
					m.logger.Error("link commit failed; will retry", "table", st.name(), "err", err)
				}
			}
			cancel()
			m.trim()
		}
	}()
}

func (m *Manager) states() []*tableState {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*tableState, 0, len(m.tables))
	for _, st := range m.tables {
		out = append(out, st)
	}
	return out
}

func (m *Manager) intervalOf(st *tableState) time.Duration {
	st.mu.Lock()
	props := st.tbl.Properties()
	st.mu.Unlock()
	if v, ok := props[CommitIntervalProperty]; ok {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return m.interval
}

// Checkpoint commits every table's whole tail into Iceberg.
func (m *Manager) Checkpoint(ctx context.Context) error {
	for _, st := range m.states() {
		if err := m.linkTable(ctx, st, true); err != nil {
			return err
		}
	}
	m.trim()
	return nil
}

// linkTable commits the table's tail: one Iceberg commit per
// MaxRowsPerCommit rows, once (all false) or until the tail is empty.
func (m *Manager) linkTable(ctx context.Context, st *tableState, all bool) error {
	st.linkMu.Lock()
	defer st.linkMu.Unlock()
	return m.linkLocked(ctx, st, all)
}

// linkLocked is linkTable with st.linkMu held.
func (m *Manager) linkLocked(ctx context.Context, st *tableState, all bool) error {
	st.mu.Lock()
	st.lastLink = time.Now()
	st.mu.Unlock()
	st.mu.Lock()
	empty := len(st.tail) == 0
	st.mu.Unlock()
	if empty || st.external.Load() {
		return nil // nothing to commit; an external table never has a tail
	}
	// Only the lease holder commits a table.
	if err := m.ensureLease(ctx, st, false); err != nil {
		return err
	}
	for {
		more, err := m.linkOnce(ctx, st)
		if err != nil || !more || !all {
			return err
		}
	}
}

func (m *Manager) linkOnce(ctx context.Context, st *tableState) (bool, error) {
	// Rows move out of the log into files: no statement may hold row ids
	// naming them meanwhile (rowlock.go).
	if err := st.rows.lockFor(ctx); err != nil {
		return false, err
	}
	defer st.rows.unlock()
	st.mu.Lock()
	if st.dropped {
		st.mu.Unlock()
		return false, nil
	}
	tbl, pos := st.tbl, st.pos
	var limit wal.Pos = ^wal.Pos(0)
	for p := range st.pending {
		limit = min(limit, p)
	}
	// With deletes in the tail, transactions are committed whole: a
	// transaction's deletes may name its own rows.
	anyDels := false
	chunkDels := &delSet{}
	for _, e := range st.tail {
		if e.commit >= limit {
			break
		}
		if !e.dels.empty() {
			anyDels = true
			chunkDels.union(&delSet{chunks: e.dels.chunks})
		}
	}
	var refs []chunkRef
	var rows int64
	fileDels := &delSet{}
	next := pos
	more, took := false, false
	for i, e := range st.tail {
		if e.commit >= limit {
			more = false
			break
		}
		from := 0
		if i == 0 && e.commit == pos.Commit {
			from = pos.Chunks
		}
		if anyDels {
			if took && rows >= int64(MaxRowsPerCommit) {
				more = true
				break
			}
			for _, c := range e.chunks[from:] {
				refs = append(refs, c)
				rows += c.rows
			}
			if e.dels != nil {
				fileDels.union(&delSet{files: e.dels.files})
			}
			next = Position{Commit: e.commit, Chunks: len(e.chunks)}
			took = true
			continue
		}
		for k := from; k < len(e.chunks); k++ {
			if rows >= int64(MaxRowsPerCommit) {
				more = true
				break
			}
			refs = append(refs, e.chunks[k])
			rows += e.chunks[k].rows
			next = Position{Commit: e.commit, Chunks: k + 1}
			took = true
		}
		if more {
			break
		}
	}
	st.mu.Unlock()
	if !took {
		return false, nil
	}
	recs := make([]arrow.RecordBatch, 0, len(refs))
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var rerr error
	i := 0
	conformed(tbl, func(yield func(arrow.RecordBatch, error) bool) {
		m.readChunks(slices.Values(refs), yield)
	})(func(r arrow.RecordBatch, err error) bool {
		if err != nil {
			rerr = err
			return false
		}
		c := refs[i]
		i++
		kept, err := keepRows(r, chunkDels.chunk(c.pos), -1)
		r.Release()
		if err != nil {
			rerr = err
			return false
		}
		if kept.NumRows() == 0 {
			kept.Release()
			return true
		}
		recs = append(recs, kept)
		return true
	})
	if rerr != nil {
		return false, fmt.Errorf("link %s: read log: %w", st.name(), rerr)
	}
	var all arrow.RecordBatch
	if len(recs) > 0 {
		var err error
		if all, err = Concat(recs); err != nil {
			return false, fmt.Errorf("link %s: %w", st.name(), err)
		}
		defer all.Release()
	}
	props := iceberg.Properties{SummaryKey: next.String()}
	var nt *table.Table
	var err error
	if len(fileDels.files) > 0 {
		nt, err = m.store.Delta(ctx, tbl, all, icetable.Deletes(fileDels.files), props)
	} else if all != nil {
		nt, err = m.store.Append(ctx, tbl, all, props)
	} else {
		// Nothing reaches Iceberg: the transactions deleted only rows
		// they or others wrote to the log. No snapshot records the new
		// position; a restart replays them, and they cancel out again.
		nt = tbl
	}
	if err != nil {
		return false, fmt.Errorf("link %s: %w", st.name(), err)
	}
	if all != nil && nt != tbl {
		// The new rows' distinct values join the table's statistics
		// (informational: a failure leaves the older ones).
		if ns, err := m.store.AddStatistics(ctx, nt, all); err != nil {
			m.logger.Warn("table statistics not updated", "table", st.name(), "err", err)
		} else {
			nt = ns
		}
	}
	// A keyed table's index follows the rows into their data files
	// (keys.go): read before its lock is taken, applied with the new
	// snapshot.
	ix := st.keys
	var moved []movedKeys
	var kerr error
	if ix != nil {
		if nt != tbl {
			moved, kerr = m.readMoved(ctx, st, ix, nt)
		}
		ix.mu.Lock()
		defer ix.mu.Unlock()
	}
	st.mu.Lock()
	st.tbl, st.pos = nt, next
	for len(st.tail) > 0 {
		e := st.tail[0]
		if e.commit < next.Commit || (e.commit == next.Commit && next.Chunks >= len(e.chunks)) {
			st.tail = st.tail[1:]
			continue
		}
		break
	}
	st.mu.Unlock()
	if ix != nil {
		ix.linked(st, snapshotID(tbl), snapshotID(nt), refs, moved, kerr)
	}
	return more, nil
}

// Alter commits a change to a table's metadata (a comment: a property or
// a field's doc). It needs no write lease: the catalog applies the change
// to the table's current metadata, checking only what the change asserts
// (the schema it rebuilt), so it and any server's link commits, which
// assert only their snapshot, never lose each other; a lost race on the
// pointer is retried. It holds the table's link lock so this server's link
// does not race it, and the new metadata becomes the table's state at
// once, keeping the tail, which the unchanged snapshot does not hold.
func (m *Manager) Alter(ctx context.Context, ns, name string, change icetable.Change) error {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return err
	}
	if err := refuseExternal(st, "alter"); err != nil {
		return err
	}
	st.linkMu.Lock()
	defer st.linkMu.Unlock()
	st.mu.Lock()
	tbl, pos := st.tbl, st.pos
	st.mu.Unlock()
	nt, err := m.store.Update(ctx, tbl, change)
	if err != nil {
		return fmt.Errorf("alter %s: %w", st.name(), err)
	}
	npos, err := positionOf(nt)
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dropped {
		return nil
	}
	// A retry may have found a snapshot another writer committed; its
	// position then replaces ours only where no tail depends on ours.
	if npos == pos || len(st.tail) == 0 {
		st.tbl, st.pos = nt, npos
	}
	st.mu.Unlock()
	m.rekey(st, nt)
	st.mu.Lock() // for the deferred unlock
	return nil
}

// trim removes log segments no table and no open transaction needs.
func (m *Manager) trim() {
	need := m.needed()
	if !m.trimMu.TryLock() {
		return // a query is reading the tail; trim next time
	}
	defer m.trimMu.Unlock()
	if err := m.log.TrimBefore(need); err != nil {
		m.logger.Warn("write log trim failed", "err", err)
	}
}

// needed is the first log position a table's tail, a commit in flight or
// an open transaction still needs.
func (m *Manager) needed() wal.Pos {
	need := m.log.End()
	for _, st := range m.states() {
		st.mu.Lock()
		for i, e := range st.tail {
			from := 0
			if i == 0 && e.commit == st.pos.Commit {
				from = st.pos.Chunks
			}
			for _, c := range e.chunks[from:] {
				need = min(need, c.pos)
			}
			for _, p := range e.delRecs {
				need = min(need, p)
			}
		}
		for p := range st.pending {
			need = min(need, p)
		}
		st.mu.Unlock()
	}
	m.inflight.Range(func(_, v any) bool {
		need = min(need, v.(wal.Pos))
		return true
	})
	return need
}

// Close stops the link and closes the log; rows not yet in Iceberg stay in
// the log and are committed after the next start.
func (m *Manager) Close() error {
	if m.stop != nil {
		close(m.stop)
		<-m.done
		m.stop = nil
	}
	m.releaseLeases()
	return m.log.Close()
}

// reloadIfIdle refreshes the table from the catalog when this server has
// nothing of it in flight, so a new writer starts from the latest snapshot.
func (m *Manager) reloadIfIdle(ctx context.Context, st *tableState) error {
	st.mu.Lock()
	idle := len(st.tail) == 0 && len(st.pending) == 0
	st.mu.Unlock()
	if !idle {
		return nil
	}
	tbl, err := m.store.Load(ctx, st.name().NS, st.name().Name)
	if err != nil {
		return err
	}
	pos, err := positionOf(tbl)
	if err != nil {
		return err
	}
	st.mu.Lock()
	if len(st.tail) == 0 && len(st.pending) == 0 {
		st.tbl, st.pos = tbl, pos
	}
	st.mu.Unlock()
	return nil
}
