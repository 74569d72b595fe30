package pgcatalog

import (
	"context"
	"sort"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/types"
)

// pgCatalogTables are pg_catalog's relations, in the order pg_class lists
// them.
func pgCatalogTables() []*Relation {
	return []*Relation{
		defTable("pg_catalog", "pg_namespace", `oid:oid nspname:name nspowner:oid nspacl:aclitem[]`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				nss, err := s.allSchemas(ctx)
				if err != nil {
					return nil, err
				}
				d, err := s.privData(ctx)
				if err != nil {
					return nil, err
				}
				var out [][]types.Datum
				for _, ns := range nss {
					out = append(out, rel.row(map[string]types.Datum{"oid": dOID(ObjectOID(ns, "")), "nspname": dName(ns),
						"nspowner": dOID(RoleOID(d.schemaOwner(ns))), "nspacl": d.schemaACL(ns)}))
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_class", `oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid relfilenode:oid reltablespace:oid relpages:integer reltuples:real relallvisible:integer reltoastrelid:oid relhasindex:boolean relisshared:boolean relpersistence:"char" relkind:"char" relnatts:smallint relchecks:smallint relhasrules:boolean relhastriggers:boolean relhassubclass:boolean relrowsecurity:boolean relforcerowsecurity:boolean relispopulated:boolean relreplident:"char" relispartition:boolean relrewrite:oid relfrozenxid:xid relminmxid:xid relacl:aclitem[] reloptions:text[] relpartbound:pg_node_tree`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
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
					owner := dOID(RoleOID(s.relOwner(d, r)))
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
					out = append(out, rel.row(map[string]types.Datum{"reloptions": opts,
						"oid": dOID(ObjectOID(r.ns, r.name)), "relname": dName(r.name), "relnamespace": dOID(ObjectOID(r.ns, "")),
						"relowner": owner, "relacl": s.relACL(d, r), "relam": dOID(am), "relpersistence": {S: "p"}, "relkind": {S: r.kind}, "reltype": dOID(rowType),
						"relnatts": {I: int64(natts)}, "relispopulated": dBool(true), "relreplident": {S: replident}, "relhasrules": dBool(rules),
						"reltuples": {F: -1}, "relfrozenxid": dText("0"), "relminmxid": dText("0"), "relhasindex": dBool(len(r.keys) > 0),
						"relchecks": {I: int64(r.conCount("c"))}, "relhastriggers": dBool(r.conCount("f") > 0),
					}))
					for _, k := range r.keys {
						// A key's btree index, as PostgreSQL builds it on an
						// empty table (one metapage, no tuples).
						out = append(out, rel.row(map[string]types.Datum{
							"oid": dOID(r.keyOID(k)), "relname": dName(k.name), "relnamespace": dOID(ObjectOID(r.ns, "")),
							"relowner": owner, "relam": dOID(oidBtreeAM), "relpersistence": {S: "p"}, "relkind": {S: "i"},
							"relnatts": {I: int64(len(k.cols))}, "relispopulated": dBool(true), "relreplident": {S: "n"},
							"relpages": {I: 1}, "relfrozenxid": dText("0"), "relminmxid": dText("0"),
						}))
					}
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_attribute", `attrelid:oid attname:name atttypid:oid attstattarget:integer attlen:smallint attnum:smallint attndims:integer attcacheoff:integer atttypmod:integer attbyval:boolean attalign:"char" attstorage:"char" attcompression:"char" attnotnull:boolean atthasdef:boolean atthasmissing:boolean attidentity:"char" attgenerated:"char" attisdropped:boolean attislocal:boolean attinhcount:integer attcollation:oid attacl:aclitem[] attoptions:text[] attfdwoptions:text[] attmissingval:anyarray`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rels, err := s.relations(ctx)
				var out [][]types.Datum
				for _, r := range rels {
					for i, c := range r.cols {
						coll := collationOf(c.t)
						out = append(out, rel.row(map[string]types.Datum{
							"attrelid": dOID(ObjectOID(r.ns, r.name)), "attname": dName(c.name), "atttypid": dOID(c.t.OID()),
							"attstattarget": {I: -1}, "attlen": {I: int64(c.t.Size())}, "attnum": {I: int64(i + 1)},
							"attcacheoff": {I: -1}, "atttypmod": {I: int64(c.t.Typmod())}, "attbyval": dBool(c.t.Size() > 0 && c.t.Size() <= 8),
							"attalign": {S: "i"}, "attstorage": {S: storage(c.t)}, "attislocal": dBool(true), "attcollation": dOID(coll),
							"attnotnull": dBool(r.notnull != nil && r.notnull[i]), "atthasdef": dBool(r.hasDefault(i)),
							"attidentity": {S: r.identityOf(i)},
						}))
					}
					// The key indexes' columns.
					for _, key := range r.keys {
						for k, attnum := range key.cols {
							c := r.cols[attnum-1]
							out = append(out, rel.row(map[string]types.Datum{
								"attrelid": dOID(r.keyOID(key)), "attname": dName(c.name), "atttypid": dOID(c.t.OID()),
								"attstattarget": {I: -1}, "attlen": {I: int64(c.t.Size())}, "attnum": {I: int64(k + 1)},
								"attcacheoff": {I: -1}, "atttypmod": {I: int64(c.t.Typmod())}, "attbyval": dBool(c.t.Size() > 0 && c.t.Size() <= 8),
								"attalign": {S: "i"}, "attstorage": {S: storage(c.t)}, "attislocal": dBool(true), "attcollation": dOID(collationOf(c.t)),
							}))
						}
					}
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_type", `oid:oid typname:name typnamespace:oid typowner:oid typlen:smallint typbyval:boolean typtype:"char" typcategory:"char" typispreferred:boolean typisdefined:boolean typdelim:"char" typrelid:oid typsubscript:regproc typelem:oid typarray:oid typinput:regproc typoutput:regproc typreceive:regproc typsend:regproc typmodin:regproc typmodout:regproc typanalyze:regproc typalign:"char" typstorage:"char" typnotnull:boolean typbasetype:oid typtypmod:integer typndims:integer typcollation:oid typdefaultbin:pg_node_tree typdefault:text typacl:aclitem[]`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
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
					out = append(out, rel.row(map[string]types.Datum{
						"oid": dOID(pt.t.OID()), "typname": dName(pt.name), "typnamespace": dOID(oidPgCatalog), "typowner": dOID(oidBootstrapRole),
						"typlen": {I: int64(pt.t.Size())}, "typbyval": dBool(pt.t.Size() > 0 && pt.t.Size() <= 8), "typtype": {S: "b"},
						"typcategory": {S: pt.category}, "typisdefined": dBool(true), "typdelim": {S: ","}, "typarray": dOID(arr.OID()), "typelem": dOID(elem), "typcollation": dOID(coll),
						"typinput": dText(pt.name + "in"), "typoutput": dText(pt.name + "out"), "typreceive": dText(pt.name + "recv"),
						"typsend": dText(pt.name + "send"), "typsubscript": dText("-"), "typmodin": dText("-"), "typmodout": dText("-"),
						"typanalyze": dText("-"), "typalign": {S: "i"}, "typstorage": {S: storage(pt.t)}, "typtypmod": {I: -1},
					}))
					out = append(out, rel.row(map[string]types.Datum{
						"oid": dOID(arr.OID()), "typname": dName("_" + pt.name), "typnamespace": dOID(oidPgCatalog), "typowner": dOID(oidBootstrapRole),
						"typlen": {I: -1}, "typtype": {S: "b"}, "typcategory": {S: "A"}, "typisdefined": dBool(true), "typdelim": {S: ","},
						"typelem": dOID(pt.t.OID()), "typinput": dText("array_in"), "typoutput": dText("array_out"), "typreceive": dText("array_recv"),
						"typsend": dText("array_send"), "typsubscript": dText("array_subscript_handler"), "typmodin": dText("-"), "typmodout": dText("-"),
						"typanalyze": dText("array_typanalyze"), "typalign": {S: "i"}, "typstorage": {S: "x"}, "typtypmod": {I: -1},
					}))
				}
				// Each table and view has its row type (and that type's
				// array type), as in PostgreSQL.
				rels, err := s.relations(ctx)
				if err != nil {
					return nil, err
				}
				d, err := s.privData(ctx)
				if err != nil {
					return nil, err
				}
				for _, r := range rels {
					if r.kind == "S" {
						continue // sequences have no row type since PostgreSQL 14
					}
					owner := dOID(RoleOID(s.relOwner(d, r)))
					row, arr := r.rowTypeOIDs()
					out = append(out, rel.row(map[string]types.Datum{
						"oid": dOID(row), "typname": dName(r.name), "typnamespace": dOID(ObjectOID(r.ns, "")), "typowner": owner,
						"typlen": {I: -1}, "typtype": {S: "c"}, "typcategory": {S: "C"}, "typisdefined": dBool(true), "typdelim": {S: ","},
						"typrelid": dOID(ObjectOID(r.ns, r.name)), "typarray": dOID(arr), "typinput": dText("record_in"), "typoutput": dText("record_out"),
						"typreceive": dText("record_recv"), "typsend": dText("record_send"), "typsubscript": dText("-"), "typmodin": dText("-"),
						"typmodout": dText("-"), "typanalyze": dText("-"), "typalign": {S: "d"}, "typstorage": {S: "x"}, "typtypmod": {I: -1},
					}))
					out = append(out, rel.row(map[string]types.Datum{
						"oid": dOID(arr), "typname": dName("_" + truncName(r.name, 1)), "typnamespace": dOID(ObjectOID(r.ns, "")), "typowner": owner,
						"typlen": {I: -1}, "typtype": {S: "b"}, "typcategory": {S: "A"}, "typisdefined": dBool(true), "typdelim": {S: ","},
						"typelem": dOID(row), "typinput": dText("array_in"), "typoutput": dText("array_out"), "typreceive": dText("array_recv"),
						"typsend": dText("array_send"), "typsubscript": dText("array_subscript_handler"), "typmodin": dText("-"), "typmodout": dText("-"),
						"typanalyze": dText("array_typanalyze"), "typalign": {S: "d"}, "typstorage": {S: "x"}, "typtypmod": {I: -1},
					}))
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_database", `oid:oid datname:name datdba:oid encoding:integer datlocprovider:"char" datistemplate:boolean datallowconn:boolean datconnlimit:integer datfrozenxid:xid datminmxid:xid dattablespace:oid datcollate:text datctype:text daticulocale:text datcollversion:text datacl:aclitem[]`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				d, err := s.privData(ctx)
				if err != nil {
					return nil, err
				}
				return [][]types.Datum{rel.row(map[string]types.Datum{"datacl": d.acl(meta.Object{Kind: meta.KindDatabase, Name: s.src.Database()}),
					"oid": dOID(oidDatabase), "datname": dName(s.src.Database()), "datdba": dOID(oidBootstrapRole), "encoding": {I: 6},
					"datlocprovider": {S: "c"}, "datallowconn": dBool(true), "datconnlimit": {I: -1}, "datfrozenxid": dText("0"),
					"datminmxid": dText("1"), "dattablespace": dOID(1663), "datcollate": dText("C.UTF-8"), "datctype": dText("C.UTF-8"),
				})}, nil
			}),
		defTable("pg_catalog", "pg_settings", `name:text setting:text unit:text category:text short_desc:text extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text[] boot_val:text reset_val:text sourcefile:text sourceline:integer pending_restart:boolean`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				set := s.src.Settings()
				names := make([]string, 0, len(set))
				for n := range set {
					names = append(names, n)
				}
				sort.Strings(names)
				var out [][]types.Datum
				for _, n := range names {
					out = append(out, rel.row(map[string]types.Datum{
						"name": dText(n), "setting": dText(set[n]), "context": dText("user"), "vartype": dText("string"),
						"source": dText("default"), "boot_val": dText(set[n]), "reset_val": dText(set[n]), "pending_restart": dBool(false),
					}))
				}
				return out, nil
			}),
		defTable("pg_catalog", "pg_index", `indexrelid:oid indrelid:oid indnatts:smallint indnkeyatts:smallint indisunique:boolean indnullsnotdistinct:boolean indisprimary:boolean indisexclusion:boolean indimmediate:boolean indisclustered:boolean indisvalid:boolean indcheckxmin:boolean indisready:boolean indislive:boolean indisreplident:boolean indkey:int2vector indcollation:oidvector indclass:oidvector indoption:int2vector indexprs:pg_node_tree indpred:pg_node_tree`, func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
			rels, err := s.relations(ctx)
			var out [][]types.Datum
			for _, r := range rels {
				for _, key := range r.keys {
					colls, zeros := make([]int, len(key.cols)), make([]int, len(key.cols))
					for k, a := range key.cols {
						colls[k] = int(collationOf(r.cols[a-1].t))
					}
					out = append(out, rel.row(map[string]types.Datum{
						"indexrelid": dOID(r.keyOID(key)), "indrelid": dOID(ObjectOID(r.ns, r.name)), "indnatts": {I: int64(len(key.cols))},
						"indnkeyatts": {I: int64(len(key.cols))}, "indisunique": dBool(true), "indisprimary": dBool(key.primary), "indnullsnotdistinct": dBool(key.nullsNotDistinct),
						"indimmediate": dBool(true), "indisvalid": dBool(true), "indisready": dBool(true), "indislive": dBool(true),
						"indkey": {S: int2Vector(key.cols)}, "indcollation": {S: int2Vector(colls)}, "indclass": {S: int2Vector(zeros)},
						"indoption": {S: int2Vector(zeros)},
					}))
				}
			}
			return out, err
		}),
		defTable("pg_catalog", "pg_constraint", `oid:oid conname:name connamespace:oid contype:"char" condeferrable:boolean condeferred:boolean convalidated:boolean conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid confupdtype:"char" confdeltype:"char" confmatchtype:"char" conislocal:boolean coninhcount:integer connoinherit:boolean conkey:smallint[] confkey:smallint[] conpfeqop:oid[] conppeqop:oid[] conffeqop:oid[] confdelsetcols:smallint[] conexclop:oid[] conbin:pg_node_tree`, func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
			rels, err := s.relations(ctx)
			var out [][]types.Datum
			for _, r := range rels {
				for _, key := range r.keys {
					contype := "u"
					if key.primary {
						contype = "p"
					}
					out = append(out, rel.row(map[string]types.Datum{
						"oid": dOID(r.keyConOID(key)), "conname": dName(key.name), "connamespace": dOID(ObjectOID(r.ns, "")),
						"contype": {S: contype}, "convalidated": dBool(true), "conrelid": dOID(ObjectOID(r.ns, r.name)),
						"conindid": dOID(r.keyOID(key)), "confupdtype": {S: " "}, "confdeltype": {S: " "}, "confmatchtype": {S: " "},
						"conislocal": dBool(true), "connoinherit": dBool(true), "conkey": {S: int2Vector(key.cols)},
					}))
				}
				out = append(out, r.conRows(rel)...)
			}
			return out, err
		}),
		// pg_description's rows join others (describe.go).
		defTable("pg_catalog", "pg_description", `objoid:oid classoid:oid objsubid:integer description:text`, descriptionRows),
		defTable("pg_catalog", "pg_am", `oid:oid amname:name amhandler:regproc amtype:"char"`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				out := [][]types.Datum{rel.row(map[string]types.Datum{"oid": dOID(oidHeapAM), "amname": dName("heap"), "amhandler": dText("heap_tableam_handler"), "amtype": {S: "t"}})}
				// PostgreSQL's index access methods; Loam's primary keys are btree.
				for _, am := range []struct {
					oid           uint32
					name, handler string
				}{{oidBtreeAM, "btree", "bthandler"}, {405, "hash", "hashhandler"}, {783, "gist", "gisthandler"}, {2742, "gin", "ginhandler"},
					{4000, "spgist", "spghandler"}, {3580, "brin", "brinhandler"}} {
					out = append(out, rel.row(map[string]types.Datum{"oid": dOID(am.oid), "amname": dName(am.name), "amhandler": dText(am.handler), "amtype": {S: "i"}}))
				}
				return out, nil
			}),
		defTable("pg_catalog", "pg_collation", `oid:oid collname:name collnamespace:oid collowner:oid collprovider:"char" collisdeterministic:boolean collencoding:integer collcollate:text collctype:text colliculocale:text collversion:text`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
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
					out = append(out, rel.row(set))
				}
				return out, nil
			}),
		defTable("pg_catalog", "pg_policy", `oid:oid polname:name polrelid:oid polcmd:"char" polpermissive:boolean polroles:oid[] polqual:pg_node_tree polwithcheck:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_publication", `oid:oid pubname:name pubowner:oid puballtables:boolean pubinsert:boolean pubupdate:boolean pubdelete:boolean pubtruncate:boolean pubviaroot:boolean`, noRows),
		defTable("pg_catalog", "pg_publication_namespace", `oid:oid pnpubid:oid pnnspid:oid`, noRows),
		defTable("pg_catalog", "pg_publication_rel", `oid:oid prpubid:oid prrelid:oid prqual:pg_node_tree prattrs:int2vector`, noRows),
		defTable("pg_catalog", "pg_publication_tables", `pubname:name schemaname:name tablename:name attnames:name[] rowfilter:text`, noRows),
		defTable("pg_catalog", "pg_statistic_ext", `oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid stxstattarget:integer stxkeys:int2vector stxkind:"char"[] stxexprs:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_language", `oid:oid lanname:name lanowner:oid lanispl:boolean lanpltrusted:boolean lanplcallfoid:oid laninline:oid lanvalidator:oid lanacl:aclitem[]`, languageRows),
		defTable("pg_catalog", "pg_tables", `schemaname:name tablename:name tableowner:name tablespace:name hasindexes:boolean hasrules:boolean hastriggers:boolean rowsecurity:boolean`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
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
					if r.kind != "r" && r.kind != "p" {
						continue
					}
					out = append(out, rel.row(map[string]types.Datum{"schemaname": dName(r.ns), "tablename": dName(r.name), "tableowner": dName(s.relOwner(d, r)), "tablespace": types.NullOf(types.TName), "hasindexes": dBool(len(r.keys) > 0)}))
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_views", `schemaname:name viewname:name viewowner:name definition:text`, viewRows),
		defTable("pg_catalog", "pg_matviews", `schemaname:name matviewname:name matviewowner:name tablespace:name hasindexes:boolean ispopulated:boolean definition:text`, noRows),
		defTable("pg_catalog", "pg_tablespace", `oid:oid spcname:name spcowner:oid spcacl:aclitem[] spcoptions:text[]`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return [][]types.Datum{
					rel.row(map[string]types.Datum{"oid": dOID(1663), "spcname": dName("pg_default"), "spcowner": dOID(oidBootstrapRole)}),
					rel.row(map[string]types.Datum{"oid": dOID(1664), "spcname": dName("pg_global"), "spcowner": dOID(oidBootstrapRole)}),
				}, nil
			}),
		defTable("pg_catalog", "pg_proc", `oid:oid proname:name pronamespace:oid proowner:oid prolang:oid procost:real prorows:real provariadic:oid prosupport:regproc prokind:"char" prosecdef:boolean proleakproof:boolean proisstrict:boolean proretset:boolean provolatile:"char" proparallel:"char" pronargs:smallint pronargdefaults:smallint prorettype:oid proargtypes:oidvector proallargtypes:oid[] proargmodes:"char"[] proargnames:text[] proargdefaults:pg_node_tree protrftypes:oid[] prosrc:text probin:text prosqlbody:pg_node_tree proconfig:text[] proacl:aclitem[]`, noRows),
		defTable("pg_catalog", "pg_enum", `oid:oid enumtypid:oid enumsortorder:real enumlabel:name`, noRows),
		defTable("pg_catalog", "pg_range", `rngtypid:oid rngsubtype:oid rngmultitypid:oid rngcollation:oid rngsubopc:oid rngcanonical:regproc rngsubdiff:regproc`, noRows),
		defTable("pg_catalog", "pg_rewrite", `oid:oid rulename:name ev_class:oid ev_type:"char" ev_enabled:"char" is_instead:boolean ev_qual:pg_node_tree ev_action:pg_node_tree`, noRows),
		defTable("pg_catalog", "pg_sequence", `seqrelid:oid seqtypid:oid seqstart:bigint seqincrement:bigint seqmax:bigint seqmin:bigint seqcache:bigint seqcycle:boolean`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rels, err := s.relations(ctx)
				var out [][]types.Datum
				for _, r := range rels {
					if q := r.seq; q != nil {
						out = append(out, rel.row(map[string]types.Datum{"seqrelid": dOID(ObjectOID(r.ns, r.name)), "seqtypid": dOID(q.Type.OID()),
							"seqstart": {I: q.Start}, "seqincrement": {I: q.Increment}, "seqmax": {I: q.Max}, "seqmin": {I: q.Min},
							"seqcache": {I: q.Cache}, "seqcycle": dBool(q.Cycle)}))
					}
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_trigger", `oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:smallint tgenabled:"char" tgisinternal:boolean tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid tgdeferrable:boolean tginitdeferred:boolean tgnargs:smallint tgattr:int2vector tgargs:bytea tgqual:pg_node_tree tgoldtable:name tgnewtable:name`, noRows),
		defTable("pg_catalog", "pg_stat_activity", `datid:oid datname:name pid:integer leader_pid:integer usesysid:oid usename:name application_name:text client_addr:inet client_hostname:text client_port:integer backend_start:timestamptz xact_start:timestamptz query_start:timestamptz state_change:timestamptz wait_event_type:text wait_event:text state:text backend_xid:xid backend_xmin:xid query_id:bigint query:text backend_type:text`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				// This session only: Loam does not list other sessions yet.
				set := map[string]types.Datum{}
				for k, v := range map[string]types.Datum{"datid": dOID(oidDatabase), "datname": dName(s.src.Database()), "usesysid": dOID(RoleOID(s.src.SessionUser())),
					"usename": dName(s.src.SessionUser()), "application_name": dText(s.src.Settings()["application_name"]), "state": dText("active"),
					"backend_type": dText("client backend")} {
					set[k] = v
				}
				set["pid"] = dInt(int64(s.src.BackendPID()))
				return [][]types.Datum{rel.row(set)}, nil
			}),
		// adbin holds the deparsed text rather than a node tree, which
		// pg_get_expr passes through.
		defTable("pg_catalog", "pg_attrdef", `oid:oid adrelid:oid adnum:smallint adbin:pg_node_tree`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rels, err := s.relations(ctx)
				var out [][]types.Datum
				for _, r := range rels {
					for i := range r.cols {
						if r.hasDefault(i) {
							out = append(out, rel.row(map[string]types.Datum{
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
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rels, err := s.relations(ctx)
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
					out = append(out, rel.row(map[string]types.Datum{"classid": pgClass, "objid": dOID(ObjectOID(r.ns, r.name)), "objsubid": {I: 0},
						"refclassid": pgClass, "refobjid": dOID(ObjectOID(r.ns, table)), "refobjsubid": {I: int64(n)}, "deptype": {S: deptype}}))
				}
				out = append(out, attrdefSequenceDeps(rel, rels)...)
				if s.forDump() {
					out = append(out, viewDeps(rel, rels)...)
				}
				return out, err
			}),
		defTable("pg_catalog", "pg_inherits", `inhrelid:oid inhparent:oid inhseqno:integer inhdetachpending:boolean`, noRows),
		defTable("pg_catalog", "pg_extension", `oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:boolean extversion:text extconfig:oid[] extcondition:text[]`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return [][]types.Datum{rel.row(map[string]types.Datum{"oid": dOID(oidPlpgsql), "extname": dName("plpgsql"), "extowner": dOID(oidBootstrapRole), "extnamespace": dOID(oidPgCatalog), "extversion": dText("1.0")})}, nil
			}),
	}
}
