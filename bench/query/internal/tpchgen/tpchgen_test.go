package tpchgen

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFraction generates scale factor 0.01 (dbgen's rule for a scale below
// 1) and checks the row counts and that every foreign key falls in the
// referenced table's key range: without scaleBelowOne the counts are
// SF 1's, and without its recomputed key ranges orders name customers and
// lineitems name parts that do not exist.
func TestFraction(t *testing.T) {
	if testing.Short() {
		t.Skip("dbgen builds its 300 MB text pool first: seconds of CPU")
	}
	dir := t.TempDir()
	counts, err := Generate(dir, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for table, want := range Rows(0.01) {
		if counts[table] != want {
			t.Errorf("%s: %d rows, want %d", table, counts[table], want)
		}
	}
	if n := counts["lineitem"]; n < 4*counts["orders"]-2000 || n > 4*counts["orders"]+2000 {
		t.Errorf("lineitem: %d rows for %d orders, want about 4 a order", n, counts["orders"])
	}
	checkKeys(t, dir, "orders", 1, counts["customer"])
	checkKeys(t, dir, "lineitem", 1, counts["part"])
	checkKeys(t, dir, "lineitem", 2, counts["supplier"])
	checkKeys(t, dir, "partsupp", 1, counts["supplier"])
}

// TestWholeScaleRows pins the row counts of whole scale factors to the
// TPC-H specification's (clause 4.2.5).
func TestWholeScaleRows(t *testing.T) {
	r := Rows(10)
	for table, want := range map[string]int64{"supplier": 100000, "customer": 1500000, "part": 2000000, "partsupp": 8000000, "orders": 15000000, "nation": 25, "region": 5} {
		if r[table] != want {
			t.Errorf("SF 10 %s: %d, want %d", table, r[table], want)
		}
	}
	if _, err := Generate(t.TempDir(), 1.5); err == nil {
		t.Error("scale factor 1.5 accepted")
	}
}

// checkKeys checks that column col (from 0) of table's file lies in 1..max.
func checkKeys(t *testing.T, dir, table string, col int, max int64) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, table+".tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, err := strconv.ParseInt(strings.Split(sc.Text(), "\t")[col], 10, 64)
		if err != nil || v < 1 || v > max {
			t.Fatalf("%s column %d: %q out of 1..%d", table, col, sc.Text(), max)
		}
	}
}
