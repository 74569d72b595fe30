package icetable

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/iceberg-go/table"
)

// RangePred is one conjunct of a scan's filter that Parquet row-group
// statistics can rule out: Column Op Val, Val an int64 (integers, dates as
// days, timestamps as microseconds), float64 or string.
type RangePred struct {
	Column string
	Op     string // "=", "<", "<=", ">", ">="
	Val    any
}

// RowGroupStats counts the row groups of the files a scan decoded, and how
// many of them the statistics let it skip. Workers add to it as they go.
type RowGroupStats struct {
	Total, Skipped atomic.Int64
}

// rowGroupTasks splits a task into the runs of its file's row groups whose
// statistics may satisfy every pred, reading the file's footer. all is
// true when every row group must be read (the caller reads the file
// whole); otherwise tasks, possibly none, cover the rest. It counts what
// it saw into st.
func (s *Store) rowGroupTasks(ctx context.Context, t *table.Table, task table.FileScanTask, preds []RangePred, st *RowGroupStats) (tasks []table.FileScanTask, all bool, err error) {
	md, keep, kept, err := s.keptRowGroups(ctx, t, task.File.FilePath(), preds, st)
	if err != nil {
		return nil, false, err
	}
	n := len(keep)
	if kept == n {
		return nil, true, nil
	}
	// A task selects the row groups whose offset lies in [Start,
	// Start+Length): one task per run of kept groups.
	var out []table.FileScanTask
	for i := 0; i < n; {
		if !keep[i] {
			i++
			continue
		}
		j := i
		for j+1 < n && keep[j+1] {
			j++
		}
		sub := task
		sub.Start = rowGroupOffset(md.RowGroup(i))
		sub.Length = rowGroupOffset(md.RowGroup(j)) - sub.Start + 1
		out = append(out, sub)
		i = j + 1
	}
	return out, false, nil
}

// rowGroupOffset is where a row group starts, as iceberg-go locates it: its
// first column chunk's dictionary page, else its first data page.
func rowGroupOffset(rg *metadata.RowGroupMetaData) int64 {
	if rg.NumColumns() > 0 {
		if c, err := rg.ColumnChunk(0); err == nil {
			data := c.DataPageOffset()
			if c.HasDictionaryPage() {
				if d := c.DictionaryPageOffset(); d >= 0 && (data < 0 || d < data) {
					return d
				}
			}
			if data >= 0 {
				return data
			}
		}
	}
	return rg.FileOffset()
}

// keptRowGroups reads a file's footer and says which of its row groups
// may hold a row satisfying every pred, counting them into st.
func (s *Store) keptRowGroups(ctx context.Context, t *table.Table, path string, preds []RangePred, st *RowGroupStats) (md *metadata.FileMetaData, keep []bool, kept int, err error) {
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	f, err := fs.Open(path)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("row groups of %s: %w", path, err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("row groups of %s: %w", path, err)
	}
	defer pr.Close()
	md = pr.MetaData()
	n := md.NumRowGroups()
	keep = make([]bool, n)
	cols := predColumns(t, md, preds)
	for i := 0; i < n; i++ {
		keep[i] = mayMatch(md.RowGroup(i), preds, cols)
		if keep[i] {
			kept++
		}
	}
	if st != nil {
		st.Total.Add(int64(n))
		st.Skipped.Add(int64(n - kept))
	}
	return md, keep, kept, nil
}

// predColumns finds the file's column chunk index each pred's column is
// stored in, -1 for none: by Iceberg field ID, since the file may predate
// a rename, or hold a dropped column of the same name.
func predColumns(t *table.Table, md *metadata.FileMetaData, preds []RangePred) []int {
	out := make([]int, len(preds))
	sc := t.Schema()
	for i, p := range preds {
		out[i] = -1
		f, ok := sc.FindFieldByName(p.Column)
		if !ok {
			continue
		}
		for c := 0; c < md.Schema.NumColumns(); c++ {
			if int(md.Schema.Column(c).SchemaNode().FieldID()) == f.ID {
				out[i] = c
				break
			}
		}
	}
	return out
}

// mayMatch reports whether a row group may hold a row satisfying every
// pred: false only when some pred's column statistics rule it out. cols
// are predColumns'.
func mayMatch(rg *metadata.RowGroupMetaData, preds []RangePred, cols []int) bool {
	for i, p := range preds {
		for c := cols[i]; c >= 0 && c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				break
			}
			if ok, _ := cc.StatsSet(); !ok {
				break
			}
			st, err := cc.Statistics()
			if err != nil || st == nil || !st.HasMinMax() {
				break
			}
			if !rangeMayMatch(st, p) {
				return false
			}
			break
		}
	}
	return true
}

// rangeMayMatch compares a predicate with a column chunk's min and max.
func rangeMayMatch(st metadata.TypedStatistics, p RangePred) bool {
	var lo, hi int // sign of min-v and max-v
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		v, ok := p.Val.(int64)
		if !ok {
			return true
		}
		lo, hi = cmpInt(int64(s.Min()), v), cmpInt(int64(s.Max()), v)
	case *metadata.Int64Statistics:
		v, ok := p.Val.(int64)
		if !ok {
			return true
		}
		lo, hi = cmpInt(s.Min(), v), cmpInt(s.Max(), v)
	case *metadata.Float64Statistics:
		v, ok := p.Val.(float64)
		if !ok || s.Min() != s.Min() || s.Max() != s.Max() {
			return true
		}
		lo, hi = cmpFloat(s.Min(), v), cmpFloat(s.Max(), v)
	case *metadata.ByteArrayStatistics:
		v, ok := p.Val.(string)
		if !ok {
			return true
		}
		lo, hi = bytes.Compare(s.Min(), []byte(v)), bytes.Compare(s.Max(), []byte(v))
	default:
		return true
	}
	switch p.Op {
	case "=":
		return lo <= 0 && hi >= 0
	case "<":
		return lo < 0
	case "<=":
		return lo <= 0
	case ">":
		return hi > 0
	case ">=":
		return hi >= 0
	}
	return true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
