package plan

import (
	"context"

	"github.com/loamdb/loam/exec/types"
)

// This file's init runs after pgcatalog.go's (files initialize in name
// order): it gives pg_description the one comment Loam has, the
// description of the extension pg_extension lists, as in PostgreSQL
// (psql's \dx joins them). Loam keeps no other comments.
func init() {
	vt := lookupVirtual("pg_catalog", "pg_description")
	if vt == nil {
		panic("pg_description is not defined yet")
	}
	vt.rows = func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
		return [][]types.Datum{vt.row(map[string]types.Datum{"objoid": dOID(oidPlpgsql), "classoid": dOID(systemCatalogOIDs["pg_extension"]),
			"objsubid": {I: 0}, "description": dText("PL/pgSQL procedural language")})}, nil
	}
}
