package maint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
)

// DefaultInterval is how often the Runner looks after each table.
const DefaultInterval = 30 * time.Second

// Runner keeps the tables this server writes healthy in the background:
// compaction, manifest merging, retention drops, snapshot expiry and
// orphan removal, one table at a time; and does the same at once for
// VACUUM.
type Runner struct {
	m        *link.Manager
	log      *slog.Logger
	interval time.Duration
	now      func() time.Time

	// mu runs one table's upkeep at a time, so the background pass and a
	// VACUUM never rewrite the same files at once. It guards swept.
	mu sync.Mutex
	// swept is when each table's orphan files were last removed: the
	// background sweeps (a listing of the table's whole location) once an
	// OrphanMargin, as only files older than that go.
	swept map[link.Key]time.Time
	// idleSwept is when the tables nobody writes were last looked after.
	idleSwept time.Time
	stop      chan struct{}
	done      chan struct{}
}

// NewRunner makes a Runner over m's tables; interval <= 0 means
// DefaultInterval.
func NewRunner(m *link.Manager, log *slog.Logger, interval time.Duration) *Runner {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if log == nil {
		log = slog.Default()
	}
	return &Runner{m: m, log: log, interval: interval, now: time.Now, swept: map[link.Key]time.Time{}}
}

// Report says what one table's upkeep did.
type Report struct {
	Compact           CompactReport
	ManifestsReplaced int
	PartitionFiles    int // data files of partitions wholly past retention, dropped
	Expire            ExpireReport
	Orphans           int
	// LogPinned is set when VACUUM could not erase the write log's older
	// segments: an open transaction still needs them (erase.go).
	LogPinned bool
	// DeletesLeft is set when VACUUM's compaction could not rewrite every
	// file with deletes: row deletes kept landing in them meanwhile.
	DeletesLeft bool
}

// Start runs the background upkeep until Stop.
func (r *Runner) Start() {
	r.stop = make(chan struct{})
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		tick := time.NewTicker(r.interval)
		defer tick.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-r.stop:
					cancel()
				case <-ctx.Done():
				}
			}()
			r.pass(ctx)
			cancel()
		}
	}()
}

// Stop ends the background upkeep, cancelling a pass in progress (its
// uncommitted output files are removed or left to orphan removal).
func (r *Runner) Stop() {
	if r.stop == nil {
		return
	}
	close(r.stop)
	<-r.done
	r.stop = nil
}

// IdleEvery is how often, in passes, the Runner also looks after the
// tables nobody is writing (their rows still expire, their snapshots age).
const IdleEvery = 10

// pass looks after every table this server writes and, every IdleEvery
// passes, the idle tables it wrote last. Tables another server writes are
// that server's to maintain and are skipped without a word.
func (r *Runner) pass(ctx context.Context) {
	for _, k := range r.m.Tables() {
		if ctx.Err() != nil {
			return
		}
		if r.m.Writes(k.NS, k.Name) {
			r.keep(ctx, k)
		}
	}
	if r.now().Sub(r.idleSwept) < IdleEvery*r.interval {
		return
	}
	r.idleSwept = r.now()
	keys, err := r.m.CatalogTables(ctx)
	if err != nil {
		r.log.Warn("listing tables for upkeep failed; will retry", "err", err)
		return
	}
	for _, k := range keys {
		if ctx.Err() != nil {
			return
		}
		if r.m.Writes(k.NS, k.Name) {
			continue // looked after above
		}
		if ok, err := r.m.MayKeepIdle(ctx, k.NS, k.Name); err != nil || !ok {
			continue
		}
		r.keep(ctx, k)
	}
}

// keep runs one table's background upkeep, logging what it did.
func (r *Runner) keep(ctx context.Context, k link.Key) {
	rep, err := r.run(ctx, k.NS, k.Name, false)
	switch {
	case err == nil:
		if rep.Compact.FilesRemoved > 0 || rep.Compact.Conflict || rep.Compact.Skipped > 0 {
			r.log.Debug("compacted", "table", k, "files_removed", rep.Compact.FilesRemoved,
				"files_added", rep.Compact.FilesAdded, "delete_files_removed", rep.Compact.DeleteFiles, "rows_expired", rep.Compact.RowsExpired, "conflict", rep.Compact.Conflict, "skipped", rep.Compact.Skipped)
		}
	case ctx.Err() != nil, tableGone(err), isLeaseErr(err):
	default:
		r.log.Warn("table upkeep failed; will retry", "table", k, "err", err)
	}
}

// Vacuum runs every upkeep step on the table now (VACUUM), compacting
// any partition with two or more small files.
func (r *Runner) Vacuum(ctx context.Context, ns, name string) (Report, error) {
	return r.run(ctx, ns, name, true)
}

func (r *Runner) run(ctx context.Context, ns, name string, now bool) (Report, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var rep Report
	var err error
	at := r.now()
	if now {
		// Take (or check) the write lease before reading and writing
		// files that a table another server writes would refuse.
		noop := func(context.Context, *table.Table, iceberg.Properties) (*table.Table, error) { return nil, nil }
		if err := r.m.Maintain(ctx, ns, name, noop); err != nil {
			return rep, err
		}
	}
	if now {
		// The deletes waiting in the log reach Iceberg, where compaction
		// applies them (erasure).
		if err := r.m.Flush(ctx, ns, name); err != nil {
			return rep, fmt.Errorf("commit the write log: %w", err)
		}
	}
	if rep.PartitionFiles, err = DropExpiredPartitions(ctx, r.m, ns, name, at); err != nil {
		return rep, fmt.Errorf("drop expired partitions: %w", err)
	}
	opts := CompactOptions{}
	if now {
		opts.MinInputFiles = 2
		opts.AllDeletes = true
	}
	if rep.Compact, err = compactRetrying(ctx, r.m, ns, name, at, opts, now); err != nil {
		return rep, err
	}
	rep.DeletesLeft = now && (rep.Compact.Conflict || rep.Compact.Skipped > 0)
	if rep.ManifestsReplaced, err = MergeManifests(ctx, r.m, ns, name, now); err != nil {
		return rep, err
	}
	if rep.Expire, err = ExpireSnapshots(ctx, r.m, ns, name, at); err != nil {
		return rep, fmt.Errorf("expire snapshots: %w", err)
	}
	if now {
		more, err := ExpireHistory(ctx, r.m, ns, name)
		if err != nil {
			return rep, fmt.Errorf("expire snapshots: %w", err)
		}
		rep.Expire.Snapshots += more.Snapshots
	}
	key := link.Key{NS: ns, Name: name}
	if last, ok := r.swept[key]; now || !ok || at.Sub(last) >= OrphanMargin {
		if rep.Orphans, err = RemoveOrphans(ctx, r.m, ns, name, at); err != nil {
			return rep, fmt.Errorf("remove orphan files: %w", err)
		}
		r.swept[key] = at
	}
	if now {
		n, err := RemoveOrphansNow(ctx, r.m, ns, name)
		if err != nil {
			return rep, fmt.Errorf("remove orphan files: %w", err)
		}
		rep.Orphans += n
		if rep.LogPinned, err = r.m.EraseLog(ctx); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// compactRetrying is Compact, tried again (for VACUUM, a few times) when
// a link commit deleting rows of its files landed meanwhile, or deletes of
// its files waited in the log.
func compactRetrying(ctx context.Context, m *link.Manager, ns, name string, at time.Time, opts CompactOptions, retry bool) (CompactReport, error) {
	rep, err := Compact(ctx, m, ns, name, at, opts)
	for i := 0; retry && err == nil && (rep.Conflict || rep.Skipped > 0) && i < 5; i++ {
		if rep.Skipped > 0 {
			// Deletes of its files still wait in the log: commit them.
			if err := m.Flush(ctx, ns, name); err != nil {
				return rep, err
			}
		}
		rep, err = Compact(ctx, m, ns, name, at, opts)
	}
	return rep, err
}

// tableGone says the table was dropped meanwhile.
func tableGone(err error) bool {
	return errors.Is(err, icetable.ErrNoSuchTable) || errors.Is(err, icetable.ErrNoSuchNamespace)
}

// isLeaseErr says another server holds the table's write lease (55006).
func isLeaseErr(err error) bool {
	return pgerr.Code(err) == "55006"
}
