package pgcatalog

import (
	"context"

	"github.com/loamdb/loam/types"
)

// viewRows lists Loam's views for pg_views and information_schema.views
// (the system's own views are not listed: information_schema's shows only
// views the user owns, and Loam's pg_catalog views are virtual tables).
// The definition is the SELECT as written, where PostgreSQL deparses it.
func viewRows(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
	rels, err := s.relations(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.privData(ctx)
	if err != nil {
		return nil, err
	}
	var out [][]types.Datum
	for _, r := range rels {
		if r.kind != "v" || r.def == "" {
			continue
		}
		// information_schema.views lists the views the current role may
		// use, and their text to those with the owner's privileges;
		// pg_views lists all.
		def := dText(viewDef(r.def))
		if rel.Schema == "information_schema" {
			if !s.relVisible(d, r, anyTablePrivilege...) {
				continue
			}
			if !d.rs.hasRole(d.current, s.relOwner(d, r), true) {
				def = types.NullOf(types.TText)
			}
		}
		out = append(out, rel.row(map[string]types.Datum{
			"schemaname": dName(r.ns), "viewname": dName(r.name), "viewowner": dName(s.relOwner(d, r)), "definition": dText(viewDef(r.def)),
			"table_catalog": dName(s.src.Database()), "table_schema": dName(r.ns), "table_name": dName(r.name), "view_definition": def,
			"check_option": dText("NONE"), "is_updatable": dText("NO"), "is_insertable_into": dText("NO"),
			"is_trigger_updatable": dText("NO"), "is_trigger_deletable": dText("NO"), "is_trigger_insertable_into": dText("NO"),
		}))
	}
	return out, err
}

// viewDef is a view's definition as pg_get_viewdef shows it: the stored
// text, ended by a semicolon as PostgreSQL's deparsed form is (which also
// qualifies columns and lays the query out on its own lines).
func viewDef(text string) string { return text + ";" }

// viewDefs maps a view's OID to its pg_get_viewdef text; NULL for other
// OIDs (PostgreSQL errors for a table; clients call it on views only).
func (s *Session) viewDefs(ctx context.Context) (func(oid int64) types.Datum, error) {
	rels, err := s.relations(ctx)
	if err != nil {
		return nil, err
	}
	m := map[int64]string{}
	for _, r := range rels {
		if r.kind == "v" && r.def != "" {
			m[int64(ObjectOID(r.ns, r.name))] = viewDef(r.def)
		}
	}
	return func(oid int64) types.Datum {
		if d, ok := m[oid]; ok {
			return dText(d)
		}
		return types.NullOf(types.TText)
	}, nil
}
