package pgcatalog

import (
	"context"
	"slices"

	"github.com/loamdb/loam/types"
)

// Catalogs PostgreSQL 15's pg_dump reads that list nothing on Loam: no
// extension changed an object's initial privileges, there are no
// transforms, security labels or operator-class members, and Loam's
// PARTITIONED BY is Iceberg partitioning, not PostgreSQL's declarative
// partitioning (pg_dump sees every Loam table as an ordinary one).
func dumpCatalogs() []*Relation {
	return []*Relation{
		defTable("pg_catalog", "pg_init_privs", `objoid:oid classoid:oid objsubid:integer privtype:"char" initprivs:aclitem[]`, initPrivsRows),
		defTable("pg_catalog", "pg_transform", `oid:oid trftype:oid trflang:oid trffromsql:oid trftosql:oid`, noRows),
		defTable("pg_catalog", "pg_partitioned_table", `partrelid:oid partstrat:"char" partnatts:smallint partdefid:oid partattrs:int2vector partclass:oidvector partcollation:oidvector partexprs:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_seclabel", `objoid:oid classoid:oid objsubid:integer provider:text label:text`, noRows),
		defTable("pg_catalog", "pg_shseclabel", `objoid:oid classoid:oid provider:text label:text`, noRows),
		defTable("pg_catalog", "pg_seclabels", `objoid:oid classoid:oid objsubid:integer objtype:text objnamespace:oid objname:text provider:text label:text`, noRows),
		defTable("pg_catalog", "pg_amop", `oid:oid amopfamily:oid amoplefttype:oid amoprighttype:oid amopstrategy:smallint amoppurpose:"char" amopopr:oid amopmethod:oid amopsortfamily:oid`, noRows),
		defTable("pg_catalog", "pg_parameter_acl", `oid:oid parname:text paracl:aclitem[]`, noRows),
		defTable("pg_catalog", "pg_amproc", `oid:oid amprocfamily:oid amproclefttype:oid amprocrighttype:oid amprocnum:smallint amproc:oid`, noRows),
	}
}

// initPrivsRows are pg_init_privs': the privileges the system schemas and
// their catalogs have from the start (initdb's, privtype i), which are
// what they have now, so that pg_dump dumps no GRANT for them.
func initPrivsRows(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
	var out [][]types.Datum
	system := map[int64]bool{int64(oidPgCatalog): true, int64(ObjectOID("information_schema", "")): true}
	for _, src := range []struct{ cat, ns, acl string }{{"pg_namespace", "oid", "nspacl"}, {"pg_class", "relnamespace", "relacl"}} {
		r := s.reg.Lookup("pg_catalog", src.cat)
		rows, err := s.Rows(ctx, r)
		if err != nil {
			return nil, err
		}
		cols := r.Columns()
		col := func(name string) int {
			return slices.IndexFunc(cols, func(c Column) bool { return c.Name == name })
		}
		oidCol, nsCol, aclCol := col("oid"), col(src.ns), col(src.acl)
		for _, row := range rows {
			if !system[row[nsCol].I] || row[aclCol].Null {
				continue
			}
			out = append(out, rel.row(map[string]types.Datum{"objoid": dOID(uint32(row[oidCol].I)), "classoid": dOID(systemCatalogOIDs[src.cat]),
				"objsubid": {I: 0}, "privtype": {S: "i"}, "initprivs": row[aclCol]}))
		}
	}
	return out, nil
}
