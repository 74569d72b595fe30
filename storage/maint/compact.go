package maint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/compaction"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
)

// DefaultTargetFileSize is the size compaction writes files near unless
// the table says otherwise (WITH (target_file_size = …), stored as
// Iceberg's write.target-file-size-bytes).
const DefaultTargetFileSize = 256 << 20

// TargetFileSize is the table's compaction target in bytes.
func TargetFileSize(props iceberg.Properties) int64 {
	if n, err := strconv.ParseInt(props[table.WriteTargetFileSizeBytesKey], 10, 64); err == nil && n > 0 {
		return n
	}
	return DefaultTargetFileSize
}

// CompactOptions tune one compaction.
type CompactOptions struct {
	// MinInputFiles is how many small files of one partition make it
	// worth rewriting; 0 means DefaultMinInputFiles.
	MinInputFiles int
	// AllDeletes rewrites every file with row deletes (VACUUM: erasure),
	// not only those whose deletes pass DeletedFraction (deletes.go).
	AllDeletes bool
}

// DefaultMinInputFiles is the background policy's threshold: a partition
// is compacted once it has this many small files. VACUUM uses 2.
const DefaultMinInputFiles = 5

// CompactReport says what a compaction did.
type CompactReport struct {
	Groups       int   // bins rewritten
	FilesRemoved int   // data files replaced
	FilesAdded   int   // data files written
	RowsExpired  int64 // rows past retention left out
	DeleteFiles  int   // delete files (position, equality, vectors) dropped
	// Conflict is set when the table changed under the rewrite in a way
	// it cannot commit beside (another rewrite, a delete of rows in its
	// files, a schema change): its files were removed and the next run
	// tries again.
	Conflict bool
	// Skipped is how many files with deletes were left alone because
	// deletes of theirs still wait in the write log (the link commits
	// them first; the next run takes the files).
	Skipped int
}

// beforeCommit, when set (tests), runs between a compaction's writing
// and its commit, where a link commit or another rewrite may land.
var beforeCommit func()

// errConflict marks a rewrite whose inputs changed before its commit.
var errConflict = errors.New("compaction: the table changed since its files were read")

// Compact bin-packs each partition's small data files (below 3/4 of the
// table's target file size) into files near the target, with their rows
// in the table's sort order and without the rows past its retention, and
// commits the rewrite as one "replace" snapshot. Files with row deletes
// (position deletes, equality deletes, deletion vectors) are rewritten
// whatever their size once enough of their rows are deleted (deletes.go),
// with the deletes applied, and the delete files the rewrite leaves with
// nothing to apply to are dropped in the same snapshot.
//
// Reading and writing run on a pinned view of the table, beside the link
// and beside statements; the commit holds the link lock (Maintain) and
// the table's row lock, and checks that every file it read is still in
// the table with the same deletes: link commits landing meanwhile that
// only add files, or delete rows of other files, are kept; one that
// deleted rows of a rewritten file makes the rewrite drop its output and
// report a conflict, to be retried by the next run. Files whose rows are
// deleted by transactions still in the write log are left alone until
// the link has committed those deletes.
func Compact(ctx context.Context, m *link.Manager, ns, name string, now time.Time, opts CompactOptions) (CompactReport, error) {
	var rep CompactReport
	v, err := m.View(ctx, ns, name)
	if err != nil {
		return rep, err
	}
	base := v.Table
	// The tail is not read: only the pinned table, whose files stay until
	// snapshot expiry, which runs after compaction in the same runner.
	v.Release()
	if base.CurrentSnapshot() == nil {
		return rep, nil
	}
	pending, err := m.TailDeletedFiles(ctx, ns, name)
	if err != nil {
		return rep, err
	}
	groups, skipped, err := planGroups(ctx, base, opts, pending)
	rep.Skipped = skipped
	if err != nil || len(groups) == 0 {
		return rep, err
	}
	cutoff, hasRetention, err := retentionCutoff(base, now)
	if err != nil {
		return rep, err
	}
	fs, err := base.FS(ctx)
	if err != nil {
		return rep, fmt.Errorf("compact %s.%s: %w", ns, name, err)
	}
	var results []table.CompactionGroupResult
	cleanup := func() {
		for _, r := range results {
			for _, df := range r.NewDataFiles {
				// A file that cannot be removed now is an orphan, which
				// orphan removal deletes later.
				_ = fs.Remove(df.FilePath())
			}
		}
	}
	for _, g := range groups {
		gr, expired, err := rewriteGroup(ctx, base, g, cutoff, hasRetention)
		results = append(results, gr)
		if err != nil {
			cleanup()
			return rep, fmt.Errorf("compact %s.%s: %w", ns, name, err)
		}
		rep.RowsExpired += expired
	}
	if beforeCommit != nil {
		beforeCommit()
	}
	called, committing := false, false
	var dropped int
	err = m.Maintain(ctx, ns, name, func(ctx context.Context, cur *table.Table, props iceberg.Properties) (*table.Table, error) {
		called = true
		// The rows move into new files: no statement may hold row ids
		// naming the old ones, and no transaction may delete rows of
		// them, until the commit is in (rowlock.go). The link lock is
		// held already, the order linkOnce takes the two in.
		unlock, err := lockRows(ctx, m, ns, name, opts.AllDeletes)
		if err != nil {
			return nil, err
		}
		defer unlock()
		pending, err := m.TailDeletedFiles(ctx, ns, name)
		if err != nil {
			return nil, err
		}
		if err := inputsUnchanged(ctx, base, cur, groups, pending); err != nil {
			return nil, err
		}
		txn := cur.NewTransaction()
		rw := txn.NewRewrite(props)
		rewritten := map[string]struct{}{}
		for _, gr := range results {
			// Position deletes are decided below against the whole
			// commit, not per group (one may reference several groups).
			gr.SafePosDeletes = nil
			rw.ApplyResult(gr)
			dropped += len(gr.SafeDeletionVectors)
			for _, df := range gr.OldDataFiles {
				rewritten[df.FilePath()] = struct{}{}
			}
		}
		dead, err := table.CollectDeadPositionDeletes(ctx, fs, cur.CurrentSnapshot(), rewritten)
		if err != nil {
			return nil, err
		}
		deadEq, err := compaction.CollectDeadEqualityDeletesWithSpecs(ctx, fs, cur.Metadata(), cur.CurrentSnapshot(), rewritten)
		if err != nil {
			return nil, err
		}
		for _, df := range append(dead, deadEq...) {
			rw.DeleteFile(df)
		}
		dropped += len(dead) + len(deadEq)
		if err := rw.Commit(ctx); err != nil {
			return nil, err
		}
		committing = true
		return txn.Commit(ctx)
	})
	if err == nil && !called {
		cleanup() // the table was dropped meanwhile
		return rep, nil
	}
	if err != nil {
		// Output files are removed only when the commit surely did not
		// land: before it was sent, or when the catalog refused it.
		if !committing || errors.Is(err, table.ErrCommitFailed) {
			cleanup()
		}
		if errors.Is(err, errConflict) {
			rep.Conflict = true
			return rep, nil
		}
		return rep, err
	}
	for _, gr := range results {
		rep.Groups++
		rep.FilesRemoved += len(gr.OldDataFiles)
		rep.FilesAdded += len(gr.NewDataFiles)
	}
	rep.DeleteFiles = dropped
	return rep, nil
}

// planGroups bins the files of the current partition spec with
// iceberg-go's planner, per partition: the small ones, in bins of at
// least opts.MinInputFiles, and those whose deletes make them worth
// rewriting (deletes.go), in bins of any size. Files named in pending
// (deletes of theirs wait in the write log) are left out; skipped counts
// those that had deletes to apply.
func planGroups(ctx context.Context, t *table.Table, opts CompactOptions, pending map[string]bool) (groups []table.CompactionTaskGroup, skipped int, err error) {
	tasks, err := t.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("compact %s: plan: %w", t.Identifier(), err)
	}
	// Files of an older spec are left alone, but for VACUUM's erasure of
	// their deleted rows: a group's rows are written in the current spec,
	// one partition of it when they come from one.
	spec := t.Spec()
	specID := spec.ID()
	var small, deleted []table.FileScanTask
	for _, task := range tasks {
		if int(task.File.SpecID()) != specID && !(opts.AllDeletes && hasDeletes(task)) {
			continue
		}
		if pending[task.File.FilePath()] {
			if hasDeletes(task) {
				skipped++
			}
			continue
		}
		if worthApplying(task, opts.AllDeletes) {
			deleted = append(deleted, task)
		} else {
			small = append(small, task)
		}
	}
	// The small files of a partition with files to rewrite for their
	// deletes join them, whatever their number: one rewrite of the
	// partition, not two.
	withDeletes := map[string]bool{}
	for _, task := range deleted {
		withDeletes[partitionOf(task)] = true
	}
	small = slices.DeleteFunc(small, func(task table.FileScanTask) bool {
		if withDeletes[partitionOf(task)] {
			deleted = append(deleted, task)
			return true
		}
		return false
	})
	target := TargetFileSize(t.Properties())
	cfg := compaction.DefaultConfig()
	cfg.TargetFileSizeBytes = target
	cfg.MinFileSizeBytes = target * 3 / 4
	cfg.MaxFileSizeBytes = target * 9 / 5
	// Size alone picks these; deletes were weighed above.
	cfg.DeleteFileThreshold = math.MaxInt
	cfg.DeleteRatioThreshold = 0
	cfg.MinInputFiles = uint(DefaultMinInputFiles)
	if opts.MinInputFiles > 0 {
		cfg.MinInputFiles = uint(opts.MinInputFiles)
	}
	bySize, err := cfg.PlanCompaction(small)
	if err != nil {
		return nil, 0, fmt.Errorf("compact %s: plan: %w", t.Identifier(), err)
	}
	// A file here with a delete file is a candidate whatever its size,
	// and one alone is worth rewriting; one without is if it is small.
	cfg.DeleteFileThreshold = 1
	cfg.MinInputFiles = 1
	byDeletes, err := cfg.PlanCompaction(deleted)
	if err != nil {
		return nil, 0, fmt.Errorf("compact %s: plan: %w", t.Identifier(), err)
	}
	for _, g := range append(bySize.Groups, byDeletes.Groups...) {
		groups = append(groups, table.CompactionTaskGroup{PartitionKey: g.PartitionKey, Tasks: g.Tasks, TotalSizeBytes: g.TotalSizeBytes})
	}
	return groups, skipped, nil
}

// rewriteGroup reads a group's live rows (delete files applied), leaves
// out those past retention, sorts the rest by the table's sort order
// across the whole group (iceberg-go sorts only within each batch it is
// handed) and writes them as files near the target size.
func rewriteGroup(ctx context.Context, t *table.Table, g table.CompactionTaskGroup, cutoff time.Time, hasRetention bool) (table.CompactionGroupResult, int64, error) {
	gr := table.CompactionGroupResult{PartitionKey: g.PartitionKey, BytesBefore: g.TotalSizeBytes}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var sc *arrow.Schema
	var expired int64
	// File by file: a file written before an ADD COLUMN … DEFAULT reads
	// the column's initial default, which Loam keeps beside the schema and
	// fills in by file (icetable.FillInitialDefaults); the new file holds
	// the column, so its values must be written out.
	for _, task := range g.Tasks {
		s, recs, err := t.Scan().ReadTasks(ctx, []table.FileScanTask{task})
		if err != nil {
			return gr, 0, fmt.Errorf("read: %w", err)
		}
		sc = s
		var file []arrow.RecordBatch
		for rec, err := range recs {
			if err != nil {
				releaseAll(file)
				return gr, 0, fmt.Errorf("read: %w", err)
			}
			file = append(file, rec)
		}
		if err := icetable.FillInitialDefaults(t, task.File, file); err != nil {
			releaseAll(file)
			return gr, 0, fmt.Errorf("read: %w", err)
		}
		for i, rec := range file {
			if hasRetention {
				kept, n, err := dropExpired(t.Properties()[RetentionColumnProperty], rec, cutoff)
				rec.Release()
				if err != nil {
					releaseAll(file[i+1:])
					return gr, 0, err
				}
				expired += n
				rec = kept
			}
			batches = append(batches, rec)
		}
	}
	for _, task := range g.Tasks {
		gr.OldDataFiles = append(gr.OldDataFiles, task.File)
	}
	gr.SafeDeletionVectors = table.CollectSafeDeletionVectors(g.Tasks)
	all, err := concat(sc, batches)
	if err != nil {
		return gr, 0, err
	}
	defer all.Release()
	if all.NumRows() == 0 {
		return gr, expired, nil // every row expired: the files just go
	}
	sorted, err := icetable.SortByOrder(ctx, t, all)
	if err != nil {
		return gr, 0, fmt.Errorf("sort: %w", err)
	}
	one := func(yield func(arrow.RecordBatch, error) bool) { yield(sorted, nil) } // WriteRecords releases it
	opts := []table.WriteRecordOption{table.WithTargetFileSize(TargetFileSize(t.Properties()))}
	if spec := t.Spec(); int(g.Tasks[0].File.SpecID()) == spec.ID() {
		// One partition of the current spec: written as it comes. Rows
		// of an older spec's partition may fall in several.
		opts = append(opts, table.WithClusteredWrite())
	}
	for df, err := range table.WriteRecords(ctx, t, sc, one, opts...) {
		if err != nil {
			return gr, 0, fmt.Errorf("write: %w", err)
		}
		gr.NewDataFiles = append(gr.NewDataFiles, df)
		gr.BytesAfter += df.FileSizeBytes()
	}
	return gr, expired, nil
}

// partitionOf names a file's partition: its spec and partition values.
func partitionOf(task table.FileScanTask) string {
	return fmt.Sprint(task.File.SpecID(), task.File.Partition()) // fmt sorts map keys
}

// inputsUnchanged checks, at the commit, that the table still holds
// every file the rewrite read, under the same schema and spec, with the
// same delete files applying to it (a link commit deleting rows of one
// adds or replaces its delete file), and that no transaction in the
// write log deletes rows of one: then the rewritten rows are exactly the
// files' live rows. Anything else committed meanwhile (appends, deletes
// in other files, a manifest merge) is kept beside the rewrite.
func inputsUnchanged(ctx context.Context, base, cur *table.Table, groups []table.CompactionTaskGroup, pending map[string]bool) error {
	cs, bs := cur.Spec(), base.Spec()
	if cur.Schema().ID != base.Schema().ID || cs.ID() != bs.ID() || cur.CurrentSnapshot() == nil {
		return errConflict
	}
	for _, g := range groups {
		for _, task := range g.Tasks {
			if pending[task.File.FilePath()] {
				return errConflict
			}
		}
	}
	if cur.CurrentSnapshot().SnapshotID == base.CurrentSnapshot().SnapshotID {
		return nil
	}
	tasks, err := cur.Scan().PlanFiles(ctx)
	if err != nil {
		return fmt.Errorf("compact %s: plan: %w", cur.Identifier(), err)
	}
	live := make(map[string]table.FileScanTask, len(tasks))
	for _, task := range tasks {
		live[task.File.FilePath()] = task
	}
	for _, g := range groups {
		for _, task := range g.Tasks {
			now, ok := live[task.File.FilePath()]
			if !ok || !slices.Equal(deletePaths(now), deletePaths(task)) {
				return errConflict
			}
		}
	}
	return nil
}

// concat joins batches of one schema into one.
func concat(sc *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	cols := make([]arrow.Array, sc.NumFields())
	parts := make([]arrow.Array, len(recs))
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		var a arrow.Array
		var err error
		if len(parts) == 0 {
			a = array.MakeArrayOfNull(memory.DefaultAllocator, sc.Field(c).Type, 0)
		} else {
			a, err = array.Concatenate(parts, memory.DefaultAllocator)
		}
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, fmt.Errorf("concat: %w", err)
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(sc, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
