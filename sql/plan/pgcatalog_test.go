package plan

import "testing"

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
}

func TestLookupVirtual(t *testing.T) {
	for _, c := range []struct {
		schema, name string
		found        bool
	}{
		{"pg_catalog", "pg_class", true},
		{"", "pg_class", true}, // pg_catalog is implicitly first on the search path
		{"information_schema", "columns", true},
		{"", "columns", false}, // information_schema is not on it
		{"public", "pg_class", false},
	} {
		if got := lookupVirtual(c.schema, c.name) != nil; got != c.found {
			t.Errorf("lookupVirtual(%q, %q) = %v", c.schema, c.name, got)
		}
	}
}
