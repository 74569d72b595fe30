// Package pgcatalog emulates PostgreSQL's system catalogs over Loam's own:
// the relations of pg_catalog and information_schema, generated at query
// time from a Source, and the functions clients call on them (psql's \d,
// drivers' type loading, regclass and regtype, pg_get_expr, format_type,
// has_*_privilege, …). It produces rows and function bodies; the planner
// binds and plans them.
package pgcatalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/loamdb/loam/types"
)

// Registry is the set of emulated relations, made once by New in a stated
// order (pg_class lists them in it) and read-only after.
type Registry struct {
	rels   []*Relation
	byName map[relKey]*Relation
	// funcs are set-returning catalog functions a FROM item reads as a
	// relation: pg_get_keywords.
	funcs map[string]*Relation
}

type relKey struct{ schema, name string }

// New makes the registry: pg_catalog's relations, information_schema's,
// then the catalogs Loam lists without rows. A relation named twice is a
// programming error and panics here, at start-up, not on a query.
func New() *Registry {
	r := &Registry{byName: map[relKey]*Relation{}, funcs: map[string]*Relation{}}
	for _, group := range [][]*Relation{pgCatalogTables(), roleTables(), infoSchemaTables(), privilegeRelations(), emptyCatalogs()} {
		for _, rel := range group {
			k := relKey{rel.Schema, rel.Name}
			if r.byName[k] != nil {
				panic(fmt.Sprintf("pgcatalog: %s.%s registered twice", rel.Schema, rel.Name))
			}
			r.byName[k] = rel
			r.rels = append(r.rels, rel)
		}
	}
	r.funcs["pg_get_keywords"] = keywordsTable()
	return r
}

// Lookup finds a pg_catalog or information_schema relation by its
// (already case-folded) schema and name. An unqualified name (schema "")
// finds pg_catalog's only, as pg_catalog is implicitly first on the
// search path; nil when there is none.
func (r *Registry) Lookup(schema, name string) *Relation {
	if schema == "" {
		schema = "pg_catalog"
	}
	return r.byName[relKey{schema, name}]
}

// FuncTable is a set-returning catalog function's result as a relation
// (pg_get_keywords); nil for other names.
func (r *Registry) FuncTable(name string) *Relation { return r.funcs[name] }

// Relation is one emulated table or view, generated at query time.
type Relation struct {
	Schema, Name string
	view         bool // information_schema's are views in PostgreSQL
	// superuserOnly relations (pg_authid, loam_audit) refuse other
	// roles, with PostgreSQL's 42501.
	superuserOnly bool
	cols          []vcol
	rows          func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error)
}

// Column is a relation's column.
type Column struct {
	Name string
	Type types.T
}

// Columns are the relation's columns, without system columns.
func (rel *Relation) Columns() []Column {
	out := make([]Column, len(rel.cols))
	for i, c := range rel.cols {
		out[i] = Column{c.name, c.t}
	}
	return out
}

// TableOID is the OID of a system catalog, which its system column
// tableoid holds (psql joins pg_description on it); ok is false for
// relations that are not system catalogs.
func (rel *Relation) TableOID() (oid uint32, ok bool) {
	oid, ok = systemCatalogOIDs[rel.Name]
	return oid, ok && rel.Schema == "pg_catalog"
}

type vcol struct {
	name string
	t    types.T
}

func defTable(schema, name, spec string, rows func(context.Context, *Session, *Relation) ([][]types.Datum, error)) *Relation {
	rel := &Relation{Schema: schema, Name: name, view: schema == "information_schema", rows: rows}
	for _, f := range strings.Fields(spec) {
		n, t, _ := strings.Cut(f, ":")
		rel.cols = append(rel.cols, vcol{n, colType(t)})
	}
	return rel
}

// row starts a row of rel with PostgreSQL-like defaults: pg_catalog's
// scalar columns are NOT NULL (0, false, ”), arrays and texts NULL;
// information_schema's are NULL.
func (rel *Relation) row(set map[string]types.Datum) []types.Datum {
	out := make([]types.Datum, len(rel.cols))
	for i, c := range rel.cols {
		if d, ok := set[c.name]; ok {
			if !d.Null {
				d.T = c.t
			}
			out[i] = d
			continue
		}
		out[i] = types.NullOf(c.t)
		if rel.Schema != "pg_catalog" {
			continue
		}
		switch c.t.Kind {
		case types.OID, types.Int2, types.Int4, types.Bool, types.Float4:
			out[i] = types.Datum{T: c.t}
		case types.Name, types.QChar:
			out[i] = types.Datum{T: c.t, S: ""}
		}
	}
	return out
}

func noRows(context.Context, *Session, *Relation) ([][]types.Datum, error) { return nil, nil }

// colType maps the type names of PostgreSQL's catalog definitions to Loam
// types. Types Loam lacks (regproc, xid, pg_node_tree, anyarray) are text
// for now, int2vector and oidvector smallint[] and oid[]; information_schema's
// domains are their base types, as clients mostly see them.
func colType(s string) types.T {
	switch s {
	case "oid":
		return types.TOID
	case "name", "sql_identifier":
		return types.TName
	case `"char"`:
		return types.TQChar
	case "smallint":
		return types.TInt2
	case "integer", "cardinal_number":
		return types.TInt4
	case "boolean":
		return types.TBool
	case "real":
		return types.TFloat4
	case "character_data", "yes_or_no":
		return types.Of(types.Varchar)
	case "timestamptz":
		return types.TTimestampTZ
	case "bigint":
		return types.TInt8
	case "bytea":
		return types.TBytea
	case "text[]":
		return types.ArrayOf(types.Text)
	case "aclitem[]":
		return types.ArrayOf(types.ACLItem)
	case "smallint[]", "int2vector":
		return types.ArrayOf(types.Int2)
	case "oid[]", "oidvector":
		return types.ArrayOf(types.OID)
	case `"char"[]`:
		return types.ArrayOf(types.QChar)
	case "name[]":
		return types.ArrayOf(types.Name)
	}
	return types.TText
}

func dName(s string) types.Datum { return types.Datum{T: types.TName, S: s} }
func dText(s string) types.Datum { return types.Datum{T: types.TText, S: s} }
func dOID(v uint32) types.Datum  { return types.Datum{T: types.TOID, I: int64(v)} }
func dInt(v int64) types.Datum   { return types.Datum{T: types.TInt4, I: v} }
func dBool(v bool) types.Datum   { return types.BoolDatum(v) }

func itoa(n int) string { return strconv.Itoa(n) }
