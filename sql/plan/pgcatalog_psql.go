package plan

import (
	"context"

	"github.com/loamdb/loam/exec/types"
)

// This file's init runs after pgcatalog.go's (files initialize in name
// order): it gives pg_description the description of the extension
// pg_extension lists, as in PostgreSQL (psql's \dx joins them), and the
// comments of COMMENT ON: a table's is its Iceberg property "comment", a
// column's its Iceberg field's doc, a schema's its namespace property.
func init() {
	vt := lookupVirtual("pg_catalog", "pg_description")
	if vt == nil {
		panic("pg_description is not defined yet")
	}
	vt.rows = func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
		descs, err := descriptions(ctx, ci)
		if err != nil {
			return nil, err
		}
		out := [][]types.Datum{vt.row(map[string]types.Datum{"objoid": dOID(oidPlpgsql), "classoid": dOID(systemCatalogOIDs["pg_extension"]),
			"objsubid": {I: 0}, "description": dText("PL/pgSQL procedural language")})}
		for _, d := range descs {
			out = append(out, vt.row(map[string]types.Datum{"objoid": dOID(d.objoid), "classoid": dOID(d.classoid),
				"objsubid": {I: int64(d.objsubid)}, "description": dText(d.text)}))
		}
		return out, nil
	}
}

// NamespaceCommenter is what a CatalogInfo implements to report schema
// comments (COMMENT ON SCHEMA); ok is false for a schema with none.
type NamespaceCommenter interface {
	NamespaceComment(ctx context.Context, ns string) (comment string, ok bool, err error)
}

// commentsOf reads a table's comments from its Iceberg metadata.
func commentsOf(ti *TableInfo) (comment string, docs []string) {
	if ti.Table == nil {
		return "", nil
	}
	comment = ti.Table.Properties()["comment"]
	sc := ti.Table.Schema()
	for _, c := range ti.Columns {
		doc := ""
		if f, ok := sc.FindFieldByName(c); ok {
			doc = f.Doc
		}
		docs = append(docs, doc)
	}
	return comment, docs
}

type description struct {
	objoid, classoid uint32
	objsubid         int
	text             string
}

// descriptions are the comments of Loam's schemas, tables and columns.
func descriptions(ctx context.Context, ci CatalogInfo) ([]description, error) {
	var out []description
	if nc, ok := ci.(NamespaceCommenter); ok {
		nss, err := allSchemas(ctx, ci)
		if err != nil {
			return nil, err
		}
		for _, ns := range nss {
			c, ok, err := nc.NamespaceComment(ctx, ns)
			if err != nil {
				return nil, err
			}
			if ok && c != "" {
				out = append(out, description{ObjectOID(ns, ""), systemCatalogOIDs["pg_namespace"], 0, c})
			}
		}
	}
	rels, err := relations(ctx, ci)
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		oid := ObjectOID(r.ns, r.name)
		if r.comment != "" {
			out = append(out, description{oid, systemCatalogOIDs["pg_class"], 0, r.comment})
		}
		for i, d := range r.docs {
			if d != "" {
				out = append(out, description{oid, systemCatalogOIDs["pg_class"], i + 1, d})
			}
		}
	}
	return out, nil
}
