package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/storage/maint"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Table properties Loam records beside the Iceberg schema.
const (
	PropRetention       = pgcatalog.PropRetention
	PropRetentionColumn = pgcatalog.PropRetentionColumn
	PropCommitInterval  = pgcatalog.PropCommitInterval
)

func (s *Session) createTable(ctx context.Context, cs *pg.CreateStmt, ps parse.Statement, q string) (*Cursor, error) {
	at := func(loc int32) int { return parse.CharPos(q, int(loc)) }
	rv := cs.Relation
	if rv.Relpersistence == "t" || len(cs.InhRelations) > 0 || cs.Partspec != nil || cs.OfTypename != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary, inherited and PARTITION BY tables are not supported; use PARTITIONED BY").WithPosition(at(rv.Location))
	}
	ns, err := s.newTableSchema(ctx, rv, q)
	if err != nil {
		return nil, err
	}

	var fields []iceberg.NestedField
	var colTypes []types.T
	var keys []string // PRIMARY KEY columns
	var pkeyName string
	var uniques []uniqueDef
	var defaults []string
	var defPlan *plan.Planner
	var owned []ownedSeq  // serial and identity columns
	var drafts []conDraft // CHECK and FOREIGN KEY constraints (tablecons.go)
	byName := map[string]int{}
	for _, el := range cs.TableElts {
		cd := el.GetColumnDef()
		if cd == nil {
			con := el.GetConstraint()
			switch {
			case con != nil && con.Contype == pg.ConstrType_CONSTR_PRIMARY && len(keys) > 0:
				return nil, pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", rv.Relname).WithPosition(at(con.Location))
			case con != nil && con.Contype == pg.ConstrType_CONSTR_PRIMARY:
				if err := checkKeyConstraint(con, at); err != nil {
					return nil, err
				}
				for _, k := range con.Keys {
					keys = append(keys, k.GetString_().Sval)
				}
				pkeyName = con.Conname
			case con != nil && con.Contype == pg.ConstrType_CONSTR_UNIQUE:
				if err := checkKeyConstraint(con, at); err != nil {
					return nil, err
				}
				u := uniqueDef{name: con.Conname, pos: at(con.Location), nullsNotDistinct: con.NullsNotDistinct}
				for _, k := range con.Keys {
					u.cols = append(u.cols, k.GetString_().Sval)
				}
				uniques = append(uniques, u)
			case con != nil && (con.Contype == pg.ConstrType_CONSTR_CHECK || con.Contype == pg.ConstrType_CONSTR_FOREIGN):
				d, err := s.draftConstraint(ctx, con, ns, rv.Relname, "", q)
				if err != nil {
					return nil, err
				}
				drafts = append(drafts, d)
			default:
				return nil, pgerr.New(pgerr.FeatureNotSupported, "table constraints other than PRIMARY KEY, UNIQUE, CHECK and FOREIGN KEY are not supported").WithPosition(at(rv.Location))
			}
			continue
		}
		if _, dup := byName[cd.Colname]; dup {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cd.Colname).WithPosition(at(cd.Location))
		}
		t, serial := serialType(cd.TypeName)
		if !serial {
			if t, err = plan.TypeOf(cd.TypeName, q); err != nil {
				return nil, err
			}
		}
		it, err := ice.ToIceberg(t)
		if err != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: %v", cd.Colname, err).WithPosition(at(cd.Location))
		}
		required := cd.IsNotNull || serial
		if serial {
			owned = append(owned, ownedSeq{col: len(fields), opts: nil})
		}
		for _, c := range cd.Constraints {
			con := c.GetConstraint()
			switch con.Contype {
			case pg.ConstrType_CONSTR_IDENTITY:
				if _, ok := seqTypes[t.Kind]; !ok {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint").WithPosition(at(con.Location))
				}
				if serial || len(owned) > 0 && owned[len(owned)-1].col == len(fields) {
					return nil, pgerr.New(pgerr.SyntaxError, "multiple identity specifications for column %q of table %q", cd.Colname, rv.Relname).WithPosition(at(con.Location))
				}
				owned = append(owned, ownedSeq{col: len(fields), opts: con.Options, identity: con.GeneratedWhen[0]})
				required = true
			case pg.ConstrType_CONSTR_NOTNULL:
				required = true
			case pg.ConstrType_CONSTR_PRIMARY:
				if len(keys) > 0 {
					return nil, pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", rv.Relname).WithPosition(at(con.Location))
				}
				if err := checkKeyConstraint(con, at); err != nil {
					return nil, err
				}
				keys = append(keys, cd.Colname)
				pkeyName = con.Conname
				required = true
			case pg.ConstrType_CONSTR_UNIQUE:
				if err := checkKeyConstraint(con, at); err != nil {
					return nil, err
				}
				uniques = append(uniques, uniqueDef{name: con.Conname, cols: []string{cd.Colname}, pos: at(con.Location), nullsNotDistinct: con.NullsNotDistinct})
			case pg.ConstrType_CONSTR_NULL:
			case pg.ConstrType_CONSTR_CHECK, pg.ConstrType_CONSTR_FOREIGN:
				d, err := s.draftConstraint(ctx, con, ns, rv.Relname, cd.Colname, q)
				if err != nil {
					return nil, err
				}
				drafts = append(drafts, d)
			case pg.ConstrType_CONSTR_DEFAULT:
				if defPlan == nil {
					cat := s.catalog()
					defer cat.release()
					defPlan = plan.New(ctx, cat, s.exprCtx(), q, nil, nil)
				}
				if defaults == nil {
					defaults = make([]string, len(cs.TableElts))
				}
				d, err := defPlan.CheckDefault(con.RawExpr, cd.Colname, t)
				if err != nil {
					return nil, err
				}
				defaults[len(fields)] = d
			default:
				return nil, pgerr.New(pgerr.FeatureNotSupported, "column constraint %s is not supported yet; only NOT NULL is",
					parse.ConstraintName(con.Contype)).WithPosition(at(con.Location))
			}
		}
		byName[cd.Colname] = len(fields)
		fields = append(fields, iceberg.NestedField{ID: len(fields) + 1, Name: cd.Colname, Type: it, Required: required})
		colTypes = append(colTypes, t)
	}
	if len(fields) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a table needs at least one column").WithPosition(at(rv.Location))
	}
	nt := newTable{ns: ns, name: rv.Relname, fields: fields, types: colTypes, keys: keys, defaults: defaults, byName: byName, at: at(rv.Location),
		pkeyName: pkeyName, uniques: uniques, others: drafts}
	if err := s.bindChecks(ctx, drafts, rv.Relname, fields, colTypes, q); err != nil {
		return nil, err
	}
	seqs, err := s.planOwnedSequences(ctx, &nt, owned, rv.Schemaname != "", q)
	if err != nil {
		return nil, err
	}
	mark := len(s.undo)
	created, err := s.storeTable(ctx, nt, ps.Table, cs.IfNotExists)
	if err != nil {
		return nil, err
	}
	if created {
		for _, sq := range seqs {
			if err := s.storeSequence(ctx, ns, sq.name, sq.seq); err != nil {
				s.undoCreate(mark, link.Key{NS: ns, Name: rv.Relname})
				return nil, err
			}
		}
	}
	return &Cursor{tag: "CREATE TABLE", sess: s}, nil
}

// newTable is a table about to be created: its columns as Iceberg fields
// with their SQL types, PRIMARY KEY column names and DEFAULT texts (nil
// or "" for none), by CREATE TABLE or CREATE TABLE … AS.
type newTable struct {
	ns, name string
	fields   []iceberg.NestedField
	types    []types.T
	keys     []string
	defaults []string
	byName   map[string]int
	at       int // position of the table name, for errors
	// identity is "a" (ALWAYS) or "d" (BY DEFAULT) for an identity
	// column, "" for others; nil when there is none.
	identity []string
	pkeyName string      // CONSTRAINT name PRIMARY KEY, or ""
	uniques  []uniqueDef // UNIQUE constraints (keys.go)
	others   []conDraft  // CHECK and FOREIGN KEY constraints (tablecons.go)
}

// storeTable creates nt with the Loam clauses tc, in the metastore and
// the warehouse, and records it as created by the transaction under way
// (a rollback drops it). It reports false, with a notice, when the table
// exists and ifNotExists is set.
func (s *Session) storeTable(ctx context.Context, nt newTable, tc *parse.TableClauses, ifNotExists bool) (bool, error) {
	fields, colTypes, keys, defaults, byName := nt.fields, nt.types, nt.keys, nt.defaults, nt.byName
	ns := nt.ns
	ice.NumberFields(fields)
	// A primary key becomes the Iceberg schema's identifier fields (row
	// identity for engines that upsert); its columns are NOT NULL.
	var identifiers []int
	for _, k := range keys {
		i, ok := byName[k]
		if !ok {
			return false, pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", k).WithPosition(nt.at)
		}
		fields[i].Required = true
		identifiers = append(identifiers, fields[i].ID)
	}
	sc := iceberg.NewSchemaWithIdentifiers(0, identifiers, fields...)
	keyProps, err := keyProperties(nt, identifiers)
	if err != nil {
		return false, err
	}
	ids := make([]int, len(fields))
	for i := range fields {
		ids[i] = fields[i].ID
	}
	props := iceberg.Properties{ice.TypesProperty: ice.EncodeTypes(ids, colTypes)}
	maps.Copy(props, maint.CreateProperties())
	if d := plan.EncodeDefaults(ids, defaults); d != "" {
		props[plan.PropDefaults] = d
	}
	if d := plan.EncodeDefaults(ids, nt.identity); d != "" {
		props[plan.PropIdentity] = d
	}
	maps.Copy(props, keyProps)
	if err := otherConstraintProps(nt, keyProps, props); err != nil {
		return false, err
	}

	var spec *iceberg.PartitionSpec
	order := table.UnsortedSortOrder
	if tc != nil {
		var err error
		if spec, err = partitionSpec(tc, sc, byName, colTypes); err != nil {
			return false, err
		}
		if order, err = sortOrder(tc, sc, byName); err != nil {
			return false, err
		}
		if err := tableOptions(tc, byName, colTypes, props); err != nil {
			return false, err
		}
		if err := checkMerge(tc, props, identifiers); err != nil {
			return false, err
		}
	}
	key := link.Key{NS: ns, Name: nt.name}
	if _, err := s.eng.meta.Sequence(ctx, ns, nt.name); err == nil {
		// A sequence holds the name (tables and views are checked by the
		// create itself).
		if ifNotExists {
			s.notice("relation %q already exists, skipping", nt.name)
			return false, nil
		}
		return false, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", nt.name)
	}
	location, err := s.takeName(ctx, key)
	if err != nil {
		return false, err
	}
	s.eng.missing.forget(key)
	_, err = s.eng.store.CreateAt(ctx, ns, nt.name, location, sc, spec, order, props)
	if err == nil {
		settings := tableSettings(tc, props)
		settings.Keys = keys
		for i, d := range defaults {
			if d != "" {
				if settings.Defaults == nil {
					settings.Defaults = map[string]string{}
				}
				settings.Defaults[fields[i].Name] = pgcatalog.DefaultText(d, false)
			}
		}
		err = s.eng.meta.PutTableSettings(ctx, ns, nt.name, settings)
	}
	if err == nil {
		// A query may have loaded the table between its create and its
		// settings: it reads them again (writer = 'external').
		err = s.eng.link.Reclassify(ctx, ns, nt.name)
	}
	if err == nil {
		// The creating server is the table's writer from the start: an
		// idle-table sweep of another server must not take the table
		// before its first write (link.Manager.MayKeepIdle). Not an
		// external table's, which Claim leaves alone.
		s.eng.link.Claim(ctx, ns, nt.name)
	}
	if errors.Is(err, icetable.ErrTableExists) || errors.Is(err, icetable.ErrViewExists) {
		if ifNotExists {
			s.notice("relation %q already exists, skipping", nt.name)
			return false, nil
		}
		return false, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", nt.name)
	}
	if err != nil {
		return false, err
	}
	// Again: a lookup may have raced the create.
	s.eng.missing.forget(key)
	s.onRollback(func(ctx context.Context) error { return s.dropTable(ctx, ns, nt.name) })
	return true, nil
}

// newTableSchema is the schema a new table named by rv goes into: the one
// named, which must exist, else the first of the search path.
func (s *Session) newTableSchema(ctx context.Context, rv *pg.RangeVar, q string) (string, error) {
	ns := rv.Schemaname
	if ns == "" {
		return s.createSchema(ctx)
	}
	if ok, err := s.namespaceExists(ctx, ns); err != nil {
		return "", err
	} else if !ok {
		return "", pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", ns).WithPosition(parse.CharPos(q, int(rv.Location)))
	}
	return ns, nil
}

func columnOf(byName map[string]int, name string, pos int, clause string) (int, error) {
	i, ok := byName[name]
	if !ok {
		return 0, pgerr.New(pgerr.UndefinedColumn, "column %q named in %s does not exist", name, clause).WithPosition(pos)
	}
	return i, nil
}

func partitionSpec(tc *parse.TableClauses, sc *iceberg.Schema, byName map[string]int, ts []types.T) (*iceberg.PartitionSpec, error) {
	if len(tc.Partition) == 0 {
		return nil, nil
	}
	var opts []iceberg.PartitionOption
	for k, pf := range tc.Partition {
		i, err := columnOf(byName, pf.Column, pf.Pos, "PARTITIONED BY")
		if err != nil {
			return nil, err
		}
		var tr iceberg.Transform
		name := pf.Column
		switch pf.Transform {
		case "identity":
			tr = iceberg.IdentityTransform{}
		case "year":
			tr, name = iceberg.YearTransform{}, pf.Column+"_year"
		case "month":
			tr, name = iceberg.MonthTransform{}, pf.Column+"_month"
		case "day":
			tr, name = iceberg.DayTransform{}, pf.Column+"_day"
		case "hour":
			tr, name = iceberg.HourTransform{}, pf.Column+"_hour"
		case "bucket":
			tr, name = iceberg.BucketTransform{NumBuckets: pf.Param}, pf.Column+"_bucket"
		case "truncate":
			tr, name = iceberg.TruncateTransform{Width: pf.Param}, pf.Column+"_trunc"
		}
		field := sc.Field(i)
		if !tr.CanTransform(field.Type) {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "partition transform %s cannot apply to column %q of type %s", pf.Transform, pf.Column, ts[i]).WithPosition(pf.Pos)
		}
		id := 1000 + k
		opts = append(opts, iceberg.AddPartitionFieldBySourceID(field.ID, name, tr, sc, &id))
	}
	spec, err := iceberg.NewPartitionSpecOpts(opts...)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.InvalidTableDefinition, err, "PARTITIONED BY")
	}
	return &spec, nil
}

func sortOrder(tc *parse.TableClauses, sc *iceberg.Schema, byName map[string]int) (table.SortOrder, error) {
	if len(tc.Sort) == 0 {
		return table.UnsortedSortOrder, nil
	}
	var fields []table.SortField
	for _, sf := range tc.Sort {
		i, err := columnOf(byName, sf.Column, sf.Pos, "SORTED BY")
		if err != nil {
			return table.SortOrder{}, err
		}
		f := table.SortField{SourceIDs: []int{sc.Field(i).ID}, Transform: iceberg.IdentityTransform{},
			Direction: table.SortASC, NullOrder: table.NullsLast}
		if sf.Desc {
			f.Direction = table.SortDESC
		}
		if sf.NullsFirst {
			f.NullOrder = table.NullsFirst
		}
		fields = append(fields, f)
	}
	order, err := table.NewSortOrder(1, fields)
	if err != nil {
		return table.SortOrder{}, pgerr.Wrap(pgerr.InvalidTableDefinition, err, "SORTED BY")
	}
	return order, nil
}

func tableOptions(tc *parse.TableClauses, byName map[string]int, ts []types.T, props iceberg.Properties) error {
	for _, o := range tc.Options {
		switch o.Key {
		case "snapshot_retention":
			if err := snapshotRetentionOption(o, props); err != nil {
				return err
			}
		case "retention", "commit_interval":
			iv, err := types.ParseInterval(o.Value)
			if err != nil {
				what := "retention"
				if o.Key == "commit_interval" {
					what = "commit_interval"
				}
				return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid %s %q: not an interval", what, o.Value).WithPosition(o.Pos)
			}
			if o.Key == "commit_interval" {
				if o.Column != "" {
					return pgerr.New(pgerr.SyntaxError, "commit_interval takes no ON column").WithPosition(o.ColPos)
				}
				props[PropCommitInterval] = iv.String()
				ms := (int64(iv.Months)*30+int64(iv.Days))*86400e3 + iv.Micros/1000
				if ms <= 0 {
					return pgerr.New(pgerr.InvalidParameterValue, "commit_interval must be positive").WithPosition(o.Pos)
				}
				props[link.CommitIntervalProperty] = strconv.FormatInt(ms, 10)
				continue
			}
			props[PropRetention] = iv.String()
			props[maint.RetentionSpecProperty] = maint.RetentionSpec(iv.Months, iv.Days, iv.Micros)
			if o.Column == "" {
				return pgerr.New(pgerr.SyntaxError, "retention needs the time column it applies to: retention = '%s' ON column", o.Value).WithPosition(o.Pos)
			}
			i, err := columnOf(byName, o.Column, o.ColPos, "retention")
			if err != nil {
				return err
			}
			if k := ts[i].Kind; k != types.Timestamp && k != types.TimestampTZ && k != types.Date {
				return pgerr.New(pgerr.DatatypeMismatch, "retention column %q must be a timestamp or date, not %s", o.Column, ts[i]).WithPosition(o.ColPos)
			}
			props[PropRetentionColumn] = o.Column
		case "target_file_size":
			if err := targetFileSizeOption(o, props); err != nil {
				return err
			}
		case "format_version", "merge":
			if err := keyOption(o, props); err != nil {
				return err
			}
		case "writer":
			if _, err := writerOption(o); err != nil {
				return err
			}
		default:
			if ok, err := heapOption(o); ok || err != nil {
				if err != nil {
					return err
				}
				continue
			}
			return pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter %q", o.Key).WithPosition(o.Pos)
		}
	}
	return checkExternalOptions(tc)
}

// tableSettings records a table's Loam clauses as declared, for the
// metastore.
func tableSettings(tc *parse.TableClauses, props iceberg.Properties) meta.TableSettings {
	var ts meta.TableSettings
	if tc != nil {
		for _, pf := range tc.Partition {
			switch pf.Transform {
			case "identity":
				ts.PartitionBy = append(ts.PartitionBy, pf.Column)
			case "bucket", "truncate":
				ts.PartitionBy = append(ts.PartitionBy, fmt.Sprintf("%s(%d, %s)", pf.Transform, pf.Param, pf.Column))
			default:
				ts.PartitionBy = append(ts.PartitionBy, pf.Transform+"("+pf.Column+")")
			}
		}
		for _, sf := range tc.Sort {
			item := sf.Column
			if sf.Desc {
				item += " DESC"
			}
			if sf.NullsFirst != sf.Desc {
				if sf.NullsFirst {
					item += " NULLS FIRST"
				} else {
					item += " NULLS LAST"
				}
			}
			ts.SortedBy = append(ts.SortedBy, item)
		}
	}
	ts.Writer = tableWriter(tc)
	ts.Retention = props[PropRetention]
	ts.RetentionColumn = props[PropRetentionColumn]
	if ms, err := strconv.ParseInt(props[link.CommitIntervalProperty], 10, 64); err == nil {
		ts.CommitInterval = time.Duration(ms) * time.Millisecond
	}
	return ts
}
