package pgcatalog

import (
	"context"

	"github.com/loamdb/loam/types"
)

// descriptionRows are pg_description's: the description of the extension
// pg_extension lists, as in PostgreSQL (psql's \dx joins them), and the
// comments of COMMENT ON: a table's is its Iceberg property "comment", a
// column's its Iceberg field's doc, a schema's its namespace property.
func descriptionRows(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
	descs, err := s.descriptions(ctx)
	if err != nil {
		return nil, err
	}
	out := [][]types.Datum{rel.row(map[string]types.Datum{"objoid": dOID(oidPlpgsql), "classoid": dOID(systemCatalogOIDs["pg_extension"]),
		"objsubid": {I: 0}, "description": dText("PL/pgSQL procedural language")})}
	for _, d := range descs {
		out = append(out, rel.row(map[string]types.Datum{"objoid": dOID(d.objoid), "classoid": dOID(d.classoid),
			"objsubid": {I: int64(d.objsubid)}, "description": dText(d.text)}))
	}
	return out, nil
}

// commentsOf reads a table's comments from its Iceberg metadata.
func commentsOf(ti Table) (comment string, docs []string) {
	if ti.Iceberg == nil {
		return "", nil
	}
	comment = ti.Iceberg.Properties()["comment"]
	sc := ti.Iceberg.Schema()
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

// descriptions are the comments of Loam's schemas, tables and columns,
// after PostgreSQL's own of the built-in languages, access methods and
// types.
func (s *Session) descriptions(ctx context.Context) ([]description, error) {
	var out []description
	for _, l := range pgLanguages {
		out = append(out, description{l.oid, systemCatalogOIDs["pg_language"], 0, l.desc})
	}
	for _, am := range []struct {
		oid  uint32
		desc string
	}{{oidHeapAM, "heap table access method"}, {oidBtreeAM, "b-tree index access method"}, {405, "hash index access method"},
		{783, "GiST index access method"}, {2742, "GIN index access method"}, {4000, "SP-GiST index access method"},
		{3580, "block range index (BRIN) access method"}} {
		out = append(out, description{am.oid, systemCatalogOIDs["pg_am"], 0, am.desc})
	}
	for _, pt := range pgTypes {
		if d := pgTypeDescriptions[pt.name]; d != "" {
			out = append(out, description{pt.t.OID(), systemCatalogOIDs["pg_type"], 0, d})
		}
	}
	nss, err := s.allSchemas(ctx)
	if err != nil {
		return nil, err
	}
	for _, ns := range nss {
		c, ok, err := s.src.NamespaceComment(ctx, ns)
		if err != nil {
			return nil, err
		}
		if ok && c != "" {
			out = append(out, description{ObjectOID(ns, ""), systemCatalogOIDs["pg_namespace"], 0, c})
		}
	}
	rels, err := s.relations(ctx)
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

// Catalogs of objects Loam has none of (operators and casts beyond its
// built-in ones are not listed yet, event triggers, conversions, foreign
// servers and wrappers, text search, subscriptions,
// per-database settings, operator classes, large objects, foreign tables
// and user mappings), with PostgreSQL 15's columns, so that psql's \do,
// \dC, \dy, \dc, \des, \dew, \dF*, \dRs, \drds, \dd, \dl, \det and \deu
// list nothing rather than fail.
func emptyCatalogs() []*Relation {
	return []*Relation{
		defTable("pg_catalog", "pg_operator", `oid:oid oprname:name oprnamespace:oid oprowner:oid oprkind:"char" oprcanmerge:boolean oprcanhash:boolean oprleft:oid oprright:oid oprresult:oid oprcom:oid oprnegate:oid oprcode:regproc oprrest:regproc oprjoin:regproc`, noRows),
		defTable("pg_catalog", "pg_cast", `oid:oid castsource:oid casttarget:oid castfunc:oid castcontext:"char" castmethod:"char"`, noRows),
		defTable("pg_catalog", "pg_event_trigger", `oid:oid evtname:name evtevent:name evtowner:oid evtfoid:oid evtenabled:"char" evttags:text[]`, noRows),
		defTable("pg_catalog", "pg_conversion", `oid:oid conname:name connamespace:oid conowner:oid conforencoding:integer contoencoding:integer conproc:regproc condefault:boolean`, noRows),
		defTable("pg_catalog", "pg_foreign_server", `oid:oid srvname:name srvowner:oid srvfdw:oid srvtype:text srvversion:text srvacl:aclitem[] srvoptions:text[]`, noRows),
		defTable("pg_catalog", "pg_foreign_data_wrapper", `oid:oid fdwname:name fdwowner:oid fdwhandler:oid fdwvalidator:oid fdwacl:aclitem[] fdwoptions:text[]`, noRows),
		defTable("pg_catalog", "pg_ts_config", `oid:oid cfgname:name cfgnamespace:oid cfgowner:oid cfgparser:oid`, noRows),
		defTable("pg_catalog", "pg_ts_dict", `oid:oid dictname:name dictnamespace:oid dictowner:oid dicttemplate:oid dictinitoption:text`, noRows),
		defTable("pg_catalog", "pg_ts_template", `oid:oid tmplname:name tmplnamespace:oid tmplinit:regproc tmpllexize:regproc`, noRows),
		defTable("pg_catalog", "pg_default_acl", `oid:oid defaclrole:oid defaclnamespace:oid defaclobjtype:"char" defaclacl:aclitem[]`, defaultACLRows),
		defTable("pg_catalog", "pg_db_role_setting", `setdatabase:oid setrole:oid setconfig:text[]`, noRows),
		defTable("pg_catalog", "pg_subscription", `oid:oid subdbid:oid subskiplsn:pg_lsn subname:name subowner:oid subenabled:boolean subbinary:boolean substream:boolean subtwophasestate:"char" subdisableonerr:boolean subconninfo:text subslotname:name subsynccommit:text subpublications:text[]`, noRows),
		defTable("pg_catalog", "pg_opclass", `oid:oid opcmethod:oid opcname:name opcnamespace:oid opcowner:oid opcfamily:oid opcintype:oid opcdefault:boolean opckeytype:oid`, noRows),
		defTable("pg_catalog", "pg_opfamily", `oid:oid opfmethod:oid opfname:name opfnamespace:oid opfowner:oid`, noRows),
		defTable("pg_catalog", "pg_largeobject_metadata", `oid:oid lomowner:oid lomacl:aclitem[]`, noRows),
		defTable("pg_catalog", "pg_foreign_table", `ftrelid:oid ftserver:oid ftoptions:text[]`, noRows),
		defTable("pg_catalog", "pg_user_mappings", `umid:oid srvid:oid srvname:name umuser:oid usename:name umoptions:text[]`, noRows),
		defTable("pg_catalog", "pg_ts_parser", `oid:oid prsname:name prsnamespace:oid prsstart:regproc prstoken:regproc prsend:regproc prsheadline:regproc prslextype:regproc`, noRows),
	}
}

// languageRows are pg_language's: PostgreSQL 15's languages, as initdb
// makes them: three built in and plpgsql, whose handler functions pg_proc
// does not list (only \dL+ shows them).
func languageRows(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
	var out [][]types.Datum
	for _, l := range pgLanguages {
		out = append(out, rel.row(map[string]types.Datum{"oid": dOID(l.oid), "lanname": dName(l.name), "lanowner": dOID(oidBootstrapRole),
			"lanispl": dBool(l.pl), "lanpltrusted": dBool(l.trusted), "lanplcallfoid": dOID(l.call), "laninline": dOID(l.inline),
			"lanvalidator": dOID(l.validator)}))
	}
	return out, nil
}

// pgLanguages are pg_language's rows with PostgreSQL 15's OIDs and
// descriptions.
var pgLanguages = []struct {
	oid                     uint32
	name                    string
	pl, trusted             bool
	call, inline, validator uint32
	desc                    string
}{
	{12, "internal", false, false, 0, 0, 2246, "built-in functions"},
	{13, "c", false, false, 0, 0, 2247, "dynamically-loaded C functions"},
	{14, "sql", false, true, 0, 0, 2248, "SQL-language functions"},
	{oidPlpgsqlLanguage, "plpgsql", true, true, 13560, 13561, 13562, "PL/pgSQL procedural language"},
}

// oidPlpgsqlLanguage is plpgsql's pg_language OID in a fresh PostgreSQL 15.
const oidPlpgsqlLanguage = 13563

// pgTypeDescriptions are PostgreSQL 15's descriptions of the types Loam
// has (\dT shows them); array types have none.
var pgTypeDescriptions = map[string]string{
	"bool": "boolean, 'true'/'false'", "bytea": "variable-length string, binary values escaped", "char": "single character",
	"name": "63-byte type for storing system identifiers", "int8": "~18 digit integer, 8-byte storage",
	"int2": "-32 thousand to 32 thousand, 2-byte storage", "int4": "-2 billion to 2 billion integer, 4-byte storage",
	"text": "variable-length string, no limit specified", "oid": "object identifier(oid), maximum 4 billion",
	"json": "JSON stored as text", "float4": "single-precision floating point number, 4-byte storage",
	"float8":  "double-precision floating point number, 8-byte storage",
	"bpchar":  "char(length), blank-padded string, fixed storage length",
	"varchar": "varchar(length), non-blank-padded string, variable storage length", "date": "date", "time": "time of day",
	"timestamp": "date and time", "timestamptz": "date and time with time zone", "interval": "@ <number> <units>, time interval",
	"numeric": "numeric(precision, decimal), arbitrary precision number", "uuid": "UUID datatype", "jsonb": "Binary JSON", "aclitem": "access control list",
}

// handlerFuncs are the languages' handler functions (name, argument
// types) by their OIDs in PostgreSQL 15.
var handlerFuncs = map[uint32][2]string{
	2246: {"fmgr_internal_validator", "oid"}, 2247: {"fmgr_c_validator", "oid"}, 2248: {"fmgr_sql_validator", "oid"},
	13560: {"plpgsql_call_handler", ""}, 13561: {"plpgsql_inline_handler", "internal"}, 13562: {"plpgsql_validator", "oid"},
}

// Regproc is oid::regproc and oid::regprocedure: the name (with argument
// types when withArgs) of a function catalogs point at (pg_language's
// handlers, which psql's \dL+ shows), "-" for 0, else the number.
func Regproc(oid int64, withArgs bool) string {
	if oid == 0 {
		return "-"
	}
	f, ok := handlerFuncs[uint32(oid)]
	switch {
	case !ok:
		return itoa(int(oid))
	case withArgs:
		return f[0] + "(" + f[1] + ")"
	}
	return f[0]
}
