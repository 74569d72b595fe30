// Package tpchgen writes the eight TPC-H tables as PostgreSQL COPY text,
// from the data generator of github.com/pingcap/go-tpc (a Go port of the
// TPC's dbgen: the same seeds, distributions and rows as dbgen's .tbl files).
//
// dbgen keeps its state in package variables, so a process generates one
// data set at a time (Generate holds a lock).
package tpchgen

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// Tables are the TPC-H tables in the order they are loaded (referenced
// tables first).
var Tables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// Rows is how many rows each table has at scale factor sf, as dbgen
// makes them (lineitem's count is only known after generating: 1 to 7
// lines an order, about 4 on average).
func Rows(sf float64) map[string]int64 {
	s := func(base int64) int64 { return scaledBase(base, sf) * max(1, int64(sf)) }
	return map[string]int64{
		"region": 5, "nation": 25,
		"supplier": s(10000), "customer": s(150000), "part": s(200000),
		"partsupp": 4 * s(200000), "orders": s(1500000),
	}
}

// scaledBase is dbgen's rule for a scale factor below 1: the base row
// counts are multiplied by the scale (in thousandths) and the integer
// scale is 1; at 1 and above the bases stay and the scale multiplies.
func scaledBase(base int64, sf float64) int64 {
	if sf >= 1 {
		return base
	}
	n := int64(math.Round(sf*1000)) * base / 1000
	return max(n, 1)
}

// Counts is the number of rows written to each table's file.
type Counts map[string]int64

var genMu sync.Mutex

// Generate writes dir/<table>.tsv for every table at scale factor sf
// (whole numbers, or below 1 as dbgen allows: 0.1, 0.01), in COPY text
// format, and returns the row counts. dbgen reports its progress on
// stdout; that goes to progress instead.
func Generate(dir string, sf float64) (Counts, error) {
	if sf <= 0 || (sf > 1 && sf != math.Trunc(sf)) {
		return nil, fmt.Errorf("scale factor %v: dbgen takes a whole number, or a fraction below 1", sf)
	}
	genMu.Lock()
	defer genMu.Unlock()

	w := &writers{dir: dir, counts: Counts{}}
	defer w.close()
	loaders := map[dbgen.Table]dbgen.Loader{}
	for t, name := range map[dbgen.Table]string{
		dbgen.TRegion: "region", dbgen.TNation: "nation", dbgen.TSupp: "supplier", dbgen.TCust: "customer",
		dbgen.TPart: "part", dbgen.TPsupp: "partsupp", dbgen.TOrder: "orders", dbgen.TLine: "lineitem",
	} {
		l, err := w.open(name)
		if err != nil {
			return nil, err
		}
		loaders[t] = l
	}

	// dbgen prints "generating …" on stdout, where a report may be going.
	stdout := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = stdout }()

	dbgen.InitDbGen(max(1, int64(sf)))
	if sf < 1 {
		scaleBelowOne(sf)
	}
	tables := []dbgen.Table{dbgen.TNation, dbgen.TRegion, dbgen.TSupp, dbgen.TCust, dbgen.TPartPsupp, dbgen.TOrderLine}
	if err := dbgen.DbGen(loaders, tables); err != nil {
		return nil, err
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	return w.counts, nil
}

// writers are the tables' files and their row counts.
type writers struct {
	dir    string
	files  []*os.File
	bufs   []*bufio.Writer
	counts Counts
	err    error
}

func (w *writers) open(table string) (*tableLoader, error) {
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(w.dir, table+".tsv"))
	if err != nil {
		return nil, err
	}
	b := bufio.NewWriterSize(f, 1<<20)
	w.files = append(w.files, f)
	w.bufs = append(w.bufs, b)
	return &tableLoader{name: table, w: b, counts: w.counts}, nil
}

func (w *writers) close() error {
	for i, f := range w.files {
		if err := w.bufs[i].Flush(); err != nil && w.err == nil {
			w.err = fmt.Errorf("%s: %w", f.Name(), err)
		}
		if err := f.Close(); err != nil && w.err == nil {
			w.err = err
		}
	}
	w.files, w.bufs = nil, nil
	return w.err
}

// tableLoader is a dbgen.Loader writing one table's rows as COPY text.
type tableLoader struct {
	name   string
	w      *bufio.Writer
	counts Counts
	line   []byte
}

func (l *tableLoader) Flush() error { return l.w.Flush() }

func (l *tableLoader) Load(item any) error {
	switch x := item.(type) {
	case *dbgen.Order:
		if l.name == "lineitem" {
			for i := range x.Lines {
				l.row(lineitemRow(&x.Lines[i]))
			}
			return nil
		}
		l.row(ordersRow(x))
	case *dbgen.Part:
		if l.name == "partsupp" {
			for i := range x.S {
				l.row(partsuppRow(&x.S[i]))
			}
			return nil
		}
		l.row(partRow(x))
	case *dbgen.Supp:
		l.row(supplierRow(x))
	case *dbgen.Cust:
		l.row(customerRow(x))
	case *dbgen.Nation:
		l.row([]string{itoa(x.Code), x.Text, itoa(x.Join), x.Comment})
	case *dbgen.Region:
		l.row([]string{itoa(x.Code), x.Text, x.Comment})
	default:
		return fmt.Errorf("tpchgen: %s: unexpected row %T", l.name, item)
	}
	return nil
}

// row writes one line of COPY text. dbgen's text has no tab, newline or
// backslash, so no value needs escaping.
func (l *tableLoader) row(vals []string) {
	l.line = l.line[:0]
	for i, v := range vals {
		if i > 0 {
			l.line = append(l.line, '\t')
		}
		l.line = append(l.line, v...)
	}
	l.line = append(l.line, '\n')
	_, _ = l.w.Write(l.line) // a write error comes back from Flush
	l.counts[l.name]++
}

func itoa[T ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }
