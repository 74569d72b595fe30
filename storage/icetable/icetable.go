// Package icetable keeps Loam's tables as Iceberg tables through
// iceberg-go: creating them with their partition spec and sort order,
// appending sorted data files, and scanning with pruning into Arrow.
package icetable

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Store creates, loads and drops tables in an Iceberg catalog.
type Store struct {
	cat catalog.Catalog
}

// New wraps a catalog.
func New(cat catalog.Catalog) *Store { return &Store{cat: cat} }

// ErrNoSuchTable and friends are the catalog's, re-exported so callers need
// not import iceberg-go to test for them.
var (
	ErrNoSuchTable       = catalog.ErrNoSuchTable
	ErrNoSuchNamespace   = catalog.ErrNoSuchNamespace
	ErrTableExists       = catalog.ErrTableAlreadyExists
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
	p := iceberg.Properties{"format-version": "2"}
	for k, v := range props {
		p[k] = v
	}
	opts := []catalog.CreateTableOpt{catalog.WithProperties(p), catalog.WithSortOrder(order)}
	if spec != nil {
		opts = append(opts, catalog.WithPartitionSpec(spec))
	}
	t, err := s.cat.CreateTable(ctx, table.Identifier{ns, name}, sc, opts...)
	if err != nil {
		return nil, fmt.Errorf("create table %s.%s: %w", ns, name, err)
	}
	return t, nil
}

// Load loads a table's current metadata.
func (s *Store) Load(ctx context.Context, ns, name string) (*table.Table, error) {
	return s.cat.LoadTable(ctx, table.Identifier{ns, name})
}

// Drop removes a table from the catalog and deletes its files.
func (s *Store) Drop(ctx context.Context, ns, name string) error {
	id := table.Identifier{ns, name}
	if p, ok := s.cat.(interface {
		PurgeTable(context.Context, table.Identifier) error
	}); ok {
		if err := p.PurgeTable(ctx, id); err == nil || errors.Is(err, catalog.ErrNoSuchTable) {
			return err
		}
	}
	return s.cat.DropTable(ctx, id)
}

// maxCommitAttempts bounds retries when another commit moved the table's
// pointer between our read and our compare-and-swap.
const maxCommitAttempts = 10

// Append writes rec as data files, sorted by the table's sort order and
// split by its partition spec, and commits them as one snapshot. A lost race
// on the catalog pointer is retried on the fresh table state.
func (s *Store) Append(ctx context.Context, t *table.Table, rec arrow.RecordBatch, props iceberg.Properties) (*table.Table, error) {
	if rec.NumRows() == 0 {
		return t, nil
	}
	sorted, err := sortByOrder(ctx, t, rec)
	if err != nil {
		return nil, fmt.Errorf("append %s: sort: %w", t.Identifier(), err)
	}
	defer sorted.Release()
	for attempt := 1; ; attempt++ {
		tx := t.NewTransaction()
		rdr, err := array.NewRecordReader(sorted.Schema(), []arrow.RecordBatch{sorted})
		if err != nil {
			return nil, err
		}
		err = tx.Append(ctx, rdr, props)
		rdr.Release()
		if err != nil {
			return nil, fmt.Errorf("append %s: %w", t.Identifier(), err)
		}
		nt, err := tx.Commit(ctx)
		if err == nil {
			return nt, nil
		}
		if !lostRace(err) || attempt >= maxCommitAttempts {
			return nil, fmt.Errorf("append %s: commit: %w", t.Identifier(), err)
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
		if t, err = s.Load(ctx, t.Identifier()[0], t.Identifier()[1]); err != nil {
			return nil, fmt.Errorf("append: reload after conflict: %w", err)
		}
	}
}

// sortByOrder sorts a whole batch by the table's default sort order;
// iceberg-go only sorts each batch it is handed, so the caller must hand it
// sorted input for files to be sorted.
func sortByOrder(ctx context.Context, t *table.Table, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
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
		st.DeleteFiles += len(t.DeleteFiles)
		parts[fmt.Sprint(t.File.Partition())] = true
	}
	st.Partitions = len(parts)
}

// PlanScan plans a scan without reading it, for EXPLAIN: what pruning by
// filter leaves of the snapshot's files.
func (s *Store) PlanScan(ctx context.Context, t *table.Table, filter iceberg.BooleanExpression) (ScanStats, error) {
	var st ScanStats
	opts := []table.ScanOption{}
	if filter != nil {
		opts = append(opts, table.WithRowFilter(filter))
	}
	tasks, err := t.Scan(opts...).PlanFiles(ctx)
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
func (s *Store) Scan(ctx context.Context, t *table.Table, filter iceberg.BooleanExpression, fields []string) (*arrow.Schema, iter.Seq2[arrow.RecordBatch, error], ScanStats, error) {
	var st ScanStats
	opts := []table.ScanOption{table.WithMaxConcurrency(runtime.GOMAXPROCS(0))}
	if fields != nil {
		opts = append(opts, table.WithSelectedFields(slices.Clone(fields)...))
	}
	planOpts := opts
	if filter != nil {
		planOpts = append(slices.Clone(opts), table.WithRowFilter(filter))
	}
	tasks, err := t.Scan(planOpts...).PlanFiles(ctx)
	if err != nil {
		return nil, nil, st, fmt.Errorf("scan %s: plan: %w", t.Identifier(), err)
	}
	st.count(tasks)
	if snap := t.CurrentSnapshot(); snap != nil && snap.Summary != nil {
		if n, ok := snap.Summary.Properties["total-data-files"]; ok {
			fmt.Sscan(n, &st.FilesTotal)
		}
	}
	sc, it, err := t.Scan(opts...).ReadTasks(ctx, tasks)
	if err != nil {
		return nil, nil, st, fmt.Errorf("scan %s: %w", t.Identifier(), err)
	}
	return sc, it, st, nil
}

// lostRace reports a commit that failed because another writer moved the
// table first: the catalog's compare-and-swap failed, or a requirement
// checked against the catalog's fresher metadata did (iceberg-go's SQL
// catalog returns those as plain errors and does not retry them).
func lostRace(err error) bool {
	return errors.Is(err, table.ErrCommitFailed) || strings.Contains(err.Error(), "Requirement failed")
}
