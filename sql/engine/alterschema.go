package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// Schema and partition evolution: ALTER TABLE … ADD/DROP COLUMN, ALTER
// COLUMN … TYPE / SET and DROP NOT NULL / SET and DROP DEFAULT, RENAME
// COLUMN, and Loam's SET PARTITIONED BY (…) / SET SORTED BY (…). Each
// statement is one Iceberg metadata commit (a new current schema, partition
// spec or sort order, and the properties Loam keeps by field ID beside
// them); data files stay as written and are read by field ID under the new
// schema. A column always gets a new field ID, so a dropped column's values
// never come back under a re-added namesake.

// propNotNull lists the field IDs ALTER TABLE made NOT NULL. Iceberg's
// required flag cannot say it: files written before a column was added
// lack it, and a reader (iceberg-go's among them) refuses a required
// field a file lacks; and making a field required is no compatible change
// in Iceberg. The column stays optional there and Loam enforces NOT NULL.
const propNotNull = "loam.not-null"

// notNullIDs reads propNotNull.
func notNullIDs(props iceberg.Properties) map[int]bool {
	var ids []int
	if v := props[propNotNull]; v != "" {
		_ = json.Unmarshal([]byte(v), &ids)
	}
	out := map[int]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// tableDef is a table's definition while an ALTER TABLE changes it.
type tableDef struct {
	name     string
	base     *table.Table
	fields   []iceberg.NestedField
	types    []types.T
	defaults []string // stored DEFAULT texts, "" for none
	identity []string
	idents   []int // identifier (primary key) field IDs
	notNull  map[int]bool
	nextID   int
	props    map[string]string // properties changed, "" removes
	// spec and order are set when the statement changes them.
	spec     *iceberg.PartitionSpec
	order    *table.SortOrder
	newField map[int]bool // fields the statement adds
	dropped  []iceberg.NestedField
	schema   bool // the schema changes
}

func newTableDef(ti *plan.TableInfo) *tableDef {
	t := ti.Table
	sc := t.Schema()
	d := &tableDef{name: ti.Name, base: t, fields: sc.Fields(), types: slices.Clone(ti.Types),
		defaults: make([]string, len(ti.Columns)), identity: make([]string, len(ti.Columns)),
		idents: slices.Clone(sc.IdentifierFieldIDs), notNull: notNullIDs(t.Properties()),
		props: map[string]string{}, newField: map[int]bool{}}
	copy(d.defaults, ti.Defaults)
	copy(d.identity, ti.Identity)
	d.nextID = max(t.Metadata().LastColumnID(), sc.HighestFieldID()) + 1
	for _, f := range d.fields {
		d.nextID = max(d.nextID, f.ID+1)
	}
	return d
}

func (d *tableDef) index(name string) int {
	for i, f := range d.fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func (d *tableDef) prop(key string) string {
	if v, ok := d.props[key]; ok {
		return v
	}
	return d.base.Properties()[key]
}

func (d *tableDef) noColumn(name string) error {
	return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, d.name)
}

// evolveTable runs an ALTER TABLE with actions beyond SET/DROP DEFAULT.
// Every action of the statement applies to one definition, committed at
// once: all of them happen or none.
func (s *Session) evolveTable(ctx context.Context, at *pg.AlterTableStmt, tc *parse.TableClauses, q string) (*Cursor, error) {
	done := &Cursor{tag: "ALTER TABLE", sess: s}
	cat := s.catalog()
	defer cat.release()
	ti, err := s.alterTarget(ctx, cat, at, q)
	if err != nil || ti == nil {
		return orNil(done, err), err
	}
	if ti.Table == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", ti.Name)
	}
	d := newTableDef(ti)
	p := plan.New(ctx, cat, s.exprCtx(), q, nil, nil)
	for _, n := range at.Cmds {
		c := n.GetAlterTableCmd()
		if c == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "this ALTER TABLE action is not supported")
		}
		if err := s.alterAction(ctx, d, ti, p, c, tc, q); err != nil {
			return nil, err
		}
	}
	if err := d.checkDrops(); err != nil {
		return nil, err
	}
	key := link.Key{NS: ti.Namespace, Name: ti.Name}
	for _, f := range d.dropped {
		if err := s.refuseColumnViews(ctx, key, f.Name, true); err != nil {
			return nil, err
		}
	}
	if err := s.commitDef(ctx, ti, d); err != nil {
		return nil, err
	}
	for _, f := range d.dropped {
		if err := s.dropColumnSequences(ctx, ti.Namespace, ti.Name, f.Name); err != nil {
			return nil, err
		}
	}
	return done, nil
}

// alterAction applies one action of an ALTER TABLE to d.
func (s *Session) alterAction(ctx context.Context, d *tableDef, ti *plan.TableInfo, p *plan.Planner, c *pg.AlterTableCmd, tc *parse.TableClauses, q string) error {
	switch c.Subtype {
	case pg.AlterTableType_AT_AddColumn:
		return s.addColumn(ctx, d, ti, p, c, q)
	case pg.AlterTableType_AT_AddIdentity:
		return s.addIdentity(ctx, d, ti, c, q)
	case pg.AlterTableType_AT_DropConstraint:
		return s.dropConstraint(ctx, d, ti, c)
	case pg.AlterTableType_AT_DropColumn:
		i := d.index(c.Name)
		if i < 0 {
			if c.MissingOk {
				s.notice("column %q of relation %q does not exist, skipping", c.Name, d.name)
				return nil
			}
			return d.noColumn(c.Name)
		}
		if len(d.fields) == 1 {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot drop column %q: it is the last column of %q, and an Iceberg table needs one", c.Name, d.name)
		}
		f := d.fields[i]
		if slices.Contains(d.idents, f.ID) {
			// PostgreSQL drops the primary key with one of its columns.
			d.idents = nil
		}
		d.dropped = append(d.dropped, f)
		d.fields = slices.Delete(d.fields, i, i+1)
		d.types = slices.Delete(d.types, i, i+1)
		d.defaults = slices.Delete(d.defaults, i, i+1)
		d.identity = slices.Delete(d.identity, i, i+1)
		delete(d.notNull, f.ID)
		d.schema = true
		return nil
	case pg.AlterTableType_AT_AlterColumnType:
		return alterColumnType(d, c, q)
	case pg.AlterTableType_AT_SetNotNull:
		i := d.index(c.Name)
		if i < 0 {
			return d.noColumn(c.Name)
		}
		f := d.fields[i]
		if f.Required || d.notNull[f.ID] {
			return nil
		}
		if !d.newField[f.ID] {
			has, err := s.anyRow(ctx, fmt.Sprintf("SELECT 1 FROM %s.%s WHERE %s IS NULL LIMIT 1",
				expr.QuoteIdent(ti.Namespace), expr.QuoteIdent(ti.Name), expr.QuoteIdent(f.Name)))
			if err != nil {
				return err
			}
			if has {
				return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", f.Name, d.name)
			}
		}
		d.notNull[f.ID] = true
		return nil
	case pg.AlterTableType_AT_DropNotNull:
		i := d.index(c.Name)
		if i < 0 {
			return d.noColumn(c.Name)
		}
		f := &d.fields[i]
		if slices.Contains(d.idents, f.ID) {
			return pgerr.New(pgerr.InvalidTableDefinition, "column %q is in a primary key", f.Name)
		}
		if d.identity[i] != "" {
			return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is an identity column", f.Name, d.name)
		}
		delete(d.notNull, f.ID)
		if f.Required {
			f.Required = false // optional is a compatible change in Iceberg
			d.schema = true
		}
		return nil
	case pg.AlterTableType_AT_ColumnDefault:
		i := d.index(c.Name)
		if i < 0 {
			return d.noColumn(c.Name)
		}
		text := ""
		if c.Def != nil {
			var err error
			if text, err = p.CheckDefault(c.Def, c.Name, d.types[i]); err != nil {
				return err
			}
		}
		d.defaults[i] = text
		return nil
	case pg.AlterTableType_AT_AddConstraint:
		if ok, err := s.addKey(ctx, d, ti, c, q); ok {
			return err
		}
		// CHECK and FOREIGN KEY (addconstraint.go).
		return s.addConstraint(ctx, d, ti, c, q)
	case pg.AlterTableType_AT_DropOids:
		// SET PARTITIONED BY / SET SORTED BY, which the parser put in as
		// SET WITHOUT OIDS (sql/parse/alterclauses.go); a SET WITHOUT
		// OIDS of the user's is a no-op, as in PostgreSQL.
		if tc == nil {
			return nil
		}
		return d.setClauses(tc)
	}
	return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE … %s is not supported", parse.AlterTableActionName(c.Subtype)).
		WithPosition(parse.CharPos(q, int(parse.NodeLocation(c.Def))))
}
