package engine

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go/table"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
)

// alterTable runs ALTER TABLE … ALTER COLUMN … SET DEFAULT / DROP DEFAULT,
// the only ALTER TABLE actions Loam has. The defaults are an Iceberg table
// property, stored at once like COMMENT; ROLLBACK undoes them.
// Other actions are schema and partition evolution (alterschema.go).
func (s *Session) alterTable(ctx context.Context, at *pg.AlterTableStmt, tc *parse.TableClauses, q string) (*Cursor, error) {
	if at.Objtype != pg.ObjectType_OBJECT_TABLE {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER %s is not supported", objectKind(at.Objtype))
	}
	for _, n := range at.Cmds {
		if c := n.GetAlterTableCmd(); c == nil || c.Subtype != pg.AlterTableType_AT_ColumnDefault {
			return s.evolveTable(ctx, at, tc, q)
		}
	}
	done := &Cursor{tag: "ALTER TABLE", sess: s}
	cat := s.catalog()
	defer cat.release()
	ti, err := s.alterTarget(ctx, cat, at, q)
	if err != nil || ti == nil {
		return orNil(done, err), err
	}
	p := plan.New(ctx, cat, s.exprCtx(), q, nil, nil)
	set := map[string]string{}
	for _, n := range at.Cmds {
		c := n.GetAlterTableCmd()
		idx := -1
		for i, name := range ti.Columns {
			if name == c.Name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", c.Name, ti.Name)
		}
		text := ""
		if c.Def != nil {
			if text, err = p.CheckDefault(c.Def, c.Name, ti.Types[idx]); err != nil {
				return nil, err
			}
		}
		set[c.Name] = text
	}
	prev := ""
	if ti.Table != nil {
		prev = ti.Table.Properties()[plan.PropDefaults]
	}
	// The metastore's record of the table's clauses follows the property,
	// and is put back with it.
	prevSettings, serr := s.eng.meta.TableSettings(ctx, ti.Namespace, ti.Name)
	s.onRollback(func(ctx context.Context) error {
		if serr == nil {
			if err := s.eng.meta.PutTableSettings(ctx, ti.Namespace, ti.Name, prevSettings); err != nil {
				return err
			}
		}
		return s.eng.link.Alter(ctx, ti.Namespace, ti.Name, icetable.SetProperty(plan.PropDefaults, prev))
	})
	if err := s.eng.link.Alter(ctx, ti.Namespace, ti.Name, setDefaults(set)); err != nil {
		return nil, fmt.Errorf("alter table %s.%s: %w", ti.Namespace, ti.Name, err)
	}
	if settings, err := s.eng.meta.TableSettings(ctx, ti.Namespace, ti.Name); err == nil {
		for name, text := range set {
			if text == "" {
				delete(settings.Defaults, name)
				continue
			}
			if settings.Defaults == nil {
				settings.Defaults = map[string]string{}
			}
			settings.Defaults[name] = pgcatalog.DefaultText(text, false)
		}
		if err := s.eng.meta.PutTableSettings(ctx, ti.Namespace, ti.Name, settings); err != nil {
			return nil, err
		}
	}
	return done, nil
}

// setDefaults sets (text) or drops ("") the defaults of the named columns,
// computed on the table's current metadata.
func setDefaults(set map[string]string) icetable.Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		fields := t.Schema().Fields()
		ids := make([]int, len(fields))
		for i, f := range fields {
			ids[i] = f.ID
		}
		cur, err := plan.DecodeDefaults(t.Properties()[plan.PropDefaults], ids)
		if err != nil {
			return nil, nil, err
		}
		if cur == nil {
			cur = make([]string, len(ids))
		}
		for i, f := range fields {
			if text, ok := set[f.Name]; ok {
				cur[i] = text
			}
		}
		return icetable.SetProperty(plan.PropDefaults, plan.EncodeDefaults(ids, cur))(t)
	}
}

// alterTarget is the table an ALTER TABLE names. Under IF EXISTS a missing
// one is a notice, and both results are nil: the statement does nothing.
func (s *Session) alterTarget(ctx context.Context, cat *catalog, at *pg.AlterTableStmt, q string) (*plan.TableInfo, error) {
	rv := at.Relation
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		if at.MissingOk && pgerr.From(err).Code == pgerr.UndefinedTable {
			s.notice("relation %q does not exist, skipping", rv.Relname)
			return nil, nil
		}
		return nil, pgerr.From(err).WithPosition(parse.CharPos(q, int(rv.Location)))
	}
	if ti.External {
		return nil, link.ExternalError("alter", ti.Name)
	}
	return ti, nil
}

// orNil is done, or nil with an error.
func orNil(done *Cursor, err error) *Cursor {
	if err != nil {
		return nil
	}
	return done
}
