package physical

import (
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// ScanSource is the table state a scan reads: the table pinned at a
// snapshot and the write log's rows beyond it, as the planner saw them.
type ScanSource struct {
	Store *icetable.Store
	Table *table.Table
	// Log, when set, is the table beyond the snapshot: the write log's
	// rows, read after the files, and the rows deleted since.
	Log *link.Read
	// Current marks a scan of the table's current state (not a branch,
	// tag or time-travel snapshot): the builder reads the state current
	// when the plan runs (build.Env.Tables), so that a kept plan sees the
	// rows written since it was made. NS and Name are the table's.
	Current  bool
	NS, Name string
}

// Scan reads some columns of one table. Prune is a predicate over the
// table's columns as Names lists them (nil: none); the builder turns it
// into Iceberg's file and row-group filters. Rows are still filtered
// above the scan: pruning is not exact.
type Scan struct {
	Source      ScanSource
	Columns     []string  // table column names, in output order
	ColumnTypes []types.T // their SQL types
	Names       []string  // the column names Prune's column indexes refer to
	Prune       expr.Expr
	// Expiry, when set, hides the rows the table's retention expired.
	Expiry *exec.Expiry
	// RowIDs adds a last column, bigint, of each row's id: the rows an
	// UPDATE, DELETE or MERGE reads to delete (link.RowWriter.Delete).
	RowIDs bool
}

func (s *Scan) Types() []types.T {
	if s.RowIDs {
		return append(slices.Clone(s.ColumnTypes), types.TInt8)
	}
	return s.ColumnTypes
}
func (s *Scan) Children() []Node { return nil }

// Explain shows what the plan says of the scan; the builder adds what
// the table's metadata says (files, snapshot), which needs I/O.
func (s *Scan) Explain() Explained {
	ex := Explained{Name: "Iceberg Scan on " + strings.Join(s.Source.Table.Identifier(), ".")}
	cols := "(none: row count only)"
	if s.Expiry != nil {
		cols = "(none: " + s.Expiry.Column + " read for retention)"
	}
	if len(s.Columns) > 0 {
		cols = strings.Join(s.Columns, ", ")
	}
	ex.Details = append(ex.Details, "Columns: "+cols)
	if f := s.PruneFilter(); f != nil {
		ex.Details = append(ex.Details, "Pruning Filter: "+f.String())
	}
	if x := s.Expiry; x != nil {
		ex.Details = append(ex.Details, "Retention: rows with "+x.Column+" before "+x.Cutoff.UTC().Format("2006-01-02 15:04:05.999999Z07")+" hidden")
	}
	return ex
}

// SpecOf is the exec scan the node describes, reading src: Prune, with
// its parameters and per-run parts bound to their values in ec (pruning
// compares columns with constants), converted to Iceberg's filter and the
// row-group predicates.
func (s *Scan) SpecOf(src ScanSource, ec *expr.Ctx) exec.TableScan {
	spec := exec.TableScan{Store: src.Store, Table: src.Table, Log: src.Log, RowIDs: s.RowIDs, Expiry: s.Expiry,
		Columns: s.Columns, Types: s.ColumnTypes}
	if x := s.Expiry; x != nil && x.Retention != nil && ec != nil && !ec.Now.IsZero() {
		at := *x
		at.Cutoff = x.Retention.Cutoff(ec.Now)
		spec.Expiry = &at
	}
	if s.Prune != nil {
		prune := expr.BindRun(s.Prune, ec)
		spec.Filter = ice.Pushdown(prune, s.Names)
		spec.RowGroupPreds = ice.RangePreds(prune, s.Names)
	}
	return spec
}

// PruneFilter is Prune as the Iceberg filter files are pruned by. Parts
// computed per run (now() - interval '1 day') show with this moment's
// value; parameters, which have none here, prune nothing.
func (s *Scan) PruneFilter() iceberg.BooleanExpression {
	if s.Prune == nil {
		return nil
	}
	return ice.Pushdown(expr.BindRun(s.Prune, &expr.Ctx{Loc: time.UTC, Now: time.Now()}), s.Names)
}
