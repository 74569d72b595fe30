package pgcatalog

import "hash/fnv"

// Fixed OIDs: PostgreSQL's own for its schemas, role and database, so
// clients that hard-code them (2200 for public, 10 for the bootstrap
// superuser) agree.
const (
	oidPgCatalog         = 11
	oidPublic            = 2200
	oidInformationSchema = 13000
	oidBootstrapRole     = 10
	// oidDatabaseOwner is pg_database_owner, which owns public in
	// PostgreSQL 15.
	oidDatabaseOwner = 6171
	oidDatabase      = 16384
	oidHeapAM        = 2
	oidBtreeAM       = 403
	oidPlpgsql       = 13001
	// userOIDBase starts the range Loam's own objects hash into, above
	// PostgreSQL's fixed OIDs (FirstNormalObjectId is 16384).
	userOIDBase = 1 << 20
)

// ObjectOID is the stable OID of a schema (name "") or relation: a hash of
// its names into [2^20, 2^31). Hashing rather than storing keeps OIDs equal
// across servers sharing a metastore and across restarts with no migration;
// a collision needs two of ~2 billion values to meet, and only confuses
// catalog joins, never data.
func ObjectOID(ns, name string) uint32 {
	switch {
	case name == "" && ns == "pg_catalog":
		return oidPgCatalog
	case name == "" && ns == "public":
		return oidPublic
	case name == "" && ns == "information_schema":
		return oidInformationSchema
	case ns == "pg_catalog" && systemCatalogOIDs[name] != 0:
		return systemCatalogOIDs[name]
	}
	h := fnv.New32a()
	h.Write([]byte(ns))
	h.Write([]byte{0})
	h.Write([]byte(name))
	return userOIDBase + h.Sum32()%(1<<31-userOIDBase)
}

// systemCatalogOIDs are the fixed OIDs of PostgreSQL's system catalogs
// (pg_class.h and the others), which clients pass as obj_description's
// catalog and compare with 'pg_class'::regclass. Read-only.
var systemCatalogOIDs = map[string]uint32{
	"pg_tablespace": 1213, "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259,
	"pg_authid": 1260, "pg_database": 1262, "pg_sequence": 2224, "pg_am": 2601, "pg_depend": 2608, "pg_attrdef": 2604,
	"pg_constraint": 2606, "pg_description": 2609, "pg_index": 2610, "pg_inherits": 2611,
	"pg_namespace": 2615, "pg_rewrite": 2618, "pg_trigger": 2620, "pg_extension": 3079, "pg_policy": 3256,
	"pg_statistic_ext": 3381, "pg_collation": 3456, "pg_enum": 3501, "pg_range": 3541,
	"pg_publication": 6104, "pg_publication_rel": 6106, "pg_publication_namespace": 6237,
	"pg_language": 2612, "pg_operator": 2617, "pg_cast": 2605, "pg_event_trigger": 3466,
	"pg_conversion": 2607, "pg_foreign_server": 1417, "pg_foreign_data_wrapper": 2328, "pg_ts_config": 3602, "pg_ts_parser": 3601,
	"pg_ts_dict": 3600, "pg_ts_template": 3764, "pg_default_acl": 826, "pg_db_role_setting": 2964, "pg_subscription": 6100,
	"pg_opclass": 2616, "pg_opfamily": 2753, "pg_largeobject_metadata": 2995, "pg_foreign_table": 3118,
	"pg_init_privs": 3394, "pg_transform": 3576, "pg_partitioned_table": 3350, "pg_seclabel": 3596, "pg_shseclabel": 3592,
	"pg_amop": 2602, "pg_amproc": 2603, "pg_parameter_acl": 6243,
}
