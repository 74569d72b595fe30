package icetable

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Loam decodes the columns of its own data files itself, with parquet-go,
// rather than through iceberg-go's scan (arrow-go's pqarrow): measured on
// Loam's files (bench/parquetdecode) parquet-go decodes dictionary-encoded
// integers, strings and plain strings faster, and it hands string columns
// over as their dictionary and codes, which the executor compares and
// groups by code. Files it cannot read this way (nested or unsupported
// columns, a column the file lacks, evolved types) go through iceberg-go.

// errNotDirect says a file must be read through iceberg-go's scan.
var errNotDirect = errors.New("icetable: file not readable directly")

// DictString is the Arrow type of a string column kept as its Parquet
// dictionary: int32 codes into a string dictionary.
var DictString = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// directColumn is where a wanted column lives in the file and the Arrow
// type it is read as.
type directColumn struct {
	leaf int // column chunk index
	typ  arrow.DataType
	max  int // maximum definition level: 1 optional, 0 required
	dict bool
}

// directColumns maps the wanted fields to the file's leaf columns by
// Iceberg field ID; errNotDirect unless every one is a flat column of a
// type this reader decodes, stored as the table's type says.
func directColumns(sc *iceberg.Schema, pf *parquet.File, fields []string, dict []bool) ([]directColumn, error) {
	byID := map[int]*parquet.Column{}
	for _, c := range pf.Root().Columns() {
		if c.Leaf() && !c.Repeated() {
			byID[c.ID()] = c
		}
	}
	out := make([]directColumn, len(fields))
	for i, name := range fields {
		f, ok := sc.FindFieldByName(name)
		if !ok {
			return nil, errNotDirect
		}
		c := byID[f.ID]
		if c == nil {
			return nil, errNotDirect
		}
		typ := directType(f.Type, c.Type().Kind())
		if typ == nil || typ.ID() == arrow.TIMESTAMP && !microseconds(c.Type()) {
			return nil, errNotDirect
		}
		out[i] = directColumn{leaf: c.Index(), typ: typ, max: c.MaxDefinitionLevel()}
		if typ.ID() == arrow.STRING && i < len(dict) && dict[i] {
			out[i].dict = true
		}
	}
	return out, nil
}

// directType is the Arrow type a column of Iceberg type t stored as
// Parquet kind k is read as; nil when this reader leaves it to iceberg-go.
func directType(t iceberg.Type, k parquet.Kind) arrow.DataType {
	switch t.(type) {
	case iceberg.Int32Type:
		if k == parquet.Int32 {
			return arrow.PrimitiveTypes.Int32
		}
	case iceberg.DateType:
		if k == parquet.Int32 {
			return arrow.FixedWidthTypes.Date32
		}
	case iceberg.Int64Type:
		if k == parquet.Int64 {
			return arrow.PrimitiveTypes.Int64
		}
	case iceberg.TimestampType:
		if k == parquet.Int64 {
			return &arrow.TimestampType{Unit: arrow.Microsecond}
		}
	case iceberg.TimestampTzType:
		if k == parquet.Int64 {
			return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
		}
	case iceberg.Float32Type:
		if k == parquet.Float {
			return arrow.PrimitiveTypes.Float32
		}
	case iceberg.Float64Type:
		if k == parquet.Double {
			return arrow.PrimitiveTypes.Float64
		}
	case iceberg.StringType:
		if k == parquet.ByteArray {
			return arrow.BinaryTypes.String
		}
	}
	return nil
}

// openDirect opens a data file for readDirect: errNotDirect when one of
// the wanted columns must be read through iceberg-go.
func openDirect(r io.ReaderAt, size int64, sc *iceberg.Schema, fields []string, dict []bool) (*parquet.File, []directColumn, error) {
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, nil, err
	}
	cols, err := directColumns(sc, pf, fields, dict)
	if err != nil {
		return nil, nil, err
	}
	return pf, cols, nil
}

// readDirect decodes the columns of the kept row groups of a file (keep
// nil for all), one array per column covering those rows in order.
func readDirect(pf *parquet.File, cols []directColumn, keep []bool) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(cols))
	for _, c := range cols {
		a, err := readDirectColumn(pf, c, keep)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// readDirectColumn decodes one column over the kept row groups.
func readDirectColumn(pf *parquet.File, c directColumn, keep []bool) (arrow.Array, error) {
	var d columnDecoder
	switch c.typ.ID() {
	case arrow.STRING:
		d = newStringDecoder(c.dict)
	case arrow.INT32, arrow.DATE32:
		d = newFixedDecoder(c.typ, parquetInt32s)
	case arrow.INT64, arrow.TIMESTAMP:
		d = newFixedDecoder(c.typ, parquetInt64s)
	case arrow.FLOAT32:
		d = newFixedDecoder(c.typ, parquetFloats)
	case arrow.FLOAT64:
		d = newFixedDecoder(c.typ, parquetDoubles)
	default:
		return nil, errNotDirect
	}
	defer d.release()
	for g, rg := range pf.RowGroups() {
		if keep != nil && (g >= len(keep) || !keep[g]) {
			continue
		}
		if err := decodeChunk(rg.ColumnChunks()[c.leaf], c.max, d); err != nil {
			return nil, fmt.Errorf("column %d of row group %d: %w", c.leaf, g, err)
		}
	}
	return d.finish(), nil
}

// decodeChunk feeds a column chunk's pages to d.
func decodeChunk(cc parquet.ColumnChunk, max int, d columnDecoder) error {
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		defs := p.DefinitionLevels()
		if max == 0 {
			defs = nil
		}
		err = d.page(p, defs, int(p.NumValues()))
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

// columnDecoder appends pages' values to an Arrow array under
// construction. defs, when not nil, holds a definition level per row: 0
// is NULL (the page's values skip NULLs).
type columnDecoder interface {
	page(p parquet.Page, defs []byte, rows int) error
	finish() arrow.Array
	release()
}

// readFileDirect reads a file's columns with readDirect, caching them when
// every row group was read; nil when the file must go through iceberg-go.
func (s *Store) readFileDirect(ctx context.Context, t *table.Table, task table.FileScanTask, fields []string, dict []bool, preds []RangePred, rg *RowGroupStats, keys []string) *fileCols {
	path := task.File.FilePath()
	fsys, err := t.FS(ctx)
	if err != nil {
		return &fileCols{err: err}
	}
	f, err := fsys.Open(path)
	if err != nil {
		return &fileCols{err: fmt.Errorf("scan %s: %w", t.Identifier(), err)}
	}
	defer f.Close()
	pf, cols, err := openDirect(f, task.File.FileSizeBytes(), t.Schema(), fields, dict)
	if errors.Is(err, errNotDirect) {
		return nil
	}
	if err != nil {
		return &fileCols{err: fmt.Errorf("scan %s: reading %s: %w", t.Identifier(), path, err)}
	}
	var keep []bool
	if len(preds) > 0 {
		_, k, kept, err := s.keptRowGroups(ctx, t, path, preds, rg)
		if err != nil {
			return &fileCols{err: err}
		}
		if kept == 0 {
			return &fileCols{}
		}
		if kept < len(k) {
			keep = k
		}
	}
	arrs, err := readDirect(pf, cols, keep)
	if err != nil {
		return &fileCols{err: fmt.Errorf("scan %s: reading %s: %w", t.Identifier(), path, err)}
	}
	if len(arrs) > 0 && arrs[0].Len() == 0 {
		for _, a := range arrs {
			a.Release()
		}
		return &fileCols{}
	}
	if keep == nil {
		s.cache.put(path, keys, arrs)
	}
	return &fileCols{cols: arrs}
}

// dictKeys marks the cache keys of the columns asked for as dictionaries:
// the cache holds each form under its own key.
func dictKeys(keys []string, dict []bool) []string {
	for i := range keys {
		if i < len(dict) && dict[i] {
			keys[i] += "#dict"
		}
	}
	return keys
}

// microseconds reports whether a timestamp column counts microseconds, as
// Loam writes them (an imported file may count milli- or nanoseconds).
func microseconds(t parquet.Type) bool {
	lt := t.LogicalType()
	if lt == nil {
		return false
	}
	ts, ok := lt.Value.(*format.TimestampType)
	if !ok {
		return false
	}
	_, ok = ts.Unit.Value.(*format.MicroSeconds)
	return ok
}
