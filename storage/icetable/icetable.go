// Package icetable keeps Loam's tables as Iceberg tables through
// iceberg-go: creating them with their partition spec and sort order,
// appending sorted data files, and scanning with pruning into Arrow.
package icetable

import (
	"context"
	"errors"
	"fmt"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"iter"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Catalog is the Iceberg catalog a Store keeps its tables in: one that can
// also purge a table, dropping it and deleting its files (iceberg-go's SQL,
// REST and Glue catalogs can; meta.Store's is the SQL one).
type Catalog interface {
	catalog.Catalog
	PurgeTable(ctx context.Context, id table.Identifier) error
}

// Store creates, loads and drops tables in an Iceberg catalog.
type Store struct {
	cat   Catalog
	cache *colCache
	// manifests keeps parsed manifest lists and manifests for scan
	// planning (planfiles.go).
	manifests *manifestCache
	// loaded, when not nil, keeps loaded tables (loadcache.go).
	loaded *loadedTables
	// fileTasks keeps recent snapshots' planned files by path, for
	// ScanFile (added.go).
	fileTasks fileTaskCache
}

// New wraps a catalog.
func New(cat Catalog) *Store {
	return &Store{cat: cat, manifests: newManifestCache(manifestCacheLimit)}
}

// SetScanCache keeps up to limit bytes of decoded data file columns in
// memory for scans; 0 turns the cache off. Call it before scanning.
func (s *Store) SetScanCache(limit int64) {
	if limit <= 0 {
		s.cache = nil
		return
	}
	s.cache = newColCache(limit)
}

// ErrNoSuchTable and friends are the catalog's, re-exported so callers need
// not import iceberg-go to test for them.
var (
	ErrNoSuchTable     = catalog.ErrNoSuchTable
	ErrNoSuchNamespace = catalog.ErrNoSuchNamespace
	ErrTableExists     = catalog.ErrTableAlreadyExists
	// ErrViewExists: a view holds the name a table was to take.
	ErrViewExists        = catalog.ErrViewAlreadyExists
	ErrNamespaceExists   = catalog.ErrNamespaceAlreadyExists
	ErrNamespaceNotEmpty = catalog.ErrNamespaceNotEmpty
)

// CreateNamespace creates a namespace (a Postgres schema).
func (s *Store) CreateNamespace(ctx context.Context, ns string) error {
	return s.cat.CreateNamespace(ctx, table.Identifier{ns}, iceberg.Properties{})
}

// NamespaceExists reports whether ns exists.
func (s *Store) NamespaceExists(ctx context.Context, ns string) (bool, error) {
	return s.cat.CheckNamespaceExists(ctx, table.Identifier{ns})
}

// DropNamespace drops an empty namespace.
func (s *Store) DropNamespace(ctx context.Context, ns string) error {
	return s.cat.DropNamespace(ctx, table.Identifier{ns})
}

// NamespaceCommentProperty holds COMMENT ON SCHEMA among a namespace's
// properties, the key Spark and Trino use.
const NamespaceCommentProperty = "comment"

// SetNamespaceComment sets or, for "", removes a namespace's comment.
// PostgreSQL's public schema comes with a comment, which Loam reports while
// the property is absent: removing it there stores an empty one instead.
func (s *Store) SetNamespaceComment(ctx context.Context, ns, comment string) error {
	id := table.Identifier{ns}
	if ok, err := s.cat.CheckNamespaceExists(ctx, id); err != nil || !ok {
		if err == nil {
			err = ErrNoSuchNamespace
		}
		return err
	}
	var removals []string
	updates := iceberg.Properties{}
	if comment != "" || ns == "public" {
		updates[NamespaceCommentProperty] = comment
	} else {
		removals = []string{NamespaceCommentProperty}
		props, err := s.cat.LoadNamespaceProperties(ctx, id)
		if err != nil {
			return err
		}
		if _, ok := props[NamespaceCommentProperty]; !ok {
			return nil
		}
	}
	_, err := s.cat.UpdateNamespaceProperties(ctx, id, removals, updates)
	return err
}

// ListNamespaces lists the catalog's namespaces.
func (s *Store) ListNamespaces(ctx context.Context) ([]string, error) {
	ids, err := s.cat.ListNamespaces(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, strings.Join(id, "."))
	}
	return out, nil
}

// ListTables lists the table names in ns.
func (s *Store) ListTables(ctx context.Context, ns string) ([]string, error) {
	var out []string
	for id, err := range s.cat.ListTables(ctx, table.Identifier{ns}) {
		if err != nil {
			return nil, err
		}
		out = append(out, id[len(id)-1])
	}
	return out, nil
}

// Create creates a format-version 2 table.
func (s *Store) Create(ctx context.Context, ns, name string, sc *iceberg.Schema, spec *iceberg.PartitionSpec,
	order table.SortOrder, props iceberg.Properties) (*table.Table, error) {
	return s.CreateAt(ctx, ns, name, "", sc, spec, order, props)
}

// CreateAt is Create with the table's files under location ("" for the
// catalog's default, which is derived from the name): a table that takes
// the name of one set aside must not share its directory, since dropping
// either removes every file under its location.
func (s *Store) CreateAt(ctx context.Context, ns, name, location string, sc *iceberg.Schema, spec *iceberg.PartitionSpec,
	order table.SortOrder, props iceberg.Properties) (*table.Table, error) {
	p := iceberg.Properties{"format-version": "2"}
	for k, v := range props {
		p[k] = v
	}
	opts := []catalog.CreateTableOpt{catalog.WithProperties(p), catalog.WithSortOrder(order)}
	if location != "" {
		opts = append(opts, catalog.WithLocation(location))
	}
	if spec != nil {
		opts = append(opts, catalog.WithPartitionSpec(spec))
	}
	t, err := s.cat.CreateTable(ctx, table.Identifier{ns, name}, sc, opts...)
	if err != nil {
		return nil, fmt.Errorf("create table %s.%s: %w", ns, name, err)
	}
	if location == "" {
		// The name's directory may hold a renamed table's files (location.go).
		return s.ownLocation(ctx, t, table.Identifier{ns, name}, func(loc string) (*table.Table, error) {
			return s.CreateAt(ctx, ns, name, loc, sc, spec, order, props)
		})
	}
	return t, nil
}

// Load loads a table's current metadata.
func (s *Store) Load(ctx context.Context, ns, name string) (*table.Table, error) {
	if s.loaded == nil {
		return s.cat.LoadTable(ctx, table.Identifier{ns, name})
	}
	if t, ok := s.loaded.get(ctx, ns, name); ok {
		return t, nil
	}
	t, err := s.cat.LoadTable(ctx, table.Identifier{ns, name})
	if err != nil {
		s.loaded.forget(ns, name)
		return nil, err
	}
	s.loaded.put(ns, name, t)
	return t, nil
}

// Drop removes a table from the catalog and deletes its files.
func (s *Store) Drop(ctx context.Context, ns, name string) error {
	id := table.Identifier{ns, name}
	err := s.cat.PurgeTable(ctx, id)
	if err == nil || errors.Is(err, catalog.ErrNoSuchTable) {
		return err
	}
	// Purging loads the table first: one whose metadata cannot be read
	// still leaves the catalog.
	return s.cat.DropTable(ctx, id)
}

// Rename moves a table to another name in its namespace; its metadata
// and files stay where they are.
func (s *Store) Rename(ctx context.Context, ns, from, to string) error {
	_, err := s.cat.RenameTable(ctx, table.Identifier{ns, from}, table.Identifier{ns, to})
	return err
}

// maxCommitAttempts bounds retries when another commit moved the table's
// pointer between our read and our compare-and-swap.
const maxCommitAttempts = 10

// Append writes rec as data files, sorted by the table's sort order and
// split by its partition spec, and commits them as one snapshot. A lost race
// on the catalog pointer is retried on the fresh table state.
func (s *Store) Append(ctx context.Context, t *table.Table, rec arrow.RecordBatch, props iceberg.Properties) (*table.Table, error) {
	return s.appendTo(ctx, t, table.MainBranch, rec, props)
}

// appendTo is Append onto a branch.
func (s *Store) appendTo(ctx context.Context, t *table.Table, branch string, rec arrow.RecordBatch, props iceberg.Properties) (*table.Table, error) {
	if rec.NumRows() == 0 {
		return t, nil
	}
	sorted, err := SortByOrder(ctx, t, rec)
	if err != nil {
		return nil, fmt.Errorf("append %s: sort: %w", t.Identifier(), err)
	}
	defer sorted.Release()
	nt, err := s.retryLostRace(ctx, t, func(t *table.Table) (*table.Table, error) {
		tx := t.NewTransactionOnBranch(branch)
		rdr, err := array.NewRecordReader(sorted.Schema(), []arrow.RecordBatch{sorted})
		if err != nil {
			return nil, err
		}
		err = tx.Append(ctx, rdr, props)
		rdr.Release()
		if err != nil {
			return nil, err
		}
		return tx.Commit(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("append %s: %w", t.Identifier(), err)
	}
	return nt, nil
}

// retryLostRace runs commit on t and, while it loses the race on the
// catalog's pointer to another commit, on the table reloaded, a few
// times with a growing pause: iceberg-go's SQL catalog does not retry.
func (s *Store) retryLostRace(ctx context.Context, t *table.Table, commit func(*table.Table) (*table.Table, error)) (*table.Table, error) {
	for attempt := 1; ; attempt++ {
		nt, err := commit(t)
		if err == nil {
			return nt, nil
		}
		if !lostRace(err) || attempt >= maxCommitAttempts {
			return nil, err
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
		if t, err = s.Load(ctx, t.Identifier()[0], t.Identifier()[1]); err != nil {
			return nil, fmt.Errorf("reload after conflict: %w", err)
		}
	}
}

// Change is a metadata change computed from a table's current state: the
// updates, and what must still hold of the table for them to apply.
type Change func(t *table.Table) ([]table.Requirement, []table.Update, error)

// Update commits a metadata change (properties, schema docs). A lost race
// on the catalog pointer is retried with the change computed again on the
// fresh table state, so a concurrent commit (the link's appends) and the
// change never lose each other. No updates: nothing is committed.
func (s *Store) Update(ctx context.Context, t *table.Table, change Change) (*table.Table, error) {
	id := t.Identifier()
	// The change is computed on the catalog's current state, not the
	// caller's, which may be behind another server's commits.
	t, err := s.Load(ctx, id[0], id[1])
	if err != nil {
		return nil, fmt.Errorf("update %s: load: %w", id, err)
	}
	for attempt := 1; ; attempt++ {
		reqs, ups, err := change(t)
		if err != nil || len(ups) == 0 {
			return t, err
		}
		reqs = append(reqs, table.AssertTableUUID(t.Metadata().TableUUID()))
		_, _, err = s.cat.CommitTable(ctx, id, reqs, ups)
		if err == nil {
			nt, err := s.Load(ctx, id[0], id[1])
			if err != nil {
				return nil, fmt.Errorf("update %s: reload: %w", id, err)
			}
			removeDroppedMetadata(ctx, t, nt)
			return nt, nil
		}
		if !lostRace(err) || attempt >= maxCommitAttempts {
			return nil, fmt.Errorf("update %s: commit: %w", id, err)
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
		if t, err = s.Load(ctx, id[0], id[1]); err != nil {
			return nil, fmt.Errorf("update %s: reload after conflict: %w", id, err)
		}
	}
}

// removeDroppedMetadata deletes the metadata files the commit from base to
// nt dropped from the metadata log, as iceberg-go's own commits do (with
// write.metadata.delete-after-commit.enabled), which a commit through the
// catalog alone skips. A file that cannot be removed is left to orphan
// removal.
func removeDroppedMetadata(ctx context.Context, base, nt *table.Table) {
	if !nt.Properties().GetBool(table.MetadataDeleteAfterCommitEnabledKey, table.MetadataDeleteAfterCommitEnabledDefault) {
		return
	}
	fs, err := nt.FS(ctx)
	if err != nil {
		return
	}
	kept := map[string]bool{}
	for e := range nt.Metadata().PreviousFiles() {
		kept[e.MetadataFile] = true
	}
	for e := range base.Metadata().PreviousFiles() {
		if !kept[e.MetadataFile] {
			_ = fs.Remove(e.MetadataFile)
		}
	}
}

// SetProperty sets a table property, or removes it for "".
func SetProperty(key, value string) Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		if old, ok := t.Properties()[key]; ok == (value != "") && old == value {
			return nil, nil, nil
		}
		if value == "" {
			return nil, []table.Update{table.NewRemovePropertiesUpdate([]string{key})}, nil
		}
		return nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{key: value})}, nil
	}
}

// SetColumnDoc sets a top-level field's doc ("" removes it) in a new
// current schema. iceberg-go's UpdateSchema would do it but re-sorts the
// identifier field IDs, whose order is the primary key's to Loam, so the
// schema is rebuilt here with everything else as it was.
func SetColumnDoc(column, doc string) Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		sc := t.Schema()
		fields := sc.Fields()
		found := false
		for i := range fields {
			if fields[i].Name == column {
				if fields[i].Doc == doc {
					return nil, nil, nil
				}
				fields[i].Doc, found = doc, true
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("set doc: %s has no column %s", t.Identifier(), column)
		}
		next := 0
		for _, s := range t.Metadata().Schemas() {
			next = max(next, s.ID+1)
		}
		ns := iceberg.NewSchemaWithIdentifiers(next, sc.IdentifierFieldIDs, fields...)
		return []table.Requirement{table.AssertCurrentSchemaID(sc.ID)},
			[]table.Update{table.NewAddSchemaUpdate(ns), table.NewSetCurrentSchemaUpdate(-1)}, nil
	}
}

// SortByOrder sorts a whole batch by the table's default sort order;
// iceberg-go only sorts each batch it is handed, so the caller must hand it
// sorted input for files to be sorted (the link's appends, compaction).
func SortByOrder(ctx context.Context, t *table.Table, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	order := t.SortOrder()
	sc := t.Schema()
	var keys []compute.SortKey
	for _, f := range order.Fields() {
		if _, ok := f.Transform.(iceberg.IdentityTransform); !ok {
			continue
		}
		field, ok := sc.FindFieldByID(f.SourceID())
		if !ok {
			continue
		}
		idx := rec.Schema().FieldIndices(field.Name)
		if len(idx) == 0 {
			continue
		}
		k := compute.SortKey{ColumnIndex: idx[0], Order: compute.SortOrderAscending, NullPlacement: compute.SortNullsAtEnd}
		if f.Direction == table.SortDESC {
			k.Order = compute.SortOrderDescending
		}
		if f.NullOrder == table.NullsFirst {
			k.NullPlacement = compute.SortNullsAtStart
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		rec.Retain()
		return rec, nil
	}
	return compute.SortRecordBatch(ctx, rec, keys)
}

// ScanStats says what a scan's planning pruned.
type ScanStats struct {
	FilesTotal   int // data files in the snapshot
	FilesScanned int // after partition and metrics pruning
	// Partitions is the number of distinct partition values among the
	// files scanned; Rows and Bytes are what those files hold.
	Partitions int
	Rows       int64
	Bytes      int64
	// DeleteFiles counts the delete files applying to the files scanned:
	// with any, Rows overstates the live rows.
	DeleteFiles int
}

func (st *ScanStats) count(tasks []table.FileScanTask) {
	st.FilesScanned = len(tasks)
	parts := map[string]bool{}
	for _, t := range tasks {
		st.Rows += t.File.Count()
		st.Bytes += t.File.FileSizeBytes()
		st.DeleteFiles += len(taskDeletes(t))
		parts[fmt.Sprint(t.File.Partition())] = true
	}
	st.Partitions = len(parts)
}

// PlanScan plans a scan without reading it, for EXPLAIN: what pruning by
// filter leaves of the snapshot's files.
func (s *Store) PlanScan(ctx context.Context, t *table.Table, filter iceberg.BooleanExpression) (ScanStats, error) {
	var st ScanStats
	tasks, err := s.planFiles(ctx, t, prunable(t, filter), nil)
	if err != nil {
		return st, fmt.Errorf("scan %s: plan: %w", t.Identifier(), err)
	}
	st.count(tasks)
	if snap := t.CurrentSnapshot(); snap != nil && snap.Summary != nil {
		if n, ok := snap.Summary.Properties["total-data-files"]; ok {
			fmt.Sscan(n, &st.FilesTotal)
		}
	}
	return st, nil
}

// Scan reads the table's current snapshot: the files that may hold rows
// matching filter (pruned by partition values and column statistics), and
// only the named columns. Rows are not filtered here: iceberg-go v0.7's
// row-level residual filter drops matching rows of files that hold NULLs
// in other columns, so the caller filters rows exactly itself. Tasks decode
// on all cores.
//
// preds, the simple conjuncts of filter, skip the row groups of a file
// whose statistics rule them out, when the file is not in the column
// cache; rg, when not nil, counts row groups read and skipped.
//
// pos, when not nil, reads files by row position: to drop rows deleted
// beyond the snapshot, and to add row ids.
func (s *Store) Scan(ctx context.Context, t *table.Table, filter iceberg.BooleanExpression, preds []RangePred, rg *RowGroupStats, fields []string, pos *Positions) (*arrow.Schema, iter.Seq2[arrow.RecordBatch, error], ScanStats, error) {
	return s.ScanDict(ctx, t, filter, preds, rg, fields, nil, pos)
}

// ScanDict is Scan where dict[i] true lets string column fields[i] come as
// a Dictionary array of type DictString (codes into the file's
// dictionary) when the file stores it dictionary encoded; it may still
// come as plain strings.
func (s *Store) ScanDict(ctx context.Context, t *table.Table, filter iceberg.BooleanExpression, preds []RangePred, rg *RowGroupStats, fields []string, dict []bool, pos *Positions) (*arrow.Schema, iter.Seq2[arrow.RecordBatch, error], ScanStats, error) {
	var st ScanStats
	planOpts := []table.ScanOption{}
	if fields != nil {
		planOpts = append(planOpts, table.WithSelectedFields(slices.Clone(fields)...))
	}
	tasks, err := s.planFiles(ctx, t, prunable(t, filter), planOpts)
	if err != nil {
		return nil, nil, st, fmt.Errorf("scan %s: plan: %w", t.Identifier(), err)
	}
	st.count(tasks)
	if snap := t.CurrentSnapshot(); snap != nil && snap.Summary != nil {
		if n, ok := snap.Summary.Properties["total-data-files"]; ok {
			fmt.Sscan(n, &st.FilesTotal)
		}
	}
	return nil, s.readTasks(t, tasks, fields, dict, preds, rg, pos), st, nil
}

// fileCols is one data file's columns, whole; or, for a file with deletes
// (which the cache never holds), its batches as iceberg-go read them.
type fileCols struct {
	cols    []arrow.Array
	batches []arrow.RecordBatch
	err     error
}

func (f *fileCols) release() {
	for _, a := range f.cols {
		a.Release()
	}
	for _, b := range f.batches {
		b.Release()
	}
}

// readTasks yields the rows of tasks in order. Files are decoded ahead on
// all cores, at most two per core at a time; decoded columns come from and
// go to the column cache.
func (s *Store) readTasks(t *table.Table, tasks []table.FileScanTask, fields []string, dict []bool, preds []RangePred, rg *RowGroupStats, pos *Positions) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		ctx, cancel := context.WithCancel(context.Background())
		workers := runtime.GOMAXPROCS(0)
		results := make([]chan *fileCols, len(tasks))
		for i := range results {
			results[i] = make(chan *fileCols, 1)
		}
		sem := make(chan struct{}, 2*workers)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tasks {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					results[i] <- s.readFileRecovered(ctx, t, tasks[i], fields, dict, preds, rg, pos)
				}(i)
			}
		}()
		defer func() {
			cancel()
			// Drain what the workers finish, so nothing leaks.
			go func() {
				wg.Wait()
				for _, ch := range results {
					select {
					case r := <-ch:
						r.release()
					default:
					}
				}
			}()
		}()
		for i := range tasks {
			var r *fileCols
			select {
			case r = <-results[i]:
			case <-ctx.Done():
				return
			}
			<-sem
			if r.err != nil {
				r.release()
				yield(nil, r.err)
				return
			}
			if !yieldFile(r, fields, yield) {
				return
			}
		}
	}
}

// yieldFile passes a file's rows on in batches; false when the consumer
// stopped.
func yieldFile(r *fileCols, fields []string, yield func(arrow.RecordBatch, error) bool) bool {
	defer r.release()
	for _, b := range r.batches {
		b.Retain()
		if !yield(b, nil) {
			return false
		}
	}
	if r.cols == nil {
		return true
	}
	arrowFields := make([]arrow.Field, len(fields))
	for i, name := range fields {
		arrowFields[i] = arrow.Field{Name: name, Type: r.cols[i].DataType(), Nullable: true}
	}
	sc := arrow.NewSchema(arrowFields, nil)
	n := int64(0)
	if len(r.cols) > 0 {
		n = int64(r.cols[0].Len())
	}
	const batch = 16384
	for off := int64(0); off < n; off += batch {
		end := min(off+batch, n)
		cols := make([]arrow.Array, len(r.cols))
		for i, a := range r.cols {
			cols[i] = array.NewSlice(a, off, end)
		}
		rec := array.NewRecordBatch(sc, cols, end-off)
		for _, c := range cols {
			c.Release()
		}
		if !yield(rec, nil) {
			return false
		}
	}
	return true
}

// readFile decodes one data file's columns, or takes them from the cache.
// readFileRecovered is readFile on a goroutine of its own, where a panic
// (a damaged file, a reader bug) would end the server: it becomes the
// scan's error.
func (s *Store) readFileRecovered(ctx context.Context, t *table.Table, task table.FileScanTask, fields []string, dict []bool, preds []RangePred, rg *RowGroupStats, pos *Positions) (fc *fileCols) {
	defer func() {
		if r := recover(); r != nil {
			fc = &fileCols{err: fmt.Errorf("reading %s: internal error: %v", task.File.FilePath(), r)}
		}
	}()
	if pos.wants(task.File.FilePath()) {
		return s.readPositional(ctx, t, task, fields, pos)
	}
	return s.readFile(ctx, t, task, fields, dict, preds, rg)
}

func (s *Store) readFile(ctx context.Context, t *table.Table, task table.FileScanTask, fields []string, dict []bool, preds []RangePred, rg *RowGroupStats) *fileCols {
	// Planning with the filter leaves a residual on the task, which
	// ReadTasks would apply to rows; the caller filters rows itself (see
	// Scan), and the cache must hold every row of the file.
	task.Residual = nil
	path := task.File.FilePath()
	cacheable := !hasDeletes(task) && fields != nil && !pinnedSchema(t)
	// Cached by field ID and type, not name: a renamed column, or a
	// dropped one's namesake, must not read another column's values.
	keys := dictKeys(cacheKeys(t.Schema(), fields), dict)
	if cacheable {
		if cols, ok := s.cache.get(path, keys); ok {
			return &fileCols{cols: cols}
		}
	}
	defaults, err := InitialDefaultsOf(t.Properties())
	if err != nil {
		return &fileCols{err: err}
	}
	if fields != nil && !hasDeletes(task) && len(defaults) == 0 && !pinnedSchema(t) {
		if fc := s.readFileDirect(ctx, t, task, fields, dict, preds, rg, keys); fc != nil {
			return fc
		}
	}
	read := []table.FileScanTask{task}
	if len(preds) > 0 && !hasDeletes(task) {
		// Only some row groups: read those, and keep the file out of the
		// cache, which holds whole files.
		some, all, err := s.rowGroupTasks(ctx, t, task, preds, rg)
		if err != nil {
			return &fileCols{err: err}
		}
		if !all {
			if len(some) == 0 {
				return &fileCols{}
			}
			read, cacheable = some, false
		}
	}
	opts := []table.ScanOption{table.WithMaxConcurrency(1)}
	extra := ""
	if fields != nil {
		sel := slices.Clone(fields)
		if extra = fileColumnBesides(t, task.File, fields); extra != "" {
			sel = append(sel, extra)
		}
		opts = append(opts, table.WithSelectedFields(sel...))
	}
	_, seq, err := t.Scan(opts...).ReadTasks(ctx, read)
	if err != nil {
		return &fileCols{err: fmt.Errorf("scan %s: %w", t.Identifier(), err)}
	}
	var recs []arrow.RecordBatch
	for rec, err := range seq {
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			return &fileCols{err: fmt.Errorf("scan %s: %w", t.Identifier(), err)}
		}
		if extra != "" {
			rec = dropColumn(rec, extra)
		}
		recs = append(recs, rec)
	}
	if len(defaults) > 0 {
		if err := fillBatches(t, task.File, defaults, recs); err != nil {
			for _, r := range recs {
				r.Release()
			}
			return &fileCols{err: fmt.Errorf("scan %s: %w", t.Identifier(), err)}
		}
	}
	if !cacheable {
		return &fileCols{batches: recs}
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	cols := make([]arrow.Array, len(fields))
	for i, name := range fields {
		parts := make([]arrow.Array, 0, len(recs))
		for _, r := range recs {
			idx := r.Schema().FieldIndices(name)
			if len(idx) == 0 {
				for _, c := range cols[:i] {
					c.Release()
				}
				return &fileCols{err: fmt.Errorf("scan %s: column %s missing from %s", t.Identifier(), name, path)}
			}
			parts = append(parts, r.Column(idx[0]))
		}
		var a arrow.Array
		switch len(parts) {
		case 0:
			a = nil
		case 1:
			parts[0].Retain()
			a = parts[0]
		default:
			var err error
			if a, err = array.Concatenate(parts, memory.DefaultAllocator); err != nil {
				for _, c := range cols[:i] {
					c.Release()
				}
				return &fileCols{err: fmt.Errorf("scan %s: %w", t.Identifier(), err)}
			}
		}
		cols[i] = a
	}
	if len(recs) == 0 {
		return &fileCols{}
	}
	s.cache.put(path, keys, cols)
	return &fileCols{cols: cols}
}

// lostRace reports a commit that failed because another writer moved the
// table first: the catalog's compare-and-swap failed, or a requirement
// checked against the catalog's fresher metadata did (iceberg-go's SQL
// catalog returns those as plain errors and does not retry them; v0.7
// spells a moved or concurrently created branch's "requirement failed" in
// lower case, beside others, a tag as target, that no retry helps).
func lostRace(err error) bool {
	msg := err.Error()
	return errors.Is(err, table.ErrCommitFailed) || strings.Contains(msg, "Requirement failed") ||
		strings.Contains(msg, "requirement failed") && (strings.Contains(msg, "has changed") || strings.Contains(msg, "created concurrently"))
}
