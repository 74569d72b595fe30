package pgcatalog

// Catalogs PostgreSQL 15's pg_dump reads that list nothing on Loam: no
// extension changed an object's initial privileges, there are no
// transforms, security labels or operator-class members, and Loam's
// PARTITIONED BY is Iceberg partitioning, not PostgreSQL's declarative
// partitioning (pg_dump sees every Loam table as an ordinary one).
func dumpCatalogs() []*Relation {
	return []*Relation{
		defTable("pg_catalog", "pg_init_privs", `objoid:oid classoid:oid objsubid:integer privtype:"char" initprivs:aclitem[]`, noRows),
		defTable("pg_catalog", "pg_transform", `oid:oid trftype:oid trflang:oid trffromsql:oid trftosql:oid`, noRows),
		defTable("pg_catalog", "pg_partitioned_table", `partrelid:oid partstrat:"char" partnatts:smallint partdefid:oid partattrs:int2vector partclass:oidvector partcollation:oidvector partexprs:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_seclabel", `objoid:oid classoid:oid objsubid:integer provider:text label:text`, noRows),
		defTable("pg_catalog", "pg_shseclabel", `objoid:oid classoid:oid provider:text label:text`, noRows),
		defTable("pg_catalog", "pg_seclabels", `objoid:oid classoid:oid objsubid:integer objtype:text objnamespace:oid objname:text provider:text label:text`, noRows),
		defTable("pg_catalog", "pg_amop", `oid:oid amopfamily:oid amoplefttype:oid amoprighttype:oid amopstrategy:smallint amoppurpose:"char" amopopr:oid amopmethod:oid amopsortfamily:oid`, noRows),
		defTable("pg_catalog", "pg_amproc", `oid:oid amprocfamily:oid amproclefttype:oid amprocrighttype:oid amprocnum:smallint amproc:oid`, noRows),
	}
}
