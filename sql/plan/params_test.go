package plan

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/types"
)

// noTables is a catalog with no tables.
type noTables struct{}

func (noTables) Table(context.Context, string, string) (*TableInfo, error) {
	return nil, pgerr.New(pgerr.UndefinedTable, "no tables here")
}
func (noTables) Store() *icetable.Store { return nil }

// TestParamsReadAtRunTime: one plan made without parameter values (as
// Describe makes it) serves executions with different values, read from
// the context it is built with; it says it holds no values. A clause that
// needs a value while planning (FETCH FIRST $1 ROWS WITH TIES) says it
// does.
func TestParamsReadAtRunTime(t *testing.T) {
	for _, c := range []struct {
		query      string
		params     [][]types.Datum
		want       []string
		usesValues bool
	}{
		{"SELECT $1::int4 + 1, upper($2)", [][]types.Datum{
			{types.Int(types.TInt4, 41), types.TextDatum("a")},
			{types.Int(types.TInt4, 1), types.TextDatum("b")},
		}, []string{"42 A", "2 B"}, false},
		{"SELECT x FROM (VALUES (1), (2), (3)) v(x) WHERE x > $1 ORDER BY x", [][]types.Datum{
			{types.Int(types.TInt4, 1)},
			{types.Int(types.TInt4, 2)},
		}, []string{"2 3", "3"}, false},
		{"SELECT x FROM (VALUES (1), (2), (3)) v(x) ORDER BY x LIMIT $1 OFFSET $2", [][]types.Datum{
			{types.Int(types.TInt8, 2), types.Int(types.TInt8, 1)},
			{types.Int(types.TInt8, 1), types.NullOf(types.TInt8)},
			{types.NullOf(types.TInt8), types.Int(types.TInt8, 2)},
		}, []string{"2 3", "1", "3"}, false},
		{"SELECT x FROM (VALUES (1)) v(x) ORDER BY x FETCH FIRST $1 ROWS WITH TIES", nil, nil, true},
	} {
		stmts, err := parse.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		ec := &expr.Ctx{Loc: time.UTC, Now: time.Now()}
		p := New(context.Background(), noTables{}, ec, c.query, nil, nil)
		q, err := p.Select(stmts[0].Node.GetSelectStmt())
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if p.UsesParamValues() != c.usesValues || p.Reusable() == c.usesValues {
			t.Errorf("%s: UsesParamValues = %v, Reusable = %v", c.query, p.UsesParamValues(), p.Reusable())
		}
		for i, vals := range c.params {
			// The operators read the context they were planned with; an
			// execution binds its values there.
			ec.Params = vals
			if got := runText(t, q); got != c.want[i] {
				t.Errorf("%s with %v: got %q, want %q", c.query, vals, got, c.want[i])
			}
		}
	}
}

// runText runs q and returns its values, row after row, space-separated.
func runText(t testing.TB, q *Query) string {
	t.Helper()
	ctx := context.Background()
	root, err := q.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := root.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var out []string
	for {
		rec, err := root.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			for i, c := range q.Columns {
				out = append(out, types.FormatText(types.DatumAt(c.T, rec.Column(i), r), time.UTC))
			}
		}
		rec.Release()
	}
	return strings.Join(out, " ")
}
