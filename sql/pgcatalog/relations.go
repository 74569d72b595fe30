package pgcatalog

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/loamdb/loam/storage/link"
)

// isVisible says whether the search path finds schema ns.
func (s *Session) isVisible(ns string) bool {
	if ns == "pg_catalog" {
		return true
	}
	for _, p := range s.src.SearchPath() {
		if p == ns {
			return true
		}
	}
	return false
}

// relation is a table pg_class lists: a Loam table or a virtual one.
type relation struct {
	ns, name string
	kind     string // r, p (a Loam table with PARTITIONED BY), v or S (a sequence)
	cols     []vcol
	notnull  []bool
	clauses  loamClauses
	keys     []tableKey // its PRIMARY KEY, then its UNIQUE constraints
	cons     []tableCon // its CHECK and FOREIGN KEY constraints (tablecons.go)
	defaults []string   // columns' DEFAULT texts ("" none); nil when none
	// comment is COMMENT ON TABLE, docs COMMENT ON COLUMN by attnum-1
	// ("" for none), from Iceberg (see describe.go).
	comment string
	docs    []string
	def     string    // a view's SELECT text
	seq     *Sequence // a sequence's definition (kind S)
	// identity is each column's GENERATED … AS IDENTITY kind: "a"
	// (ALWAYS), "d" (BY DEFAULT) or ""; nil when no column is one.
	identity []string
}

// hasDefault says whether column i (0-based) has a DEFAULT.
// An identity column's value comes from its sequence, but it has no
// DEFAULT in the catalogs, as in PostgreSQL.
func (r relation) hasDefault(i int) bool {
	return i < len(r.defaults) && r.defaults[i] != "" && r.identityOf(i) == ""
}

// identityOf is column i's identity kind: "a", "d" or "".
func (r relation) identityOf(i int) string {
	if i < len(r.identity) {
		return r.identity[i]
	}
	return ""
}

// tableKey is a PRIMARY KEY or UNIQUE constraint and the btree index
// PostgreSQL would build for it, of one name.
type tableKey struct {
	name    string
	cols    []int // attnums, in key order
	primary bool
	// nullsNotDistinct is UNIQUE NULLS NOT DISTINCT.
	nullsNotDistinct bool
}

// keyOID is the OID of a key's index (a relation of its name in the
// table's schema); keyConOID that of its constraint.
func (r relation) keyOID(k tableKey) uint32    { return ObjectOID(r.ns, k.name) }
func (r relation) keyConOID(k tableKey) uint32 { return ObjectOID(r.ns, "\x00constraint "+k.name) }

// truncName cuts an identifier so that it and a suffix of so many bytes
// fit in NAMEDATALEN-1 bytes, on a character boundary, as PostgreSQL does.
func truncName(s string, suffix int) string {
	for len(s)+suffix > 63 {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// rowTypeOIDs are the OIDs of a relation's row type and of its array type.
func (r relation) rowTypeOIDs() (row, array uint32) {
	return ObjectOID(r.ns, "\x00type "+r.name), ObjectOID(r.ns, "\x00type _"+r.name)
}

// int2Vector is an int2vector's (or smallint[]'s) text form.
func int2Vector(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = itoa(n)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// relations are the relations pg_class lists: Loam's tables, views and
// sequences, then the registry's.
func (s *Session) relations(ctx context.Context) ([]relation, error) {
	var out []relation
	nss, err := s.src.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	for _, ns := range nss {
		tis, err := s.src.Tables(ctx, ns)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			r := relation{ns: ns, name: ti.Name, kind: "r", clauses: clausesOf(ti.Iceberg), defaults: ti.Defaults, identity: ti.Identity}
			r.comment, r.docs = commentsOf(ti)
			if r.clauses.partKey != "" {
				r.kind = "p"
			}
			if ti.ViewSQL != "" {
				r.kind, r.def = "v", ti.ViewSQL
			}
			for i, c := range ti.Columns {
				r.cols = append(r.cols, vcol{c, ti.Types[i]})
				r.notnull = append(r.notnull, i < len(ti.Required) && ti.Required[i])
			}
			if ti.Iceberg != nil {
				// A PRIMARY KEY is the Iceberg schema's identifier fields.
				// UNIQUE constraints are the loam.unique property.
				sc := ti.Iceberg.Schema()
				for _, c := range link.Constraints(ti.Iceberg, ti.Name) {
					k := tableKey{name: c.Name, primary: c.Primary, nullsNotDistinct: c.NullsNotDistinct}
					for _, id := range c.Fields {
						if f, ok := sc.FindFieldByID(id); ok {
							if i := slices.Index(ti.Columns, f.Name); i >= 0 {
								k.cols = append(k.cols, i+1)
							}
						}
					}
					r.keys = append(r.keys, k)
				}
				r.cons = tableCons(ti.Iceberg, ti.Columns)
			}
			if s.forDump() {
				r = asDumped(r, ti.Iceberg)
			}
			out = append(out, r)
		}
	}
	for _, ns := range nss {
		seqs, err := s.src.Sequences(ctx, ns)
		if err != nil {
			return nil, err
		}
		for i := range seqs {
			out = append(out, relation{ns: ns, name: seqs[i].Name, kind: "S", seq: &seqs[i]})
		}
	}
	for _, rel := range s.reg.rels {
		kind := "r"
		if rel.view {
			kind = "v"
		}
		out = append(out, relation{ns: rel.Schema, name: rel.Name, kind: kind, cols: rel.cols})
	}
	if s.forDump() {
		qualifyViews(out)
	}
	return out, nil
}

// allSchemas are pg_catalog, information_schema and the metastore's.
func (s *Session) allSchemas(ctx context.Context) ([]string, error) {
	nss, err := s.src.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := append([]string{"pg_catalog", "information_schema"}, nss...)
	return out, nil
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// sequenceOwners maps "schema.table.column" to the sequence the column
// owns (serial and identity columns).
func sequenceOwners(rels []relation) map[string]*Sequence {
	m := map[string]*Sequence{}
	for _, r := range rels {
		if r.seq != nil && r.seq.OwnedBy != "" {
			m[r.ns+"."+r.seq.OwnedBy] = r.seq
		}
	}
	return m
}

// columnsByKey maps "schema.table.column" to the column's attnum and to
// its identity kind ("a", "d" or "").
func columnsByKey(rels []relation) (attnum map[string]int, identity map[string]string) {
	attnum, identity = map[string]int{}, map[string]string{}
	for _, r := range rels {
		for i, c := range r.cols {
			attnum[r.ns+"."+r.name+"."+c.name] = i + 1
			identity[r.ns+"."+r.name+"."+c.name] = r.identityOf(i)
		}
	}
	return attnum, identity
}
