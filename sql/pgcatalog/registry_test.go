package pgcatalog

import (
	"context"
	"testing"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/types"
)

func TestObjectOID(t *testing.T) {
	// PostgreSQL's own OIDs for the schemas clients hard-code.
	if ObjectOID("public", "") != 2200 || ObjectOID("pg_catalog", "") != 11 {
		t.Fatal("public and pg_catalog must keep PostgreSQL's OIDs")
	}
	// Stable: the same names give the same OID in every server and run
	// (this value is what a user's saved queries may hold).
	if got := ObjectOID("public", "llm_calls"); got != ObjectOID("public", "llm_calls") || got < userOIDBase || got >= 1<<31 {
		t.Fatalf("ObjectOID(public, llm_calls) = %d", got)
	}
	if ObjectOID("a", "bc") == ObjectOID("ab", "c") {
		t.Fatal("schema and table names must not run together")
	}
	// System catalogs keep their fixed OIDs, the ones listed late too.
	if ObjectOID("pg_catalog", "pg_class") != 1259 || ObjectOID("pg_catalog", "pg_language") != 2612 {
		t.Fatal("system catalogs must keep PostgreSQL's OIDs")
	}
}

func TestLookup(t *testing.T) {
	r := New()
	for _, c := range []struct {
		schema, name string
		found        bool
	}{
		{"pg_catalog", "pg_class", true},
		{"", "pg_class", true}, // pg_catalog is implicitly first on the search path
		{"information_schema", "columns", true},
		{"", "columns", false}, // information_schema is not on it
		{"public", "pg_class", false},
		{"pg_catalog", "PG_CLASS", false}, // names arrive case-folded: "PG_CLASS" is another relation
		{"PG_CATALOG", "pg_class", false},
		{"pg_catalog", "pg_operator", true},      // the catalogs listed without rows
		{"pg_catalog", "pg_get_keywords", false}, // a function, not a relation
	} {
		got := r.Lookup(c.schema, c.name)
		if (got != nil) != c.found {
			t.Errorf("Lookup(%q, %q) = %v", c.schema, c.name, got)
			continue
		}
		if got != nil && (got.Name != c.name || c.schema != "" && got.Schema != c.schema) {
			t.Errorf("Lookup(%q, %q) found %s.%s", c.schema, c.name, got.Schema, got.Name)
		}
	}
	if r.FuncTable("pg_get_keywords") == nil {
		t.Error("pg_get_keywords is not a function table")
	}
}

// TestRegistry checks what New promises: every relation once, in the
// stated order (pg_catalog's, information_schema's, then the catalogs
// without rows), each with columns, a rows function and its rows filled
// in by its definition (pg_description's and pg_language's rows were once
// set by a later init, and were empty when it ran first).
func TestRegistry(t *testing.T) {
	r := New()
	rels := r.rels
	if len(rels) < 50 {
		t.Fatalf("registry holds %d relations, want the ~60 of pg_catalog and information_schema", len(rels))
	}
	seen := map[string]bool{}
	schemaRank := map[string]int{"pg_catalog": 0, "information_schema": 1}
	group := 0
	for i, rel := range rels {
		key := rel.Schema + "." + rel.Name
		if seen[key] {
			t.Errorf("%s registered twice", key)
		}
		seen[key] = true
		if len(rel.Columns()) == 0 || rel.rows == nil {
			t.Errorf("%s has no columns or no rows function", key)
		}
		if r.Lookup(rel.Schema, rel.Name) != rel {
			t.Errorf("Lookup does not find %s", key)
		}
		cols := map[string]bool{}
		for _, c := range rel.Columns() {
			if cols[c.Name] {
				t.Errorf("%s has column %s twice", key, c.Name)
			}
			cols[c.Name] = true
		}
		// Stated order: pg_catalog (group 0), information_schema (1), then
		// pg_catalog's empty catalogs (2), starting at pg_operator.
		switch {
		case rel.Name == "pg_operator":
			group = 2
		case group < 2 && schemaRank[rel.Schema] < group:
			t.Errorf("%s (#%d) after information_schema's relations", key, i)
		case group < 2:
			group = schemaRank[rel.Schema]
		case rel.Schema != "pg_catalog":
			t.Errorf("%s (#%d) among the empty catalogs", key, i)
		}
	}
	if group != 2 {
		t.Error("the empty catalogs are not registered last")
	}
	if rels[0].Schema+"."+rels[0].Name != "pg_catalog.pg_namespace" {
		t.Errorf("first relation is %s.%s, want pg_catalog.pg_namespace", rels[0].Schema, rels[0].Name)
	}

	s := r.Session(fakeSource{})
	ctx := context.Background()
	for _, c := range []struct {
		name string
		min  int
	}{{"pg_description", 4 + 7 + 10}, {"pg_language", 4}, {"pg_class", len(rels)}, {"pg_namespace", 3}} {
		rows, err := s.Rows(ctx, r.Lookup("pg_catalog", c.name))
		if err != nil || len(rows) < c.min {
			t.Errorf("%s: %d rows (err %v), want at least %d", c.name, len(rows), err, c.min)
		}
		// A system catalog's rows end with the system column tableoid.
		oid, _ := r.Lookup("pg_catalog", c.name).TableOID()
		if len(rows) > 0 && (len(rows[0]) != len(r.Lookup("pg_catalog", c.name).Columns())+1 || rows[0][len(rows[0])-1].I != int64(oid)) {
			t.Errorf("%s: rows do not end with tableoid %d", c.name, oid)
		}
	}
}

// TestSessionWithoutSource: a catalog that is no session's lists nothing
// and binds no functions, but regtype still knows the built-in types.
func TestSessionWithoutSource(t *testing.T) {
	s := New().Session(nil)
	ctx := context.Background()
	if rows, err := s.Rows(ctx, s.Registry().Lookup("", "pg_class")); err != nil || rows != nil {
		t.Errorf("pg_class without a source: %v, %v", rows, err)
	}
	if f, err := s.Func(ctx, "format_type", []types.T{types.TOID, types.TInt4}); f != nil || err != nil {
		t.Errorf("format_type without a source: %v, %v", f, err)
	}
	f, err := s.RegCast(ctx, types.TText, types.Of(types.Regtype))
	if err != nil || f == nil {
		t.Fatalf("RegCast(text, regtype): %v", err)
	}
	if d, err := f(nil, []types.Datum{types.TextDatum("int4")}); err != nil || d.S != "integer" {
		t.Errorf("'int4'::regtype = %q, %v", d.S, err)
	}
}

// fakeSource is a session with one schema and nothing in it.
type fakeSource struct{}

func (fakeSource) User() string                { return "loam" }
func (fakeSource) Database() string            { return "loam" }
func (fakeSource) SearchPath() []string        { return []string{"public"} }
func (fakeSource) Settings() map[string]string { return map[string]string{"server_version": "15.0"} }
func (fakeSource) Namespaces(context.Context) ([]string, error) {
	return []string{"public"}, nil
}
func (fakeSource) Tables(context.Context, string) ([]Table, error)       { return nil, nil }
func (fakeSource) Sequences(context.Context, string) ([]Sequence, error) { return nil, nil }
func (fakeSource) NamespaceComment(context.Context, string) (string, bool, error) {
	return "", false, nil
}
func (fakeSource) BackendPID() int32   { return 1 }
func (fakeSource) CurrentRole() string { return "loam" }
func (fakeSource) SessionUser() string { return "loam" }
func (fakeSource) Roles(context.Context) ([]meta.Role, error) {
	return []meta.Role{{Name: "loam", Superuser: true, Login: true, Inherit: true}}, nil
}
func (fakeSource) Memberships(context.Context) ([]meta.Membership, error) { return nil, nil }
func (fakeSource) Grants(context.Context) ([]meta.Grant, error)           { return nil, nil }
func (fakeSource) Owners(context.Context) (map[meta.Object]string, error) { return nil, nil }
func (fakeSource) DefaultPrivileges(context.Context) ([]meta.DefaultPrivilege, error) {
	return nil, nil
}
func (fakeSource) Audit(context.Context) ([]meta.AuditEvent, error) { return nil, nil }
func (fakeSource) Allowed(context.Context, string, string, meta.Object, bool) (bool, error) {
	return true, nil
}

func TestOptionsTable(t *testing.T) {
	for _, c := range []struct {
		in   types.Datum
		want [][2]string // "" value stands for NULL
	}{
		{types.Datum{T: types.ArrayOf(types.Text), S: `{a=1,"b=x y",c}`}, [][2]string{{"a", "1"}, {"b", "x y"}, {"c", ""}}},
		{types.NullOf(types.ArrayOf(types.Text)), nil},
	} {
		rows, err := OptionsTable{}.Rows([]types.Datum{c.in}, nil)
		if err != nil || len(rows) != len(c.want) {
			t.Fatalf("Rows(%q) = %v, %v", c.in.S, rows, err)
		}
		for i, r := range rows {
			if r[0].S != c.want[i][0] || r[1].Null != (c.want[i][1] == "") || r[1].S != c.want[i][1] {
				t.Errorf("Rows(%q)[%d] = %v, want %v", c.in.S, i, r, c.want[i])
			}
		}
	}
}
