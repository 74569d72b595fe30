package plan

import (
	"context"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
)

// CatalogInfo is what the emulated pg_catalog and information_schema read
// of the session and the metastore. A Catalog that does not implement it
// gets empty catalog tables.
type CatalogInfo interface {
	User() string
	Database() string
	// SearchPath is the session's search_path, resolved ($user replaced).
	SearchPath() []string
	Settings() map[string]string
	// Namespaces are the schemas the metastore holds, sorted.
	Namespaces(ctx context.Context) ([]string, error)
	// Tables are the tables of one schema with their columns, sorted.
	Tables(ctx context.Context, ns string) ([]*TableInfo, error)
}

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
// catalog and compare with 'pg_class'::regclass.
var systemCatalogOIDs = map[string]uint32{
	"pg_tablespace": 1213, "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259,
	"pg_authid": 1260, "pg_database": 1262, "pg_sequence": 2224, "pg_am": 2601, "pg_depend": 2608, "pg_attrdef": 2604,
	"pg_constraint": 2606, "pg_description": 2609, "pg_index": 2610, "pg_inherits": 2611,
	"pg_namespace": 2615, "pg_rewrite": 2618, "pg_trigger": 2620, "pg_extension": 3079, "pg_policy": 3256,
	"pg_statistic_ext": 3381, "pg_collation": 3456, "pg_enum": 3501, "pg_range": 3541,
	"pg_publication": 6104, "pg_publication_rel": 6106, "pg_publication_namespace": 6237,
}

type vcol struct {
	name string
	t    types.T
}

// vtable is a virtual table generated at query time.
type vtable struct {
	schema, name string
	view         bool // information_schema's are views in PostgreSQL
	cols         []vcol
	rows         func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error)
}

// colType maps the type names of PostgreSQL's catalog definitions to Loam
// types. Types Loam lacks (regproc, xid, pg_node_tree, anyarray) are text
// for now, int2vector, oidvector and aclitem[] smallint[], oid[] and text[]; information_schema's
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
	case "text[]", "aclitem[]":
		return types.ArrayOf(types.Text)
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

func defTable(schema, name, spec string, rows func(context.Context, CatalogInfo, *vtable) ([][]types.Datum, error)) *vtable {
	vt := &vtable{schema: schema, name: name, view: schema == "information_schema", rows: rows}
	for _, f := range strings.Fields(spec) {
		n, t, _ := strings.Cut(f, ":")
		vt.cols = append(vt.cols, vcol{n, colType(t)})
	}
	return vt
}

// row starts a row of vt with PostgreSQL-like defaults: pg_catalog's
// scalar columns are NOT NULL (0, false, ”), arrays and texts NULL;
// information_schema's are NULL.
func (vt *vtable) row(set map[string]types.Datum) []types.Datum {
	out := make([]types.Datum, len(vt.cols))
	for i, c := range vt.cols {
		if d, ok := set[c.name]; ok {
			if !d.Null {
				d.T = c.t
			}
			out[i] = d
			continue
		}
		out[i] = types.NullOf(c.t)
		if vt.schema != "pg_catalog" {
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

func dName(s string) types.Datum { return types.Datum{T: types.TName, S: s} }
func dText(s string) types.Datum { return types.Datum{T: types.TText, S: s} }
func dOID(v uint32) types.Datum  { return types.Datum{T: types.TOID, I: int64(v)} }
func dInt(v int64) types.Datum   { return types.Datum{T: types.TInt4, I: v} }
func dBool(v bool) types.Datum   { return types.BoolDatum(v) }
func dNull() types.Datum         { return types.Datum{Null: true} }

// pgType is one row of pg_type for a type Loam has.
type pgType struct {
	t        types.T
	name     string
	category string
}

var pgTypes = []pgType{
	{types.TBool, "bool", "B"}, {types.TBytea, "bytea", "U"}, {types.TQChar, "char", "Z"},
	{types.TName, "name", "S"}, {types.TInt8, "int8", "N"}, {types.TInt2, "int2", "N"},
	{types.TInt4, "int4", "N"}, {types.TText, "text", "S"}, {types.TOID, "oid", "N"},
	{types.TJSON, "json", "U"}, {types.TFloat4, "float4", "N"}, {types.TFloat8, "float8", "N"},
	{types.Of(types.Char), "bpchar", "S"}, {types.Of(types.Varchar), "varchar", "S"},
	{types.TDate, "date", "D"}, {types.TTime, "time", "D"}, {types.TTimestamp, "timestamp", "D"},
	{types.TTimestampTZ, "timestamptz", "D"}, {types.TInterval, "interval", "T"},
	{types.TNumeric, "numeric", "N"}, {types.TUUID, "uuid", "U"}, {types.TJSONB, "jsonb", "U"},
}

// typeByOID finds a type (base or array) by its pg_type OID.
func typeByOID(oid uint32) (types.T, bool) {
	for _, pt := range pgTypes {
		if pt.t.OID() == oid {
			return pt.t, true
		}
		if a := types.ArrayOf(pt.t.Kind); a.OID() == oid {
			return a, true
		}
	}
	return types.T{}, false
}

// withTypmod applies an atttypmod to a type, undoing T.Typmod.
func withTypmod(t types.T, mod int32) types.T {
	if mod < 0 {
		return t
	}
	switch t.Kind {
	case types.Varchar, types.Char:
		t.Width = mod - 4
	case types.Numeric:
		t.Width, t.Scale = (mod-4)>>16, (mod-4)&0xffff
	case types.Time, types.Timestamp, types.TimestampTZ:
		t.Width = mod
	}
	return t
}

func isVisible(ci CatalogInfo, ns string) bool {
	if ns == "pg_catalog" {
		return true
	}
	for _, s := range ci.SearchPath() {
		if s == ns {
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
	pkey     []int    // the PRIMARY KEY's attnums, in key order
	defaults []string // columns' DEFAULT texts ("" none); nil when none
	// comment is COMMENT ON TABLE, docs COMMENT ON COLUMN by attnum-1
	// ("" for none), from Iceberg (see pgcatalog_psql.go).
	comment string
	docs    []string
	def     string        // a view's SELECT text
	seq     *SequenceInfo // a sequence's definition (kind S)
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

// pkeyName is the name PostgreSQL gives a table's primary key index and
// constraint: the table's name, cut to leave room for the suffix.
func (r relation) pkeyName() string { return truncName(r.name, len("_pkey")) + "_pkey" }

// truncName cuts an identifier so that it and a suffix of so many bytes
// fit in NAMEDATALEN-1 bytes, on a character boundary, as PostgreSQL does.
func truncName(s string, suffix int) string {
	for len(s)+suffix > 63 {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// pkeyOID is the OID of a table's primary key index (a relation named
// pkeyName in its schema); pkeyConOID that of its constraint.
func (r relation) pkeyOID() uint32    { return ObjectOID(r.ns, r.pkeyName()) }
func (r relation) pkeyConOID() uint32 { return ObjectOID(r.ns, "\x00constraint "+r.pkeyName()) }

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

func relations(ctx context.Context, ci CatalogInfo) ([]relation, error) {
	var out []relation
	nss, err := ci.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	for _, ns := range nss {
		tis, err := ci.Tables(ctx, ns)
		if err != nil {
			return nil, err
		}
		for _, ti := range tis {
			r := relation{ns: ns, name: ti.Name, kind: "r", clauses: clausesOf(ti.Table), defaults: ti.Defaults, identity: ti.Identity}
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
			if ti.Table != nil {
				// A PRIMARY KEY is the Iceberg schema's identifier fields.
				sc := ti.Table.Schema()
				for _, id := range sc.IdentifierFieldIDs {
					if f, ok := sc.FindFieldByID(id); ok {
						for i, c := range ti.Columns {
							if c == f.Name {
								r.pkey = append(r.pkey, i+1)
							}
						}
					}
				}
			}
			out = append(out, r)
		}
	}
	if sc, ok := ci.(SequenceControl); ok {
		for _, ns := range nss {
			seqs, err := sc.Sequences(ctx, ns)
			if err != nil {
				return nil, err
			}
			for i := range seqs {
				out = append(out, relation{ns: ns, name: seqs[i].Name, kind: "S", seq: &seqs[i]})
			}
		}
	}
	for _, vt := range virtualTables {
		kind := "r"
		if vt.view {
			kind = "v"
		}
		out = append(out, relation{ns: vt.schema, name: vt.name, kind: kind, cols: vt.cols})
	}
	return out, nil
}

func allSchemas(ctx context.Context, ci CatalogInfo) ([]string, error) {
	nss, err := ci.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := append([]string{"pg_catalog", "information_schema"}, nss...)
	return out, nil
}

// virtualTables is the registry of pg_catalog and information_schema
// tables, filled by this one init so that no file-name order matters.
var virtualTables []*vtable

func init() {
	virtualTables = []*vtable{
		defTable("pg_catalog", "pg_namespace", `oid:oid nspname:name nspowner:oid nspacl:aclitem[]`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				nss, err := allSchemas(ctx, ci)
				var out [][]types.Datum
				for _, ns := range nss {
					owner := uint32(oidBootstrapRole)
					if ns == "public" {
						owner = oidDatabaseOwner
					}
					row := map[string]types.Datum{"oid": dOID(ObjectOID(ns, "")), "nspname": dName(ns), "nspowner": dOID(owner)}
					if ns == "public" {
						// PostgreSQL 15's grants on public, which \dn+ shows.
						row["nspacl"] = types.Datum{T: types.ArrayOf(types.Text), S: "{pg_database_owner=UC/pg_database_owner,=U/pg_database_owner}"}
					}
					out = append(out, vt.row(row))
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_class", `oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid relfilenode:oid reltablespace:oid relpages:integer reltuples:real relallvisible:integer reltoastrelid:oid relhasindex:boolean relisshared:boolean relpersistence:"char" relkind:"char" relnatts:smallint relchecks:smallint relhasrules:boolean relhastriggers:boolean relhassubclass:boolean relrowsecurity:boolean relforcerowsecurity:boolean relispopulated:boolean relreplident:"char" relispartition:boolean relrewrite:oid relfrozenxid:xid relminmxid:xid relacl:aclitem[] reloptions:text[] relpartbound:pg_node_tree`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				var out [][]types.Datum
				for _, r := range rels {
					rowType, _ := r.rowTypeOIDs()
					am := uint32(oidHeapAM)
					if r.kind != "r" {
						am = 0 // PostgreSQL gives views and partitioned tables no access method
					}
					natts := len(r.cols)
					if r.kind == "S" {
						rowType, natts = 0, 3 // no row type since PostgreSQL 14; last_value, log_cnt, is_called
					}
					// A view is its _RETURN rule, and has no replica identity.
					rules, replident := r.kind == "v", "d"
					if r.kind == "v" {
						replident = "n"
					}
					opts := types.NullOf(types.ArrayOf(types.Text))
					if len(r.clauses.options) > 0 {
						opts = types.Datum{S: textArray(r.clauses.options)}
					}
					out = append(out, vt.row(map[string]types.Datum{"reloptions": opts,
						"oid": dOID(ObjectOID(r.ns, r.name)), "relname": dName(r.name), "relnamespace": dOID(ObjectOID(r.ns, "")),
						"relowner": dOID(oidBootstrapRole), "relam": dOID(am), "relpersistence": {S: "p"}, "relkind": {S: r.kind}, "reltype": dOID(rowType),
						"relnatts": {I: int64(natts)}, "relispopulated": dBool(true), "relreplident": {S: replident}, "relhasrules": dBool(rules),
						"reltuples": {F: -1}, "relfrozenxid": dText("0"), "relminmxid": dText("0"), "relhasindex": dBool(len(r.pkey) > 0),
					}))
					if len(r.pkey) > 0 {
						// The primary key's btree index, as PostgreSQL builds it
						// on an empty table (one metapage, no tuples).
						out = append(out, vt.row(map[string]types.Datum{
							"oid": dOID(r.pkeyOID()), "relname": dName(r.pkeyName()), "relnamespace": dOID(ObjectOID(r.ns, "")),
							"relowner": dOID(oidBootstrapRole), "relam": dOID(oidBtreeAM), "relpersistence": {S: "p"}, "relkind": {S: "i"},
							"relnatts": {I: int64(len(r.pkey))}, "relispopulated": dBool(true), "relreplident": {S: "n"},
							"relpages": {I: 1}, "relfrozenxid": dText("0"), "relminmxid": dText("0"),
						}))
					}
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_attribute", `attrelid:oid attname:name atttypid:oid attstattarget:integer attlen:smallint attnum:smallint attndims:integer attcacheoff:integer atttypmod:integer attbyval:boolean attalign:"char" attstorage:"char" attcompression:"char" attnotnull:boolean atthasdef:boolean atthasmissing:boolean attidentity:"char" attgenerated:"char" attisdropped:boolean attislocal:boolean attinhcount:integer attcollation:oid attacl:aclitem[] attoptions:text[] attfdwoptions:text[] attmissingval:anyarray`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				var out [][]types.Datum
				for _, r := range rels {
					for i, c := range r.cols {
						coll := collationOf(c.t)
						out = append(out, vt.row(map[string]types.Datum{
							"attrelid": dOID(ObjectOID(r.ns, r.name)), "attname": dName(c.name), "atttypid": dOID(c.t.OID()),
							"attstattarget": {I: -1}, "attlen": {I: int64(c.t.Size())}, "attnum": {I: int64(i + 1)},
							"attcacheoff": {I: -1}, "atttypmod": {I: int64(c.t.Typmod())}, "attbyval": dBool(c.t.Size() > 0 && c.t.Size() <= 8),
							"attalign": {S: "i"}, "attstorage": {S: storage(c.t)}, "attislocal": dBool(true), "attcollation": dOID(coll),
							"attnotnull": dBool(r.notnull != nil && r.notnull[i]), "atthasdef": dBool(r.hasDefault(i)),
							"attidentity": {S: r.identityOf(i)},
						}))
					}
					// The primary key index's columns.
					for k, attnum := range r.pkey {
						c := r.cols[attnum-1]
						out = append(out, vt.row(map[string]types.Datum{
							"attrelid": dOID(r.pkeyOID()), "attname": dName(c.name), "atttypid": dOID(c.t.OID()),
							"attstattarget": {I: -1}, "attlen": {I: int64(c.t.Size())}, "attnum": {I: int64(k + 1)},
							"attcacheoff": {I: -1}, "atttypmod": {I: int64(c.t.Typmod())}, "attbyval": dBool(c.t.Size() > 0 && c.t.Size() <= 8),
							"attalign": {S: "i"}, "attstorage": {S: storage(c.t)}, "attislocal": dBool(true), "attcollation": dOID(collationOf(c.t)),
						}))
					}
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_type", `oid:oid typname:name typnamespace:oid typowner:oid typlen:smallint typbyval:boolean typtype:"char" typcategory:"char" typispreferred:boolean typisdefined:boolean typdelim:"char" typrelid:oid typsubscript:regproc typelem:oid typarray:oid typinput:regproc typoutput:regproc typreceive:regproc typsend:regproc typmodin:regproc typmodout:regproc typanalyze:regproc typalign:"char" typstorage:"char" typnotnull:boolean typbasetype:oid typtypmod:integer typndims:integer typcollation:oid typdefaultbin:pg_node_tree typdefault:text typacl:aclitem[]`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				var out [][]types.Datum
				for _, pt := range pgTypes {
					arr := types.ArrayOf(pt.t.Kind)
					var elem, coll uint32
					switch pt.t.Kind {
					case types.Name:
						elem = types.OIDQChar // name is subscriptable as char[64]
						coll = 950            // "C"
					case types.Text, types.Varchar, types.Char:
						coll = 100 // "default"
					}
					out = append(out, vt.row(map[string]types.Datum{
						"oid": dOID(pt.t.OID()), "typname": dName(pt.name), "typnamespace": dOID(oidPgCatalog), "typowner": dOID(oidBootstrapRole),
						"typlen": {I: int64(pt.t.Size())}, "typbyval": dBool(pt.t.Size() > 0 && pt.t.Size() <= 8), "typtype": {S: "b"},
						"typcategory": {S: pt.category}, "typisdefined": dBool(true), "typdelim": {S: ","}, "typarray": dOID(arr.OID()), "typelem": dOID(elem), "typcollation": dOID(coll),
						"typinput": dText(pt.name + "in"), "typoutput": dText(pt.name + "out"), "typreceive": dText(pt.name + "recv"),
						"typsend": dText(pt.name + "send"), "typsubscript": dText("-"), "typmodin": dText("-"), "typmodout": dText("-"),
						"typanalyze": dText("-"), "typalign": {S: "i"}, "typstorage": {S: storage(pt.t)}, "typtypmod": {I: -1},
					}))
					out = append(out, vt.row(map[string]types.Datum{
						"oid": dOID(arr.OID()), "typname": dName("_" + pt.name), "typnamespace": dOID(oidPgCatalog), "typowner": dOID(oidBootstrapRole),
						"typlen": {I: -1}, "typtype": {S: "b"}, "typcategory": {S: "A"}, "typisdefined": dBool(true), "typdelim": {S: ","},
						"typelem": dOID(pt.t.OID()), "typinput": dText("array_in"), "typoutput": dText("array_out"), "typreceive": dText("array_recv"),
						"typsend": dText("array_send"), "typsubscript": dText("array_subscript_handler"), "typmodin": dText("-"), "typmodout": dText("-"),
						"typanalyze": dText("array_typanalyze"), "typalign": {S: "i"}, "typstorage": {S: "x"}, "typtypmod": {I: -1},
					}))
				}
				// Each table and view has its row type (and that type's
				// array type), as in PostgreSQL.
				rels, err := relations(ctx, ci)
				for _, r := range rels {
					if r.kind == "S" {
						continue // sequences have no row type since PostgreSQL 14
					}
					row, arr := r.rowTypeOIDs()
					out = append(out, vt.row(map[string]types.Datum{
						"oid": dOID(row), "typname": dName(r.name), "typnamespace": dOID(ObjectOID(r.ns, "")), "typowner": dOID(oidBootstrapRole),
						"typlen": {I: -1}, "typtype": {S: "c"}, "typcategory": {S: "C"}, "typisdefined": dBool(true), "typdelim": {S: ","},
						"typrelid": dOID(ObjectOID(r.ns, r.name)), "typarray": dOID(arr), "typinput": dText("record_in"), "typoutput": dText("record_out"),
						"typreceive": dText("record_recv"), "typsend": dText("record_send"), "typsubscript": dText("-"), "typmodin": dText("-"),
						"typmodout": dText("-"), "typanalyze": dText("-"), "typalign": {S: "d"}, "typstorage": {S: "x"}, "typtypmod": {I: -1},
					}))
					out = append(out, vt.row(map[string]types.Datum{
						"oid": dOID(arr), "typname": dName("_" + truncName(r.name, 1)), "typnamespace": dOID(ObjectOID(r.ns, "")), "typowner": dOID(oidBootstrapRole),
						"typlen": {I: -1}, "typtype": {S: "b"}, "typcategory": {S: "A"}, "typisdefined": dBool(true), "typdelim": {S: ","},
						"typelem": dOID(row), "typinput": dText("array_in"), "typoutput": dText("array_out"), "typreceive": dText("array_recv"),
						"typsend": dText("array_send"), "typsubscript": dText("array_subscript_handler"), "typmodin": dText("-"), "typmodout": dText("-"),
						"typanalyze": dText("array_typanalyze"), "typalign": {S: "d"}, "typstorage": {S: "x"}, "typtypmod": {I: -1},
					}))
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_database", `oid:oid datname:name datdba:oid encoding:integer datlocprovider:"char" datistemplate:boolean datallowconn:boolean datconnlimit:integer datfrozenxid:xid datminmxid:xid dattablespace:oid datcollate:text datctype:text daticulocale:text datcollversion:text datacl:aclitem[]`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				return [][]types.Datum{vt.row(map[string]types.Datum{
					"oid": dOID(oidDatabase), "datname": dName(ci.Database()), "datdba": dOID(oidBootstrapRole), "encoding": {I: 6},
					"datlocprovider": {S: "c"}, "datallowconn": dBool(true), "datconnlimit": {I: -1}, "datfrozenxid": dText("0"),
					"datminmxid": dText("1"), "dattablespace": dOID(1663), "datcollate": dText("C.UTF-8"), "datctype": dText("C.UTF-8"),
				})}, nil
			}),
		defTable("pg_catalog", "pg_roles", `rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolconnlimit:integer rolpassword:text rolvaliduntil:timestamptz rolbypassrls:boolean rolconfig:text[] oid:oid`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				return [][]types.Datum{vt.row(map[string]types.Datum{
					"rolname": dName(ci.User()), "rolsuper": dBool(true), "rolinherit": dBool(true), "rolcreaterole": dBool(true),
					"rolcreatedb": dBool(true), "rolcanlogin": dBool(true), "rolreplication": dBool(true), "rolconnlimit": {I: -1},
					"rolpassword": dText("********"), "rolbypassrls": dBool(true), "oid": dOID(oidBootstrapRole),
				})}, nil
			}),
		defTable("pg_catalog", "pg_user", `usename:name usesysid:oid usecreatedb:boolean usesuper:boolean userepl:boolean usebypassrls:boolean passwd:text valuntil:timestamptz useconfig:text[]`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				return [][]types.Datum{vt.row(map[string]types.Datum{
					"usename": dName(ci.User()), "usesysid": dOID(oidBootstrapRole), "usecreatedb": dBool(true), "usesuper": dBool(true),
					"userepl": dBool(true), "usebypassrls": dBool(true), "passwd": dText("********"),
				})}, nil
			}),
		defTable("pg_catalog", "pg_settings", `name:text setting:text unit:text category:text short_desc:text extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text[] boot_val:text reset_val:text sourcefile:text sourceline:integer pending_restart:boolean`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				set := ci.Settings()
				names := make([]string, 0, len(set))
				for n := range set {
					names = append(names, n)
				}
				sort.Strings(names)
				var out [][]types.Datum
				for _, n := range names {
					out = append(out, vt.row(map[string]types.Datum{
						"name": dText(n), "setting": dText(set[n]), "context": dText("user"), "vartype": dText("string"),
						"source": dText("default"), "boot_val": dText(set[n]), "reset_val": dText(set[n]), "pending_restart": dBool(false),
					}))
				}
				return out, nil
			}),
		defTable("pg_catalog", "pg_index", `indexrelid:oid indrelid:oid indnatts:smallint indnkeyatts:smallint indisunique:boolean indnullsnotdistinct:boolean indisprimary:boolean indisexclusion:boolean indimmediate:boolean indisclustered:boolean indisvalid:boolean indcheckxmin:boolean indisready:boolean indislive:boolean indisreplident:boolean indkey:int2vector indcollation:oidvector indclass:oidvector indoption:int2vector indexprs:pg_node_tree indpred:pg_node_tree`, func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
			rels, err := relations(ctx, ci)
			var out [][]types.Datum
			for _, r := range rels {
				if len(r.pkey) == 0 {
					continue
				}
				colls, zeros := make([]int, len(r.pkey)), make([]int, len(r.pkey))
				for k, a := range r.pkey {
					colls[k] = int(collationOf(r.cols[a-1].t))
				}
				out = append(out, vt.row(map[string]types.Datum{
					"indexrelid": dOID(r.pkeyOID()), "indrelid": dOID(ObjectOID(r.ns, r.name)), "indnatts": {I: int64(len(r.pkey))},
					"indnkeyatts": {I: int64(len(r.pkey))}, "indisunique": dBool(true), "indisprimary": dBool(true),
					"indimmediate": dBool(true), "indisvalid": dBool(true), "indisready": dBool(true), "indislive": dBool(true),
					"indkey": {S: int2Vector(r.pkey)}, "indcollation": {S: int2Vector(colls)}, "indclass": {S: int2Vector(zeros)},
					"indoption": {S: int2Vector(zeros)},
				}))
			}
			return out, err
		}),
		defTable("pg_catalog", "pg_constraint", `oid:oid conname:name connamespace:oid contype:"char" condeferrable:boolean condeferred:boolean convalidated:boolean conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid confupdtype:"char" confdeltype:"char" confmatchtype:"char" conislocal:boolean coninhcount:integer connoinherit:boolean conkey:smallint[] confkey:smallint[] conpfeqop:oid[] conppeqop:oid[] conffeqop:oid[] confdelsetcols:smallint[] conexclop:oid[] conbin:pg_node_tree`, func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
			rels, err := relations(ctx, ci)
			var out [][]types.Datum
			for _, r := range rels {
				if len(r.pkey) == 0 {
					continue
				}
				out = append(out, vt.row(map[string]types.Datum{
					"oid": dOID(r.pkeyConOID()), "conname": dName(r.pkeyName()), "connamespace": dOID(ObjectOID(r.ns, "")),
					"contype": {S: "p"}, "convalidated": dBool(true), "conrelid": dOID(ObjectOID(r.ns, r.name)),
					"conindid": dOID(r.pkeyOID()), "confupdtype": {S: " "}, "confdeltype": {S: " "}, "confmatchtype": {S: " "},
					"conislocal": dBool(true), "connoinherit": dBool(true), "conkey": {S: int2Vector(r.pkey)},
				}))
			}
			return out, err
		}),
		defTable("pg_catalog", "pg_description", `objoid:oid classoid:oid objsubid:integer description:text`, noRows),
		defTable("pg_catalog", "pg_am", `oid:oid amname:name amhandler:regproc amtype:"char"`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				out := [][]types.Datum{vt.row(map[string]types.Datum{"oid": dOID(oidHeapAM), "amname": dName("heap"), "amhandler": dText("heap_tableam_handler"), "amtype": {S: "t"}})}
				// PostgreSQL's index access methods; Loam's primary keys are btree.
				for _, am := range []struct {
					oid           uint32
					name, handler string
				}{{oidBtreeAM, "btree", "bthandler"}, {405, "hash", "hashhandler"}, {783, "gist", "gisthandler"}, {2742, "gin", "ginhandler"},
					{4000, "spgist", "spghandler"}, {3580, "brin", "brinhandler"}} {
					out = append(out, vt.row(map[string]types.Datum{"oid": dOID(am.oid), "amname": dName(am.name), "amhandler": dText(am.handler), "amtype": {S: "i"}}))
				}
				return out, nil
			}),
		defTable("pg_catalog", "pg_collation", `oid:oid collname:name collnamespace:oid collowner:oid collprovider:"char" collisdeterministic:boolean collencoding:integer collcollate:text collctype:text colliculocale:text collversion:text`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				var out [][]types.Datum
				for _, c := range []struct {
					oid        uint32
					name, prov string
				}{{100, "default", "d"}, {950, "C", "c"}, {951, "POSIX", "c"}} {
					set := map[string]types.Datum{"oid": dOID(c.oid), "collname": dName(c.name), "collnamespace": dOID(oidPgCatalog),
						"collowner": dOID(oidBootstrapRole), "collprovider": {S: c.prov}, "collisdeterministic": dBool(true), "collencoding": {I: -1}}
					if c.prov == "c" {
						set["collcollate"], set["collctype"] = dText(c.name), dText(c.name)
					}
					out = append(out, vt.row(set))
				}
				return out, nil
			}),
		defTable("pg_catalog", "pg_policy", `oid:oid polname:name polrelid:oid polcmd:"char" polpermissive:boolean polroles:oid[] polqual:pg_node_tree polwithcheck:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_publication", `oid:oid pubname:name pubowner:oid puballtables:boolean pubinsert:boolean pubupdate:boolean pubdelete:boolean pubtruncate:boolean pubviaroot:boolean`, noRows),
		defTable("pg_catalog", "pg_publication_namespace", `oid:oid pnpubid:oid pnnspid:oid`, noRows),
		defTable("pg_catalog", "pg_publication_rel", `oid:oid prpubid:oid prrelid:oid prqual:pg_node_tree prattrs:int2vector`, noRows),
		defTable("pg_catalog", "pg_publication_tables", `pubname:name schemaname:name tablename:name attnames:name[] rowfilter:text`, noRows),
		defTable("pg_catalog", "pg_statistic_ext", `oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid stxstattarget:integer stxkeys:int2vector stxkind:"char"[] stxexprs:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_authid", `oid:oid rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolbypassrls:boolean rolconnlimit:integer rolpassword:text rolvaliduntil:timestamptz`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				return [][]types.Datum{vt.row(map[string]types.Datum{
					"oid": dOID(oidBootstrapRole), "rolname": dName(ci.User()), "rolsuper": dBool(true), "rolinherit": dBool(true),
					"rolcreaterole": dBool(true), "rolcreatedb": dBool(true), "rolcanlogin": dBool(true), "rolreplication": dBool(true),
					"rolbypassrls": dBool(true), "rolconnlimit": {I: -1},
				})}, nil
			}),
		defTable("pg_catalog", "pg_language", `oid:oid lanname:name lanowner:oid lanispl:boolean lanpltrusted:boolean lanplcallfoid:oid laninline:oid lanvalidator:oid lanacl:aclitem[]`, noRows),
		// The one role is a member of none (psql's \du reads this).
		defTable("pg_catalog", "pg_auth_members", `roleid:oid member:oid grantor:oid admin_option:boolean`, noRows),
		defTable("pg_catalog", "pg_tables", `schemaname:name tablename:name tableowner:name tablespace:name hasindexes:boolean hasrules:boolean hastriggers:boolean rowsecurity:boolean`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				var out [][]types.Datum
				for _, r := range rels {
					if r.kind != "r" && r.kind != "p" {
						continue
					}
					out = append(out, vt.row(map[string]types.Datum{"schemaname": dName(r.ns), "tablename": dName(r.name), "tableowner": dName(ci.User()), "tablespace": types.NullOf(types.TName), "hasindexes": dBool(len(r.pkey) > 0)}))
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_views", `schemaname:name viewname:name viewowner:name definition:text`, viewRows),
		defTable("pg_catalog", "pg_matviews", `schemaname:name matviewname:name matviewowner:name tablespace:name hasindexes:boolean ispopulated:boolean definition:text`, noRows),
		defTable("pg_catalog", "pg_tablespace", `oid:oid spcname:name spcowner:oid spcacl:aclitem[] spcoptions:text[]`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				return [][]types.Datum{
					vt.row(map[string]types.Datum{"oid": dOID(1663), "spcname": dName("pg_default"), "spcowner": dOID(oidBootstrapRole)}),
					vt.row(map[string]types.Datum{"oid": dOID(1664), "spcname": dName("pg_global"), "spcowner": dOID(oidBootstrapRole)}),
				}, nil
			}),
		defTable("pg_catalog", "pg_proc", `oid:oid proname:name pronamespace:oid proowner:oid prolang:oid procost:real prorows:real provariadic:oid prosupport:regproc prokind:"char" prosecdef:boolean proleakproof:boolean proisstrict:boolean proretset:boolean provolatile:"char" proparallel:"char" pronargs:smallint pronargdefaults:smallint prorettype:oid proargtypes:oidvector proallargtypes:oid[] proargmodes:"char"[] proargnames:text[] proargdefaults:pg_node_tree protrftypes:oid[] prosrc:text probin:text prosqlbody:pg_node_tree proconfig:text[] proacl:aclitem[]`, noRows),
		defTable("pg_catalog", "pg_enum", `oid:oid enumtypid:oid enumsortorder:real enumlabel:name`, noRows),
		defTable("pg_catalog", "pg_range", `rngtypid:oid rngsubtype:oid rngmultitypid:oid rngcollation:oid rngsubopc:oid rngcanonical:regproc rngsubdiff:regproc`, noRows),
		defTable("pg_catalog", "pg_rewrite", `oid:oid rulename:name ev_class:oid ev_type:"char" ev_enabled:"char" is_instead:boolean ev_qual:pg_node_tree ev_action:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_sequence", `seqrelid:oid seqtypid:oid seqstart:bigint seqincrement:bigint seqmax:bigint seqmin:bigint seqcache:bigint seqcycle:boolean`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				var out [][]types.Datum
				for _, r := range rels {
					if q := r.seq; q != nil {
						out = append(out, vt.row(map[string]types.Datum{"seqrelid": dOID(ObjectOID(r.ns, r.name)), "seqtypid": dOID(q.Type.OID()),
							"seqstart": {I: q.Start}, "seqincrement": {I: q.Increment}, "seqmax": {I: q.Max}, "seqmin": {I: q.Min},
							"seqcache": {I: q.Cache}, "seqcycle": dBool(q.Cycle)}))
					}
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_trigger", `oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:smallint tgenabled:"char" tgisinternal:boolean tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid tgdeferrable:boolean tginitdeferred:boolean tgnargs:smallint tgattr:int2vector tgargs:bytea tgqual:pg_node_tree tgoldtable:name tgnewtable:name`, noRows),
		defTable("pg_catalog", "pg_stat_activity", `datid:oid datname:name pid:integer leader_pid:integer usesysid:oid usename:name application_name:text client_addr:inet client_hostname:text client_port:integer backend_start:timestamptz xact_start:timestamptz query_start:timestamptz state_change:timestamptz wait_event_type:text wait_event:text state:text backend_xid:xid backend_xmin:xid query_id:bigint query:text backend_type:text`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				// This session only: Loam does not list other sessions yet.
				set := map[string]types.Datum{}
				for k, v := range map[string]types.Datum{"datid": dOID(oidDatabase), "datname": dName(ci.Database()), "usesysid": dOID(oidBootstrapRole),
					"usename": dName(ci.User()), "application_name": dText(ci.Settings()["application_name"]), "state": dText("active"),
					"backend_type": dText("client backend")} {
					set[k] = v
				}
				if sc, ok := ci.(SessionControl); ok {
					set["pid"] = dInt(int64(sc.BackendPID()))
				}
				return [][]types.Datum{vt.row(set)}, nil
			}),
		// adbin holds the deparsed text rather than a node tree, which
		// pg_get_expr passes through.
		defTable("pg_catalog", "pg_attrdef", `oid:oid adrelid:oid adnum:smallint adbin:pg_node_tree`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				var out [][]types.Datum
				for _, r := range rels {
					for i := range r.cols {
						if r.hasDefault(i) {
							out = append(out, vt.row(map[string]types.Datum{
								"oid": dOID(ObjectOID(r.ns, "\x00attrdef "+r.name+" "+itoa(i+1))), "adrelid": dOID(ObjectOID(r.ns, r.name)),
								"adnum": {I: int64(i + 1)}, "adbin": {S: r.defaults[i]}}))
						}
					}
				}
				return out, err
			}),
		// pg_depend holds what psql's \d of a sequence asks: the column
		// owning it (deptype a for serial, i for identity).
		defTable("pg_catalog", "pg_depend", `classid:oid objid:oid objsubid:integer refclassid:oid refobjid:oid refobjsubid:integer deptype:"char"`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				attnum, ident := columnsByKey(rels)
				var out [][]types.Datum
				for _, r := range rels {
					if r.seq == nil || r.seq.OwnedBy == "" {
						continue
					}
					col := r.ns + "." + r.seq.OwnedBy
					n, ok := attnum[col]
					if !ok {
						continue
					}
					table, _, _ := strings.Cut(r.seq.OwnedBy, ".")
					deptype := "a"
					if ident[col] != "" {
						deptype = "i"
					}
					pgClass := dOID(systemCatalogOIDs["pg_class"])
					out = append(out, vt.row(map[string]types.Datum{"classid": pgClass, "objid": dOID(ObjectOID(r.ns, r.name)), "objsubid": {I: 0},
						"refclassid": pgClass, "refobjid": dOID(ObjectOID(r.ns, table)), "refobjsubid": {I: int64(n)}, "deptype": {S: deptype}}))
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_inherits", `inhrelid:oid inhparent:oid inhseqno:integer inhdetachpending:boolean`, noRows),
		defTable("pg_catalog", "pg_extension", `oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:boolean extversion:text extconfig:oid[] extcondition:text[]`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				return [][]types.Datum{vt.row(map[string]types.Datum{"oid": dOID(oidPlpgsql), "extname": dName("plpgsql"), "extowner": dOID(oidBootstrapRole), "extnamespace": dOID(oidPgCatalog), "extversion": dText("1.0")})}, nil
			}),
		defTable("information_schema", "schemata", `catalog_name:sql_identifier schema_name:sql_identifier schema_owner:sql_identifier default_character_set_catalog:sql_identifier default_character_set_schema:sql_identifier default_character_set_name:sql_identifier sql_path:character_data`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				nss, err := allSchemas(ctx, ci)
				var out [][]types.Datum
				for _, ns := range nss {
					out = append(out, vt.row(map[string]types.Datum{"catalog_name": dName(ci.Database()), "schema_name": dName(ns), "schema_owner": dName(ci.User())}))
				}
				return out, err
			}),
		defTable("information_schema", "tables", `table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier table_type:character_data self_referencing_column_name:sql_identifier reference_generation:character_data user_defined_type_catalog:sql_identifier user_defined_type_schema:sql_identifier user_defined_type_name:sql_identifier is_insertable_into:yes_or_no is_typed:yes_or_no commit_action:character_data`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				var out [][]types.Datum
				for _, r := range rels {
					if r.kind == "S" {
						continue
					}
					typ, ins := "BASE TABLE", "YES"
					if r.kind == "v" {
						typ, ins = "VIEW", "NO"
					}
					out = append(out, vt.row(map[string]types.Datum{"table_catalog": dName(ci.Database()), "table_schema": dName(r.ns), "table_name": dName(r.name),
						"table_type": dText(typ), "is_insertable_into": dText(ins), "is_typed": dText("NO")}))
				}
				return out, err
			}),
		defTable("information_schema", "sequences", `sequence_catalog:sql_identifier sequence_schema:sql_identifier sequence_name:sql_identifier data_type:character_data numeric_precision:cardinal_number numeric_precision_radix:cardinal_number numeric_scale:cardinal_number start_value:character_data minimum_value:character_data maximum_value:character_data increment:character_data cycle_option:yes_or_no`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				_, ident := columnsByKey(rels)
				var out [][]types.Datum
				for _, r := range rels {
					// An identity column's sequence is not listed, as in
					// PostgreSQL.
					q := r.seq
					if q == nil || ident[r.ns+"."+q.OwnedBy] != "" {
						continue
					}
					bits := map[types.Kind]int64{types.Int2: 16, types.Int4: 32, types.Int8: 64}[q.Type.Kind]
					out = append(out, vt.row(map[string]types.Datum{"sequence_catalog": dName(ci.Database()), "sequence_schema": dName(r.ns),
						"sequence_name": dName(r.name), "data_type": dText(q.Type.String()), "numeric_precision": dInt(bits),
						"numeric_precision_radix": dInt(2), "numeric_scale": dInt(0), "start_value": dText(strconv.FormatInt(q.Start, 10)),
						"minimum_value": dText(strconv.FormatInt(q.Min, 10)), "maximum_value": dText(strconv.FormatInt(q.Max, 10)),
						"increment": dText(strconv.FormatInt(q.Increment, 10)), "cycle_option": dText(yesNo(q.Cycle))}))
				}
				return out, err
			}),
		defTable("information_schema", "views", `table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier view_definition:character_data check_option:character_data is_updatable:yes_or_no is_insertable_into:yes_or_no is_trigger_updatable:yes_or_no is_trigger_deletable:yes_or_no is_trigger_insertable_into:yes_or_no`,
			viewRows),
		defTable("information_schema", "columns", `table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier column_name:sql_identifier ordinal_position:cardinal_number column_default:character_data is_nullable:yes_or_no data_type:character_data character_maximum_length:cardinal_number character_octet_length:cardinal_number numeric_precision:cardinal_number numeric_precision_radix:cardinal_number numeric_scale:cardinal_number datetime_precision:cardinal_number interval_type:character_data interval_precision:cardinal_number character_set_catalog:sql_identifier character_set_schema:sql_identifier character_set_name:sql_identifier collation_catalog:sql_identifier collation_schema:sql_identifier collation_name:sql_identifier domain_catalog:sql_identifier domain_schema:sql_identifier domain_name:sql_identifier udt_catalog:sql_identifier udt_schema:sql_identifier udt_name:sql_identifier scope_catalog:sql_identifier scope_schema:sql_identifier scope_name:sql_identifier maximum_cardinality:cardinal_number dtd_identifier:sql_identifier is_self_referencing:yes_or_no is_identity:yes_or_no identity_generation:character_data identity_start:character_data identity_increment:character_data identity_maximum:character_data identity_minimum:character_data identity_cycle:yes_or_no is_generated:character_data generation_expression:character_data is_updatable:yes_or_no`,
			func(ctx context.Context, ci CatalogInfo, vt *vtable) ([][]types.Datum, error) {
				rels, err := relations(ctx, ci)
				owners := sequenceOwners(rels)
				var out [][]types.Datum
				for _, r := range rels {
					for i, c := range r.cols {
						set := map[string]types.Datum{"table_catalog": dName(ci.Database()), "table_schema": dName(r.ns), "table_name": dName(r.name),
							"column_name": dName(c.name), "ordinal_position": dInt(int64(i + 1)), "is_nullable": dText(yesNo(r.notnull == nil || !r.notnull[i])),
							"data_type": dText(dataType(c.t)), "udt_catalog": dName(ci.Database()), "udt_schema": dName("pg_catalog"),
							"udt_name": dName(udtName(c.t)), "dtd_identifier": dName(itoa(i + 1)), "is_self_referencing": dText("NO"),
							"is_identity": dText("NO"), "identity_cycle": dText("NO"), "is_generated": dText("NEVER"), "is_updatable": dText("YES")}
						if r.hasDefault(i) {
							set["column_default"] = dText(DefaultText(r.defaults[i], false))
						}
						if id := r.identityOf(i); id != "" {
							set["is_identity"], set["identity_generation"] = dText("YES"), dText(map[string]string{"a": "ALWAYS", "d": "BY DEFAULT"}[id])
							if q := owners[r.ns+"."+r.name+"."+c.name]; q != nil {
								set["identity_start"], set["identity_increment"] = dText(itoa(int(q.Start))), dText(itoa(int(q.Increment)))
								set["identity_maximum"], set["identity_minimum"] = dText(strconv.FormatInt(q.Max, 10)), dText(strconv.FormatInt(q.Min, 10))
								set["identity_cycle"] = dText(yesNo(q.Cycle))
							}
						}
						switch c.t.Kind {
						case types.Varchar, types.Char:
							if c.t.Width >= 0 {
								set["character_maximum_length"] = dInt(int64(c.t.Width))
								set["character_octet_length"] = dInt(int64(c.t.Width) * 4)
							}
						case types.Text:
							set["character_octet_length"] = dInt(1073741824)
						case types.Int2, types.Int4, types.Int8:
							set["numeric_precision"] = dInt(int64(map[types.Kind]int{types.Int2: 16, types.Int4: 32, types.Int8: 64}[c.t.Kind]))
							set["numeric_precision_radix"], set["numeric_scale"] = dInt(2), dInt(0)
						case types.Float4, types.Float8:
							set["numeric_precision"] = dInt(int64(map[types.Kind]int{types.Float4: 24, types.Float8: 53}[c.t.Kind]))
							set["numeric_precision_radix"] = dInt(2)
						case types.Numeric:
							set["numeric_precision_radix"] = dInt(10)
							if c.t.Width >= 0 {
								set["numeric_precision"], set["numeric_scale"] = dInt(int64(c.t.Width)), dInt(int64(c.t.Scale))
							}
						case types.Date:
							set["datetime_precision"] = dInt(0)
						case types.Time, types.Timestamp, types.TimestampTZ, types.Interval:
							p := int64(6)
							if c.t.Width >= 0 {
								p = int64(c.t.Width)
							}
							set["datetime_precision"] = dInt(p)
						}
						out = append(out, vt.row(set))
					}
				}
				return out, err
			}),
	}
	// The rest of the registry, in this order: the catalogs psql lists
	// without rows, then pg_description's rows, which join others.
	addEmptyCatalogs()
	describeObjects()
}

// collationOf is a column's attcollation: "default" for strings, "C" for
// name, none for other types.
func collationOf(t types.T) uint32 {
	switch {
	case t.Kind == types.Name:
		return 950
	case t.IsString() && t.Kind != types.QChar:
		return 100
	}
	return 0
}

// storage is typstorage: plain for fixed-width types, main for numeric,
// extended for the other variable-length ones.
func storage(t types.T) string {
	switch {
	case t.Kind == types.Numeric:
		return "m"
	case t.Size() < 0:
		return "x"
	}
	return "p"
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func noRows(context.Context, CatalogInfo, *vtable) ([][]types.Datum, error) { return nil, nil }

// dataType is information_schema's data_type: the SQL standard's spelling,
// without modifiers.
func dataType(t types.T) string {
	if t.Kind == types.Array {
		return "ARRAY"
	}
	return types.Of(t.Kind).String()
}

func udtName(t types.T) string {
	for _, pt := range pgTypes {
		if pt.t.Kind == t.Kind {
			return pt.name
		}
		if t.Kind == types.Array && pt.t.Kind == t.Elem {
			return "_" + pt.name
		}
	}
	return t.String()
}

// lookupVirtual finds a pg_catalog or information_schema table. An
// unqualified name finds pg_catalog's only, as pg_catalog is implicitly
// first on the search path.
func lookupVirtual(schema, name string) *vtable {
	for _, vt := range virtualTables {
		if vt.name == name && (vt.schema == schema || schema == "" && vt.schema == "pg_catalog") {
			return vt
		}
	}
	return nil
}

// virtualItem is the FROM item of a virtual table.
func (p *Planner) virtualItem(vt *vtable, alias string) *fromItem {
	cols := make([]scopeCol, len(vt.cols))
	ts := make([]types.T, len(vt.cols))
	for i, c := range vt.cols {
		cols[i] = scopeCol{table: alias, name: c.name, t: c.t}
		ts[i] = c.t
	}
	// A system catalog has the system column tableoid, its own OID
	// (psql joins pg_description on it).
	tableoid, system := systemCatalogOIDs[vt.name]
	system = system && vt.schema == "pg_catalog"
	if system {
		cols = append(cols, scopeCol{table: alias, name: "tableoid", t: types.TOID, system: true})
		ts = append(ts, types.TOID)
	}
	ci, _ := p.cat.(CatalogInfo)
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.RowSource{ColumnTypes: ts, Gen: func(ctx context.Context) ([][]types.Datum, error) {
			if ci == nil {
				return nil, nil
			}
			rows, err := vt.rows(ctx, ci, vt)
			if system {
				for i := range rows {
					rows[i] = append(rows[i], dOID(tableoid))
				}
			}
			return rows, err
		}}, nil
	}}
}

// sequenceOwners maps "schema.table.column" to the sequence the column
// owns (serial and identity columns).
func sequenceOwners(rels []relation) map[string]*SequenceInfo {
	m := map[string]*SequenceInfo{}
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
