package plan

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// TestCheckDefault checks the stored DEFAULT texts: pg_get_expr's plain and
// pretty forms as PostgreSQL 15 prints them for these columns (the catalog
// compare in regress/catalog checks them against a live one), and the
// errors CREATE TABLE gives.
func TestCheckDefault(t *testing.T) {
	for _, tc := range []struct {
		col, def      string
		plain, pretty string // pretty "" means the same as plain
		code          string
	}{
		{col: "int", def: "0", plain: "0"},
		{col: "int", def: "-1", plain: "'-1'::integer"},
		{col: "bigint", def: "0", plain: "0"},
		{col: "bigint", def: "-5", plain: "'-5'::integer"},
		{col: "bigint", def: "5000000000", plain: "'5000000000'::bigint"},
		{col: "numeric", def: "1.5", plain: "1.5"},
		{col: "numeric", def: "'0'", plain: "'0'::numeric"},
		{col: "float8", def: "-1.5", plain: "'-1.5'::numeric"},
		{col: "text", def: "'none'", plain: "'none'::text"},
		{col: "text", def: "'it''s'", plain: "'it''s'::text"},
		{col: "varchar(10)", def: "'x'", plain: "'x'::character varying"},
		{col: "varchar(10)", def: "'n'::varchar(10)", plain: "'n'::character varying(10)"},
		{col: "bool", def: "true", plain: "true"},
		{col: "bool", def: "'yes'", plain: "true"},
		{col: "timestamptz", def: "now()", plain: "now()"},
		{col: "timestamptz", def: "current_timestamp", plain: "CURRENT_TIMESTAMP"},
		{col: "timestamp", def: "localtimestamp(3)", plain: "LOCALTIMESTAMP(3)"},
		{col: "timestamptz", def: "'2026-01-01'", plain: "'2026-01-01 00:00:00+00'::timestamp with time zone"},
		{col: "timestamptz", def: "now() + interval '1 day'", plain: "(now() + '1 day'::interval)", pretty: "now() + '1 day'::interval"},
		{col: "text", def: "upper('a')", plain: "upper('a'::text)"},
		{col: "int", def: "1 + 1", plain: "(1 + 1)", pretty: "1 + 1"},
		{col: "bigint", def: "1 + 1", plain: "(1 + 1)"},
		{col: "int", def: "1 + 2 * 3", plain: "(1 + (2 * 3))", pretty: "1 + 2 * 3"},
		{col: "int", def: "(1 + 2) * 3", plain: "((1 + 2) * 3)", pretty: "(1 + 2) * 3"},
		{col: "int", def: "10 - (2 - 1)", plain: "(10 - (2 - 1))", pretty: "10 - (2 - 1)"},
		{col: "int", def: "(10 - 2) - 1", plain: "((10 - 2) - 1)", pretty: "10 - 2 - 1"},
		{col: "bigint", def: "0::bigint", plain: "(0)::bigint", pretty: "0::bigint"},
		{col: "int", def: "NULL"},
		{col: "text", def: "NULL::text"},
		{col: "int", def: "a", code: pgerr.FeatureNotSupported},
		{col: "int", def: "(SELECT 1)", code: pgerr.FeatureNotSupported},
		{col: "int", def: "now()", code: pgerr.DatatypeMismatch},
		{col: "int", def: "'x'", code: pgerr.InvalidTextRepresentation},
		{col: "int", def: "sum(1)", code: pgerr.GroupingError},
	} {
		q := "CREATE TABLE t (c " + tc.col + " DEFAULT " + tc.def + ")"
		tree, err := pg.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cd := tree.Stmts[0].Stmt.GetCreateStmt().TableElts[0].GetColumnDef()
		typ, err := TypeOf(cd.TypeName, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		p := New(context.Background(), nil, &expr.Ctx{Loc: time.UTC, Now: time.Now()}, q, nil, nil)
		got, err := p.CheckDefault(cd.Constraints[0].GetConstraint().RawExpr, "c", typ)
		if tc.code != "" {
			var pe *pgerr.Error
			if !errors.As(err, &pe) || pe.Code != tc.code {
				t.Errorf("%s: error %v, want SQLSTATE %s", q, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		want := tc.pretty
		if want == "" {
			want = tc.plain
		}
		if pgcatalog.DefaultText(got, false) != tc.plain || pgcatalog.DefaultText(got, true) != want {
			t.Errorf("%s: plain %q pretty %q, want %q and %q", q, pgcatalog.DefaultText(got, false), pgcatalog.DefaultText(got, true), tc.plain, want)
		}
		if got == "" {
			continue
		}
		// The stored text binds again, to the column's type.
		e, err := p.BindDefault(got, typ)
		if err != nil {
			t.Errorf("%s: BindDefault(%q): %v", q, got, err)
		} else if e.Type().Kind != typ.Kind {
			t.Errorf("%s: BindDefault(%q) is %s, want %s", q, got, e.Type(), typ)
		}
	}
}
