package icetable

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// RowIDColumn is the column a read with row ids adds after the table's
// columns (link.RowIDColumn).
const RowIDColumn = "_loam_rowid"

// Positions asks a scan for rows by their position in their data file:
// to drop rows deleted beyond the snapshot, and to yield row ids.
type Positions struct {
	// Deleted is the positions of a data file deleted beyond the
	// snapshot, or nil.
	Deleted func(path string) *dv.RoaringPositionBitmap
	// RowIDs, when set, is the row id of a data file's first row: the
	// scan adds RowIDColumn.
	RowIDs func(path string) int64
	// Only, when not nil, keeps only these positions (ascending) of the
	// file read: a fetch of a few rows by id (ScanFile) need not copy
	// the rest.
	Only []int64
}

func (p *Positions) wants(path string) bool {
	return p != nil && (p.RowIDs != nil || p.Deleted != nil && p.Deleted(path) != nil)
}

// FilterPositions drops the rows of rec whose position (first + the row's
// index) is in del and, with base ≥ 0, adds RowIDColumn: base plus each
// kept row's position.
func FilterPositions(rec arrow.RecordBatch, first int64, del *dv.RoaringPositionBitmap, base int64) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	keep := make([]int32, 0, n)
	for k := range n {
		if del != nil && del.Contains(uint64(first+int64(k))) {
			continue
		}
		keep = append(keep, int32(k))
	}
	return keepRows(rec, first, keep, base)
}

// onlyPositions is FilterPositions keeping only the positions only
// (ascending) that are not in del.
func onlyPositions(rec arrow.RecordBatch, first int64, only []int64, del *dv.RoaringPositionBitmap, base int64) (arrow.RecordBatch, error) {
	n := first + rec.NumRows()
	i, _ := slices.BinarySearch(only, first)
	var keep []int32
	for ; i < len(only) && only[i] < n; i++ {
		if del != nil && del.Contains(uint64(only[i])) {
			continue
		}
		keep = append(keep, int32(only[i]-first))
	}
	return keepRows(rec, first, keep, base)
}

// keepRows is rec's rows keep (indexes into rec, ascending), with
// RowIDColumn added when base ≥ 0.
func keepRows(rec arrow.RecordBatch, first int64, keep []int32, base int64) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	if keep == nil {
		keep = []int32{}
	}
	cols := make([]arrow.Array, 0, rec.NumCols()+1)
	fields := slices.Clone(rec.Schema().Fields())
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	if len(keep) == n {
		for _, c := range rec.Columns() {
			c.Retain()
			cols = append(cols, c)
		}
	} else {
		idx := array.NewInt32Builder(memory.DefaultAllocator)
		idx.AppendValues(keep, nil)
		ia := idx.NewArray()
		idx.Release()
		defer ia.Release()
		for _, c := range rec.Columns() {
			t, err := takeArray(c, ia)
			if err != nil {
				release()
				return nil, err
			}
			cols = append(cols, t)
		}
	}
	if base >= 0 {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.Reserve(len(keep))
		for _, k := range keep {
			b.UnsafeAppend(base + first + int64(k))
		}
		cols = append(cols, b.NewArray())
		b.Release()
		fields = append(fields, arrow.Field{Name: RowIDColumn, Type: arrow.PrimitiveTypes.Int64})
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(keep)))
	release()
	return out, nil
}

func takeArray(a, idx arrow.Array) (arrow.Array, error) {
	return compute.TakeArray(context.Background(), a, idx)
}

// icebergDeleted is the positions of task's data file that its deletion
// vectors and position delete files delete, and its equality deletes,
// which delete rows by their values (eqdeletes.go).
func icebergDeleted(ctx context.Context, t *table.Table, task table.FileScanTask) (*dv.RoaringPositionBitmap, *eqDeletes, error) {
	out, _, err := positionDeleted(ctx, t, task)
	if err != nil {
		return nil, nil, err
	}
	eq, err := readEqDeletes(ctx, t, task)
	if err != nil {
		return nil, nil, err
	}
	return out, eq, nil
}

// positionDeleted is the positions of task's data file that its deletion
// vectors and position delete files delete (nil: none), and whether
// equality deletes apply to it too.
func positionDeleted(ctx context.Context, t *table.Table, task table.FileScanTask) (out *dv.RoaringPositionBitmap, eq bool, err error) {
	dels := taskDeletes(task)
	if len(dels) == 0 {
		return nil, false, nil
	}
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, false, err
	}
	path := task.File.FilePath()
	for _, d := range dels {
		switch {
		case table.IsDeletionVector(d):
			b, err := dv.ReadDV(fs, d)
			if err != nil {
				return nil, false, fmt.Errorf("read deletion vector of %s: %w", path, err)
			}
			if out == nil {
				out = dv.NewRoaringPositionBitmap()
			}
			out.Or(b)
		case d.ContentType() == iceberg.EntryContentPosDeletes:
			if out == nil {
				out = dv.NewRoaringPositionBitmap()
			}
			if err := readPositionDeletes(ctx, t, d, path, out); err != nil {
				return nil, false, err
			}
		default:
			eq = true
		}
	}
	return out, eq, nil
}

// readDeleteFile reads a whole delete file (Parquet) as Arrow: position
// and equality delete files are small next to the data they delete.
func readDeleteFile(ctx context.Context, t *table.Table, d iceberg.DataFile) (arrow.Table, error) {
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, err
	}
	f, err := fs.Open(d.FilePath())
	if err != nil {
		return nil, fmt.Errorf("open delete file %s: %w", d.FilePath(), err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("read delete file %s: %w", d.FilePath(), err)
	}
	defer pf.Close()
	r, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	tbl, err := r.ReadTable(ctx)
	if err != nil {
		return nil, fmt.Errorf("read delete file %s: %w", d.FilePath(), err)
	}
	return tbl, nil
}

// readPositionDeletes adds the positions of path that the position
// delete file d holds to out.
func readPositionDeletes(ctx context.Context, t *table.Table, d iceberg.DataFile, path string, out *dv.RoaringPositionBitmap) error {
	tbl, err := readDeleteFile(ctx, t, d)
	if err != nil {
		return err
	}
	defer tbl.Release()
	pi := tbl.Schema().FieldIndices("file_path")
	qi := tbl.Schema().FieldIndices("pos")
	if len(pi) == 0 || len(qi) == 0 {
		return fmt.Errorf("position delete file %s lacks file_path or pos", d.FilePath())
	}
	paths, poss := tbl.Column(pi[0]).Data().Chunks(), tbl.Column(qi[0]).Data().Chunks()
	for c := range paths {
		pa, ok1 := paths[c].(*array.String)
		qa, ok2 := poss[c].(*array.Int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("position delete file %s has unexpected column types", d.FilePath())
		}
		for k := 0; k < pa.Len(); k++ {
			if pa.Value(k) == path {
				out.Set(uint64(qa.Value(k)))
			}
		}
	}
	return nil
}

// readPositional reads a whole data file in position order, without its
// Iceberg deletes applied by iceberg-go (which loses positions), then
// drops the rows those deletes and the deletes beyond the snapshot name,
// adding row ids when asked.
func (s *Store) readPositional(ctx context.Context, t *table.Table, task table.FileScanTask, fields []string, pos *Positions) *fileCols {
	path := task.File.FilePath()
	del, eq, err := icebergDeleted(ctx, t, task)
	if err != nil {
		return &fileCols{err: fmt.Errorf("scan %s: %w", t.Identifier(), err)}
	}
	// Equality deletes compare columns the read may not want: read them
	// too.
	read := fields
	if eq != nil && fields != nil {
		read = slices.Clone(fields)
		for _, c := range eq.columns() {
			if !slices.Contains(read, c) {
				read = append(read, c)
			}
		}
		if del == nil {
			del = dv.NewRoaringPositionBitmap()
		}
	} else if eq != nil && del == nil {
		del = dv.NewRoaringPositionBitmap()
	}
	if pos.Deleted != nil {
		if more := pos.Deleted(path); more != nil {
			if del == nil {
				del = dv.NewRoaringPositionBitmap()
			}
			del.Or(more)
		}
	}
	var base int64 = -1
	if pos.RowIDs != nil {
		base = pos.RowIDs(path)
	}
	raw := s.readFile(ctx, t, withoutDeletes(task), read, nil, nil, nil)
	if raw.err != nil {
		return raw
	}
	defer raw.release()
	var out []arrow.RecordBatch
	var first int64
	add := func(rec arrow.RecordBatch) error {
		var kept arrow.RecordBatch
		var err error
		if eq != nil {
			// The columns read for them stay in the batch: readers take
			// columns by name.
			if err := eq.mark(rec, first, del); err != nil {
				return err
			}
		}
		if pos.Only != nil {
			kept, err = onlyPositions(rec, first, pos.Only, del, base)
		} else {
			kept, err = FilterPositions(rec, first, del, base)
		}
		first += rec.NumRows()
		if err != nil {
			return err
		}
		out = append(out, kept)
		return nil
	}
	var ferr error
	if raw.cols != nil {
		arrowFields := make([]arrow.Field, len(read))
		for i, name := range read {
			arrowFields[i] = arrow.Field{Name: name, Type: raw.cols[i].DataType(), Nullable: true}
		}
		n := int64(0)
		if len(raw.cols) > 0 {
			n = int64(raw.cols[0].Len())
		}
		rec := array.NewRecordBatch(arrow.NewSchema(arrowFields, nil), raw.cols, n)
		ferr = add(rec)
		rec.Release()
	}
	for _, b := range raw.batches {
		if ferr != nil {
			break
		}
		ferr = add(b)
	}
	if ferr != nil {
		for _, r := range out {
			r.Release()
		}
		return &fileCols{err: fmt.Errorf("scan %s: %w", t.Identifier(), ferr)}
	}
	return &fileCols{batches: out}
}
