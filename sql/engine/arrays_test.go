package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestArrayColumnsStored writes array columns with INSERT and COPY, reads
// them back from the write log and, after CHECKPOINT, from the Iceberg
// files, and checks that an outside reader (iceberg-go) sees Iceberg list
// columns with the elements, NULL elements and NULL arrays.
func TestArrayColumnsStored(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE a (id int, tags text[], nums bigint[])`)
	mustRun(t, s, `INSERT INTO a VALUES (1, '{x,"y z"}', '{1,2}'), (2, NULL, '{}')`)
	if _, err := copyIn(t, s, `COPY a FROM STDIN`, strings.NewReader("3\t{p,NULL,q}\t{3,NULL}\n4\t{\"a,b\"}\t\\N\n")); err != nil {
		t.Fatalf("COPY: %v", err)
	}
	const want = "1 {x,\"y z\"} {1,2}|2 NULL {}|3 {p,NULL,q} {3,NULL}|4 {\"a,b\"} NULL"
	read := func(when string) {
		t.Helper()
		r := mustRun(t, s, `SELECT id, tags, nums FROM a ORDER BY id`)
		var rows []string
		for _, row := range r.rows {
			for i, v := range row {
				if v == null {
					row[i] = "NULL"
				}
			}
			rows = append(rows, strings.Join(row, " "))
		}
		if got := strings.Join(rows, "|"); got != want {
			t.Errorf("%s: rows %s, want %s", when, got, want)
		}
	}
	read("from the write log")
	if got := copyOut(t, s, `COPY (SELECT tags FROM a WHERE id = 3) TO STDOUT`); got != "{p,NULL,q}\n" {
		t.Errorf("COPY TO: %q", got)
	}
	mustRun(t, s, "CHECKPOINT")
	read("from Iceberg")
	e.Close()

	cat := openIcebergCatalog(t, dir)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "a"})
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	for _, c := range []struct {
		name string
		elem iceberg.Type
	}{{"tags", iceberg.PrimitiveTypes.String}, {"nums", iceberg.PrimitiveTypes.Int64}} {
		f, ok := tbl.Schema().FindFieldByName(c.name)
		if !ok {
			t.Fatalf("no field %s", c.name)
		}
		l, ok := f.Type.(*iceberg.ListType)
		if !ok || !l.Element.Equals(c.elem) || l.ElementRequired {
			t.Errorf("%s: Iceberg type %s, want list<%s> with optional elements", c.name, f.Type, c.elem)
		}
	}
	at, err := tbl.Scan(table.WithSelectedFields("id", "tags", "nums")).ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("ToArrowTable: %v", err)
	}
	defer at.Release()
	got := map[int32]string{}
	tr := array.NewTableReader(at, 100)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		ids := rec.Column(0).(*array.Int32)
		for i := 0; i < int(rec.NumRows()); i++ {
			got[ids.Value(i)] = rec.Column(1).ValueStr(i) + " " + rec.Column(2).ValueStr(i)
		}
	}
	wantOutside := map[int32]string{1: `["x","y z"] [1,2]`, 2: `(null) []`, 3: `["p",null,"q"] [3,null]`, 4: `["a,b"] (null)`}
	for id, w := range wantOutside {
		if got[id] != w {
			t.Errorf("outside reader, row %d: %s, want %s", id, got[id], w)
		}
	}
}
