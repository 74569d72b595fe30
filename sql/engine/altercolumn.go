package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/types"
)

// addColumn is ADD COLUMN [IF NOT EXISTS] name type [DEFAULT d] [NOT NULL].
func (s *Session) addColumn(ctx context.Context, d *tableDef, ti *plan.TableInfo, p *plan.Planner, c *pg.AlterTableCmd, q string) error {
	cd := c.Def.GetColumnDef()
	at := func(loc int32) int { return parse.CharPos(q, int(loc)) }
	if d.index(cd.Colname) >= 0 {
		if c.MissingOk {
			s.notice("column %q of relation %q already exists, skipping", cd.Colname, d.name)
			return nil
		}
		return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", cd.Colname, d.name)
	}
	if _, serial := serialType(cd.TypeName); serial {
		return pgerr.New(pgerr.FeatureNotSupported, "ADD COLUMN of a serial column is not supported yet").WithPosition(at(cd.Location))
	}
	t, err := plan.TypeOf(cd.TypeName, q)
	if err != nil {
		return err
	}
	it, err := ice.ToIceberg(t)
	if err != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "column %q: %v", cd.Colname, err).WithPosition(at(cd.Location))
	}
	notNull, def := cd.IsNotNull, ""
	for _, n := range cd.Constraints {
		con := n.GetConstraint()
		switch con.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			notNull = true
		case pg.ConstrType_CONSTR_NULL:
		case pg.ConstrType_CONSTR_DEFAULT:
			if def, err = p.CheckDefault(con.RawExpr, cd.Colname, t); err != nil {
				return err
			}
		default:
			return pgerr.New(pgerr.FeatureNotSupported, "ADD COLUMN with constraint %s is not supported yet; only NOT NULL and DEFAULT are",
				parse.ConstraintName(con.Contype)).WithPosition(at(con.Location))
		}
	}
	id := d.nextID
	d.nextID++
	if l, ok := it.(*iceberg.ListType); ok {
		// An array's element is a field of its own, with an ID of its own.
		it = &iceberg.ListType{ElementID: d.nextID, Element: l.Element, ElementRequired: l.ElementRequired}
		d.nextID++
	}
	// The rows already there read the default (PostgreSQL's "missing
	// value"): evaluated once, kept as the field's initial default.
	var initial arrow.Array
	if def != "" {
		v, volatile, err := p.EvalDefault(def, t)
		if err != nil {
			return err
		}
		if volatile {
			has, err := s.anyRow(ctx, fmt.Sprintf("SELECT 1 FROM %s.%s LIMIT 1", expr.QuoteIdent(ti.Namespace), expr.QuoteIdent(ti.Name)))
			if err != nil {
				return err
			}
			if has {
				return pgerr.New(pgerr.FeatureNotSupported, "ADD COLUMN with a volatile DEFAULT is not supported on a table that has rows").
					WithHint("PostgreSQL would rewrite the table to give each row its own value; Loam keeps data files as written. Add the column without the default, or with a constant one.")
			}
		} else {
			defer v.Release()
			adt, err := table.TypeToArrowType(it, true, false)
			if err != nil {
				return err
			}
			if initial, err = ice.ToArrow(v, t, adt); err != nil {
				return err
			}
			defer initial.Release()
		}
	}
	if notNull && (def == "" || initial != nil && initial.IsNull(0)) {
		has, err := s.anyRow(ctx, fmt.Sprintf("SELECT 1 FROM %s.%s LIMIT 1", expr.QuoteIdent(ti.Namespace), expr.QuoteIdent(ti.Name)))
		if err != nil {
			return err
		}
		if has {
			return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", cd.Colname, d.name)
		}
	}
	if initial != nil && !initial.IsNull(0) {
		if err := icetable.CheckInitialDefault(initial); err != nil {
			return pgerr.Wrap(pgerr.FeatureNotSupported, err, "ADD COLUMN %s", cd.Colname)
		}
		v, err := icetable.WithInitialDefault(d.prop(icetable.InitialDefaultsProperty), id, initial)
		if err != nil {
			return err
		}
		d.props[icetable.InitialDefaultsProperty] = v
	}
	d.fields = append(d.fields, iceberg.NestedField{ID: id, Name: cd.Colname, Type: it})
	d.types = append(d.types, t)
	d.defaults = append(d.defaults, def)
	d.identity = append(d.identity, "")
	if notNull {
		d.notNull[id] = true
	}
	d.newField[id] = true
	d.schema = true
	return nil
}

// alterColumnType is ALTER COLUMN … TYPE, for the changes Iceberg makes
// without rewriting data: int → bigint, real → double precision, a
// numeric of more precision at the same scale; and those Loam's recorded
// type alone tells apart (smallint → integer, varchar(n) → varchar(m ≥ n)
// or text).
func alterColumnType(d *tableDef, c *pg.AlterTableCmd, q string) error {
	cd := c.Def.GetColumnDef()
	i := d.index(c.Name)
	if i < 0 {
		return d.noColumn(c.Name)
	}
	if cd.RawDefault != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER COLUMN … TYPE … USING is not supported: Loam keeps data files as written and cannot convert their values").
			WithPosition(parse.CharPos(q, int(parse.NodeLocation(cd.RawDefault))))
	}
	to, err := plan.TypeOf(cd.TypeName, q)
	if err != nil {
		return err
	}
	from := d.types[i]
	if from == to {
		return nil
	}
	it, err := ice.ToIceberg(to)
	if err != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "column %q: %v", c.Name, err)
	}
	if !typeWidens(from, to) {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot change column %q from %s to %s", c.Name, from, to).
			WithHint("Iceberg changes a column's type only by widening it: integer to bigint, real to double precision, numeric to more precision at the same scale. Other changes would rewrite every data file.")
	}
	if !d.fields[i].Type.Equals(it) {
		d.fields[i].Type = it
		d.schema = true
	}
	d.types[i] = to
	return nil
}

// typeWidens says whether a column of type from can be read as to without
// rewriting its data.
func typeWidens(from, to types.T) bool {
	if from == to {
		return true
	}
	switch from.Kind {
	case types.Int2:
		return to.Kind == types.Int4 || to.Kind == types.Int8
	case types.Int4:
		return to.Kind == types.Int8
	case types.Float4:
		return to.Kind == types.Float8
	case types.Numeric:
		if to.Kind != types.Numeric {
			return false
		}
		fw, fs, tw, ts := from.Width, from.Scale, to.Width, to.Scale
		if fw < 0 {
			fw, fs = ice.DefaultNumeric.Width, ice.DefaultNumeric.Scale
		}
		if tw < 0 {
			tw, ts = ice.DefaultNumeric.Width, ice.DefaultNumeric.Scale
		}
		return fs == ts && tw >= fw
	case types.Varchar:
		return to.Kind == types.Text || to.Kind == types.Varchar && (to.Width < 0 || from.Width >= 0 && to.Width >= from.Width)
	}
	return false
}
