package engine_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestAddPrimaryKeyIceberg adds primary keys to tables with rows in data
// files and in the write log, and reads them back with iceberg-go: the
// key is the schema's identifier fields, a column the table had from its
// creation becomes required (as Iceberg wants of identifier fields), a
// column added later stays optional (older files lack it), and every row
// reads as before.
func TestAddPrimaryKeyIceberg(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE k1 (id int, v text)`)
	mustRun(t, s, `CREATE TABLE k2 (id int, v text)`)
	for _, tb := range []string{"k1", "k2"} {
		mustRun(t, s, `INSERT INTO `+tb+` VALUES (1, 'file')`)
		mustRun(t, s, `CHECKPOINT`)
		mustRun(t, s, `INSERT INTO `+tb+` VALUES (2, 'tail')`)
	}
	mustRun(t, s, `ALTER TABLE k1 ADD PRIMARY KEY (id)`)
	mustRun(t, s, `ALTER TABLE k2 ADD COLUMN w int`)
	mustRun(t, s, `UPDATE k2 SET w = id`)
	mustRun(t, s, `ALTER TABLE k2 ADD CONSTRAINT k2_w_pk PRIMARY KEY (w)`)
	if _, err := runSQL(ctx, s, `INSERT INTO k2 VALUES (3, 'x', 2)`); err == nil {
		t.Fatal("duplicate w after ADD PRIMARY KEY (w): no error")
	}
	mustRun(t, s, `INSERT INTO k1 VALUES (3, 'after')`)
	mustRun(t, s, `CHECKPOINT`)
	e.Close()

	cat := openIcebergCatalog(t, dir)
	for _, c := range []struct {
		name     string
		key      string
		required bool
		rows     []string
	}{
		{"k1", "id", true, []string{"1|file", "2|tail", "3|after"}},
		{"k2", "w", false, []string{"1|file|1", "2|tail|2"}},
	} {
		tbl, err := cat.LoadTable(ctx, table.Identifier{"public", c.name})
		if err != nil {
			t.Fatal(err)
		}
		sc := tbl.Schema()
		f, _ := sc.FindFieldByName(c.key)
		if !reflect.DeepEqual(sc.IdentifierFieldIDs, []int{f.ID}) {
			t.Errorf("%s: identifier fields %v, want [%d] (%s)", c.name, sc.IdentifierFieldIDs, f.ID, c.key)
		}
		if f.Required != c.required {
			t.Errorf("%s: key column %s required = %v, want %v", c.name, c.key, f.Required, c.required)
		}
		if _, rows := icebergText(t, tbl); !reflect.DeepEqual(rows, c.rows) {
			t.Errorf("%s: iceberg-go reads %q, want %q", c.name, rows, c.rows)
		}
	}
}
