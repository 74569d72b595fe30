package engine

import (
	"testing"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// TestSeqOptions checks CREATE SEQUENCE's options against PostgreSQL's
// defaults and checks (init_params).
func TestSeqOptions(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want meta.Sequence
		code string
	}{
		{sql: "CREATE SEQUENCE s", want: meta.Sequence{Type: "bigint", Start: 1, Increment: 1, Min: 1, Max: 1<<63 - 1, Cache: 1, Last: 1}},
		{sql: "CREATE SEQUENCE s INCREMENT -2", want: meta.Sequence{Type: "bigint", Start: -1, Increment: -2, Min: -1 << 63, Max: -1, Cache: 1, Last: -1}},
		{sql: "CREATE SEQUENCE s AS smallint START 5 CACHE 20 CYCLE", want: meta.Sequence{Type: "smallint", Start: 5, Increment: 1, Min: 1, Max: 32767, Cache: 20, Cycle: true, Last: 5}},
		{sql: "CREATE SEQUENCE s AS integer MINVALUE 10 MAXVALUE 20 NO CYCLE", want: meta.Sequence{Type: "integer", Start: 10, Increment: 1, Min: 10, Max: 20, Cache: 1, Last: 10}},
		{sql: "CREATE SEQUENCE s MAXVALUE 9223372036854775807 NO MINVALUE", want: meta.Sequence{Type: "bigint", Start: 1, Increment: 1, Min: 1, Max: 1<<63 - 1, Cache: 1, Last: 1}},
		{sql: "CREATE SEQUENCE s INCREMENT 0", code: pgerr.InvalidParameterValue},
		{sql: "CREATE SEQUENCE s START 5 MINVALUE 10", code: pgerr.InvalidParameterValue},
		{sql: "CREATE SEQUENCE s START 50 MAXVALUE 10", code: pgerr.InvalidParameterValue},
		{sql: "CREATE SEQUENCE s MINVALUE 5 MAXVALUE 5", code: pgerr.InvalidParameterValue},
		{sql: "CREATE SEQUENCE s AS smallint MAXVALUE 40000", code: pgerr.InvalidParameterValue},
		{sql: "CREATE SEQUENCE s AS text", code: pgerr.InvalidParameterValue},
		{sql: "CREATE SEQUENCE s CACHE 0", code: pgerr.InvalidParameterValue},
	} {
		tree, err := pg.Parse(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		cs := tree.Stmts[0].Stmt.GetCreateSeqStmt()
		got, err := seqOptions(cs.Options, types.TInt8, c.sql)
		if c.code != "" {
			if pgerr.Code(err) != c.code {
				t.Errorf("%s: %v, want SQLSTATE %s", c.sql, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.sql, got, err, c.want)
		}
	}
}

// TestSeqName checks how nextval's text argument names a sequence.
func TestSeqName(t *testing.T) {
	for _, c := range []struct{ in, schema, name string }{
		{"s", "", "s"},
		{"S", "", "s"},
		{`"S"`, "", "S"},
		{"public.s", "public", "s"},
		{`"My Schema"."a.b"`, "My Schema", "a.b"},
		{`"q""x"`, "", `q"x`},
	} {
		if schema, name := seqName(c.in); schema != c.schema || name != c.name {
			t.Errorf("seqName(%q) = %q, %q; want %q, %q", c.in, schema, name, c.schema, c.name)
		}
	}
}
