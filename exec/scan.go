package exec

import (
	"context"
	"errors"
	"iter"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// TableScan describes a scan of one table: which columns, and the filter
// pushed down for pruning.
type TableScan struct {
	Store   *icetable.Store
	Table   *table.Table
	Columns []string  // table column names, in output order
	Types   []types.T // their SQL types
	Filter  iceberg.BooleanExpression
	// RowGroupPreds are Filter's simple conjuncts, which skip Parquet row
	// groups by their statistics.
	RowGroupPreds []icetable.RangePred
	// Log, when set, is the table beyond the snapshot: the write log's
	// rows, read after the files, and the rows deleted since.
	Log *link.Read
	// RowIDs adds a last column, bigint, of each row's id (link.RowIDColumn).
	RowIDs bool
	// Expiry, when set, hides the rows the table's retention expired.
	Expiry *Expiry
	// Dict[i] lets text column i come as a dictionary array (see
	// dict.go): set only when the operators above understand it.
	Dict []bool
}

type scanOp struct {
	spec   TableScan
	schema *arrow.Schema
	next   func() (arrow.RecordBatch, error, bool)
	stop   func()
	Stats  icetable.ScanStats
	opened bool
	rg     icetable.RowGroupStats
	// tailRows counts the rows read from the write log's tail.
	tailRows int64
}

var _ Operator = (*scanOp)(nil)

// NewScan reads a table's current snapshot.
func NewScan(spec TableScan) Operator {
	return &scanOp{spec: spec, schema: Schema(spec.outTypes())}
}

// outTypes are the scan's columns' types, and the row ids' with RowIDs.
func (spec *TableScan) outTypes() []types.T {
	if spec.RowIDs {
		return append(slices.Clone(spec.Types), types.TInt8)
	}
	return spec.Types
}

func (s *scanOp) Types() []types.T { return s.spec.outTypes() }

func (s *scanOp) Open(ctx context.Context) error {
	s.opened = true
	var files iter.Seq2[arrow.RecordBatch, error]
	if s.spec.Table.CurrentSnapshot() != nil {
		filter := s.expiryFilter()
		// A boundary file's row count is not the count of its kept rows:
		// with retention the rows are read.
		var pos *icetable.Positions
		if log := s.spec.Log; log != nil && log.HasFileDeletes() {
			pos = &icetable.Positions{Deleted: log.FileDeletes}
		}
		if s.spec.RowIDs {
			if s.spec.Log == nil {
				return errors.New("exec: a scan with row ids needs the table's write log state")
			}
			if pos == nil {
				pos = &icetable.Positions{}
			}
			pos.RowIDs = s.spec.Log.FileRowIDs
		}
		if len(s.spec.Columns) == 0 && s.spec.Expiry == nil && pos == nil {
			// count(*) and the like need rows but no values: the data
			// files' own row counts say how many, unless deletes apply.
			st, err := s.spec.Store.PlanScan(ctx, s.spec.Table, filter)
			if err != nil {
				return err
			}
			if st.DeleteFiles == 0 {
				s.Stats = st
				files = countOnly(st.Rows)
			}
		}
		if files == nil {
			fields := s.expiryFields(s.spec.Columns)
			if len(fields) == 0 {
				fields = []string{s.spec.Table.Schema().Fields()[0].Name}
			}
			_, seq, st, err := s.spec.Store.ScanDict(ctx, s.spec.Table, filter, s.spec.RowGroupPreds, &s.rg, fields, s.dictFields(fields), pos)
			if err != nil {
				return err
			}
			s.Stats = st
			files = seq
		}
	}
	var tail iter.Seq2[arrow.RecordBatch, error]
	if s.spec.Log != nil {
		tail = s.spec.Log.Rows(s.spec.RowIDs)
	}
	s.next, s.stop = iter.Pull2(func(yield func(arrow.RecordBatch, error) bool) {
		for i, seq := range []iter.Seq2[arrow.RecordBatch, error]{files, tail} {
			if seq == nil {
				continue
			}
			for rec, err := range seq {
				if i == 1 && rec != nil {
					s.tailRows += rec.NumRows()
				}
				if !yield(rec, err) || err != nil {
					return
				}
			}
		}
	})
	return nil
}

func (s *scanOp) Close() error {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
	return nil
}

func (s *scanOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.next == nil {
		return nil, nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err, ok := s.next()
		if !ok {
			s.Close()
			s.next = nil
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if rec, err = s.dropExpired(ctx, rec); err != nil {
			return nil, err
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		out, err := s.convert(rec)
		rec.Release()
		return out, err
	}
}

func (s *scanOp) convert(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(s.spec.Columns), s.schema.NumFields())
	for i, name := range s.spec.Columns {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) == 0 {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, errMissingColumn(name)
		}
		c, err := s.fromArrow(rec.Column(idx[0]), i)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		cols[i] = c
	}
	if s.spec.RowIDs {
		idx := rec.Schema().FieldIndices(link.RowIDColumn)
		if len(idx) == 0 {
			for _, c := range cols {
				c.Release()
			}
			return nil, errMissingColumn(link.RowIDColumn)
		}
		c := rec.Column(idx[0])
		c.Retain()
		cols = append(cols, c)
	}
	sc := s.schema
	for _, c := range cols {
		if IsDict(c) {
			sc = schemaOf(cols)
			break
		}
	}
	out := array.NewRecordBatch(sc, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

type errMissingColumn string

func (e errMissingColumn) Error() string {
	return "scan: column " + string(e) + " missing from data file batch"
}

// countOnly yields batches without columns that hold rows rows in all.
func countOnly(rows int64) iter.Seq2[arrow.RecordBatch, error] {
	empty := arrow.NewSchema(nil, nil)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rows > 0 {
			n := min(rows, 1<<20)
			rows -= n
			if !yield(array.NewRecordBatch(empty, nil, n), nil) {
				return
			}
		}
	}
}

// dictFields says which of the fields read may come as dictionaries.
func (s *scanOp) dictFields(fields []string) []bool {
	if len(s.spec.Dict) == 0 {
		return nil
	}
	out := make([]bool, len(fields))
	for i, name := range fields {
		for j, col := range s.spec.Columns {
			if col == name && j < len(s.spec.Dict) && s.spec.Dict[j] {
				out[i] = true
			}
		}
	}
	return out
}

// fromArrow converts column i as read into Loam's array of its type; a
// dictionary the scan asked for passes as it is.
func (s *scanOp) fromArrow(a arrow.Array, i int) (arrow.Array, error) {
	if IsDict(a) && i < len(s.spec.Dict) && s.spec.Dict[i] {
		a.Retain()
		return a, nil
	}
	if IsDict(a) {
		d := DecodeDict(a)
		defer d.Release()
		return ice.FromArrow(d, s.spec.Types[i])
	}
	return ice.FromArrow(a, s.spec.Types[i])
}
