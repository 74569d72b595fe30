package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/maint"
	"github.com/loamdb/loam/types"
)

// PropSnapshotRetention is the text of a table's snapshot_retention, for
// \d+ (maint.SnapshotRetentionProperty holds it machine-readably).
const PropSnapshotRetention = pgcatalog.PropSnapshotRetention

// optionProps are the table properties each WITH (…) option of ALTER
// TABLE … SET / RESET owns: RESET removes them all.
var optionProps = map[string][]string{
	"retention":          {PropRetention, maint.RetentionSpecProperty, PropRetentionColumn},
	"snapshot_retention": {PropSnapshotRetention, maint.SnapshotRetentionProperty},
}

// snapshotRetentionOption reads WITH (snapshot_retention = 'interval'):
// how long a table's old snapshots are kept for time travel.
func snapshotRetentionOption(o parse.Option, props iceberg.Properties) error {
	if o.Column != "" {
		return pgerr.New(pgerr.SyntaxError, "snapshot_retention takes no ON column").WithPosition(o.ColPos)
	}
	iv, err := types.ParseInterval(o.Value)
	if err != nil {
		return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid snapshot_retention %q: not an interval", o.Value).WithPosition(o.Pos)
	}
	if iv.Months < 0 || iv.Days < 0 || iv.Micros < 0 || iv.Months == 0 && iv.Days == 0 && iv.Micros == 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "snapshot_retention must be positive").WithPosition(o.Pos)
	}
	props[PropSnapshotRetention] = iv.String()
	props[maint.SnapshotRetentionProperty] = maint.RetentionSpec(iv.Months, iv.Days, iv.Micros)
	return nil
}

// tableOptionsAlter says whether an ALTER TABLE only sets or resets WITH
// (…) options, which alterTableOptions runs.
func tableOptionsAlter(at *pg.AlterTableStmt) bool {
	for _, n := range at.Cmds {
		c := n.GetAlterTableCmd()
		if c == nil || c.Subtype != pg.AlterTableType_AT_SetRelOptions && c.Subtype != pg.AlterTableType_AT_ResetRelOptions {
			return false
		}
	}
	return len(at.Cmds) > 0
}

// alterTableOptions runs ALTER TABLE t SET (retention = '30 days' ON ts,
// snapshot_retention = '2 days') and RESET (retention, snapshot_retention):
// the table's properties change at once (queries hide by the new
// retention from the next statement on), and so does the metastore's
// record of its clauses; ROLLBACK puts both back.
func (s *Session) alterTableOptions(ctx context.Context, at *pg.AlterTableStmt, ps parse.Statement, q string) (*Cursor, error) {
	rv := at.Relation
	if at.Objtype != pg.ObjectType_OBJECT_TABLE {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER %s is not supported", objectKind(at.Objtype))
	}
	done := &Cursor{tag: "ALTER TABLE", sess: s}
	cat := s.catalog()
	defer cat.release()
	ti, err := s.alterTarget(ctx, cat, at, q)
	if err != nil || ti == nil {
		return orNil(done, err), err
	}
	if ti.ViewSQL != "" || ti.Table == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", ti.Name).WithPosition(parse.CharPos(q, int(rv.Location)))
	}
	byName := map[string]int{}
	for i, c := range ti.Columns {
		byName[c] = i
	}
	// set holds the new value of every property the statement touches,
	// "" for removed.
	set := map[string]string{}
	for _, n := range at.Cmds {
		c := n.GetAlterTableCmd()
		for _, d := range c.Def.GetList().GetItems() {
			de := d.GetDefElem()
			if de == nil {
				continue
			}
			owned, ok := optionProps[de.Defname]
			if !ok || de.Defnamespace != "" {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter %q", de.Defname).WithPosition(parse.CharPos(q, int(de.Location)))
			}
			for _, k := range owned {
				set[k] = ""
			}
			if c.Subtype == pg.AlterTableType_AT_ResetRelOptions {
				continue
			}
			o := optionOf(ps, de, q)
			props := iceberg.Properties{}
			if de.Defname == "snapshot_retention" {
				err = snapshotRetentionOption(o, props)
			} else {
				err = tableOptions(&parse.TableClauses{Options: []parse.Option{o}}, byName, ti.Types, props)
			}
			if err != nil {
				return nil, err
			}
			maps.Copy(set, props)
		}
	}
	prev := map[string]string{}
	for k := range set {
		prev[k] = ti.Table.Properties()[k]
	}
	prevSettings, serr := s.eng.meta.TableSettings(ctx, ti.Namespace, ti.Name)
	s.onRollback(func(ctx context.Context) error {
		if serr == nil {
			if err := s.eng.meta.PutTableSettings(ctx, ti.Namespace, ti.Name, prevSettings); err != nil {
				return err
			}
		}
		return s.eng.link.Alter(ctx, ti.Namespace, ti.Name, setProperties(prev))
	})
	if err := s.eng.link.Alter(ctx, ti.Namespace, ti.Name, setProperties(set)); err != nil {
		return nil, fmt.Errorf("alter table %s.%s: %w", ti.Namespace, ti.Name, err)
	}
	if settings, err := s.eng.meta.TableSettings(ctx, ti.Namespace, ti.Name); err == nil {
		if v, ok := set[PropRetention]; ok {
			settings.Retention, settings.RetentionColumn = v, set[PropRetentionColumn]
		}
		if err := s.eng.meta.PutTableSettings(ctx, ti.Namespace, ti.Name, settings); err != nil {
			return nil, err
		}
	}
	return done, nil
}

// optionOf is the option of a SET (…) element as the parser split it off
// (with its ON column), or as pg_query has it when it was not.
func optionOf(ps parse.Statement, de *pg.DefElem, q string) parse.Option {
	if ps.Table != nil {
		for _, o := range ps.Table.Options {
			if o.Key == de.Defname {
				return o
			}
		}
	}
	o := parse.Option{Key: de.Defname, Pos: parse.CharPos(q, int(de.Location))}
	switch {
	case de.Arg.GetString_() != nil:
		o.Value = de.Arg.GetString_().Sval
	case de.Arg.GetInteger() != nil:
		o.Value = fmt.Sprint(de.Arg.GetInteger().Ival)
	case de.Arg.GetFloat() != nil:
		o.Value = de.Arg.GetFloat().Fval
	}
	return o
}

// setProperties sets table properties, removing those set to "".
func setProperties(set map[string]string) icetable.Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		cur := t.Properties()
		put := iceberg.Properties{}
		var remove []string
		for _, k := range slices.Sorted(maps.Keys(set)) {
			v := set[k]
			old, has := cur[k]
			switch {
			case v == "" && has:
				remove = append(remove, k)
			case v != "" && (!has || old != v):
				put[k] = v
			}
		}
		var ups []table.Update
		if len(put) > 0 {
			ups = append(ups, table.NewSetPropertiesUpdate(put))
		}
		if len(remove) > 0 {
			ups = append(ups, table.NewRemovePropertiesUpdate(remove))
		}
		return nil, ups, nil
	}
}
