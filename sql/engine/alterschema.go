package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
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
	rv := at.Relation
	done := &Cursor{tag: "ALTER TABLE", sess: s}
	cat := s.catalog()
	defer cat.release()
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		if at.MissingOk && pgerr.From(err).Code == pgerr.UndefinedTable {
			s.notice("relation %q does not exist, skipping", rv.Relname)
			return done, nil
		}
		return nil, pgerr.From(err).WithPosition(parse.CharPos(q, int(rv.Location)))
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

// checkDrops refuses to drop a column that partitioning (of any spec the
// table has had: old files are read through theirs), the sort order or
// retention uses.
func (d *tableDef) checkDrops() error {
	for _, f := range d.dropped {
		for _, spec := range d.specs() {
			for _, pf := range spec.Fields() {
				if slices.Contains(pf.SourceIDs, f.ID) {
					return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop column %q because it is part of the partition key of relation %q", f.Name, d.name).
						WithHint("Iceberg keeps every partition spec the table has had, and files written under one are read through it.")
				}
			}
		}
		order := d.base.SortOrder()
		if d.order != nil {
			order = *d.order
		}
		for _, sf := range order.Fields() {
			if slices.Contains(sf.SourceIDs, f.ID) {
				return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop column %q because it is part of the sort order of relation %q", f.Name, d.name).
					WithHint("Change the sort order with ALTER TABLE … SET SORTED BY first.")
			}
		}
		if d.prop(PropRetention) != "" && d.prop(PropRetentionColumn) == f.Name {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop column %q because it is the retention column of relation %q", f.Name, d.name)
		}
	}
	return nil
}

// specs are the partition specs the table has had, and the statement's.
func (d *tableDef) specs() []iceberg.PartitionSpec {
	out := slices.Clone(d.base.Metadata().PartitionSpecs())
	if d.spec != nil {
		out = append(out, *d.spec)
	}
	return out
}

// schemaOut is the new schema, with the next schema ID.
func (d *tableDef) schemaOut() *iceberg.Schema {
	next := 0
	for _, s := range d.base.Metadata().Schemas() {
		next = max(next, s.ID+1)
	}
	return iceberg.NewSchemaWithIdentifiers(next, d.idents, d.fields...)
}

// finalProps fills d.props with the by-field-ID properties of the new
// definition.
func (d *tableDef) finalProps() {
	ids := make([]int, len(d.fields))
	for i, f := range d.fields {
		ids[i] = f.ID
	}
	d.props[ice.TypesProperty] = ice.EncodeTypes(ids, d.types)
	d.props[plan.PropDefaults] = plan.EncodeDefaults(ids, d.defaults)
	d.props[plan.PropIdentity] = plan.EncodeDefaults(ids, d.identity)
	var nn []int
	for _, id := range ids {
		if d.notNull[id] {
			nn = append(nn, id)
		}
	}
	d.props[propNotNull] = ""
	if len(nn) > 0 {
		b, _ := json.Marshal(nn)
		d.props[propNotNull] = string(b)
	}
	// Initial defaults of dropped fields go with them.
	if v := d.prop(icetable.InitialDefaultsProperty); v != "" {
		for _, f := range d.dropped {
			v, _ = icetable.WithInitialDefault(v, f.ID, nil)
		}
		d.props[icetable.InitialDefaultsProperty] = v
	}
}

// tableState is what an ALTER TABLE changes of a table's metadata, to
// put back on ROLLBACK.
type tableState struct {
	schemaID, specID, orderID int
	props                     map[string]string
}

// evolvedProps are the properties an ALTER TABLE may change.
var evolvedProps = []string{ice.TypesProperty, plan.PropDefaults, plan.PropIdentity, propNotNull,
	icetable.InitialDefaultsProperty, PropRetentionColumn}

func stateOf(t *table.Table) tableState {
	st := tableState{schemaID: t.Schema().ID, specID: specID(t), orderID: t.SortOrder().OrderID(), props: map[string]string{}}
	for _, k := range evolvedProps {
		st.props[k] = t.Properties()[k]
	}
	return st
}

// propUpdates sets or removes the properties whose values differ.
func propUpdates(t *table.Table, want map[string]string) []table.Update {
	set := iceberg.Properties{}
	var remove []string
	for k, v := range want {
		old, ok := t.Properties()[k]
		switch {
		case v == "" && ok:
			remove = append(remove, k)
		case v != "" && old != v:
			set[k] = v
		}
	}
	var ups []table.Update
	if len(set) > 0 {
		ups = append(ups, table.NewSetPropertiesUpdate(set))
	}
	if len(remove) > 0 {
		slices.Sort(remove)
		ups = append(ups, table.NewRemovePropertiesUpdate(remove))
	}
	return ups
}

// restore is the Change putting a table's schema, spec, sort order and
// evolved properties back as they were (ROLLBACK of an ALTER TABLE): the
// old ones are still in the metadata, made current again.
func restore(st tableState) icetable.Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		var ups []table.Update
		if t.Schema().ID != st.schemaID {
			ups = append(ups, table.NewSetCurrentSchemaUpdate(st.schemaID))
		}
		if specID(t) != st.specID {
			ups = append(ups, table.NewSetDefaultSpecUpdate(st.specID))
		}
		if t.SortOrder().OrderID() != st.orderID {
			ups = append(ups, table.NewSetDefaultSortOrderUpdate(st.orderID))
		}
		return nil, append(ups, propUpdates(t, st.props)...), nil
	}
}

// commitDef commits d as one metadata change, and the metastore's record
// of the table's clauses after it; ROLLBACK puts both back.
func (s *Session) commitDef(ctx context.Context, ti *plan.TableInfo, d *tableDef) error {
	d.finalProps()
	var sc *iceberg.Schema
	if d.schema {
		sc = d.schemaOut()
	}
	prev := stateOf(d.base)
	change := func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		if t.Schema().ID != prev.schemaID || specID(t) != prev.specID || t.SortOrder().OrderID() != prev.orderID {
			return nil, nil, pgerr.New("40001", "could not alter table %q: another ALTER TABLE changed it meanwhile", d.name)
		}
		reqs := []table.Requirement{table.AssertCurrentSchemaID(prev.schemaID), table.AssertDefaultSpecID(prev.specID),
			table.AssertDefaultSortOrderID(prev.orderID)}
		var ups []table.Update
		if sc != nil {
			ups = append(ups, table.NewAddSchemaUpdate(sc), table.NewSetCurrentSchemaUpdate(-1))
		}
		if d.spec != nil {
			ups = append(ups, table.NewAddPartitionSpecUpdate(d.spec, false), table.NewSetDefaultSpecUpdate(-1))
		}
		if d.order != nil {
			ups = append(ups, table.NewAddSortOrderUpdate(d.order), table.NewSetDefaultSortOrderUpdate(-1))
		}
		return reqs, append(ups, propUpdates(t, d.props)...), nil
	}
	prevSettings, serr := s.eng.meta.TableSettings(ctx, ti.Namespace, ti.Name)
	s.onRollback(func(ctx context.Context) error {
		if err := s.eng.link.Alter(ctx, ti.Namespace, ti.Name, restore(prev)); err != nil {
			return err
		}
		if serr == nil {
			return s.eng.meta.PutTableSettings(ctx, ti.Namespace, ti.Name, prevSettings)
		}
		return nil
	})
	if err := s.eng.link.Alter(ctx, ti.Namespace, ti.Name, change); err != nil {
		return fmt.Errorf("alter table %s.%s: %w", ti.Namespace, ti.Name, err)
	}
	return s.syncSettings(ctx, ti.Namespace, ti.Name)
}

// anyRow says whether a query returns a row, for the checks of existing
// rows (SET NOT NULL). It sees what the session sees, its own uncommitted
// writes included.
func (s *Session) anyRow(ctx context.Context, q string) (bool, error) {
	stmts, err := parse.Parse(q)
	if err != nil {
		return false, err
	}
	cat := s.catalog()
	defer cat.release()
	p := plan.New(ctx, cat, s.exprCtx(), q, nil, nil)
	query, err := p.Select(stmts[0].Node.GetSelectStmt())
	if err != nil {
		return false, err
	}
	root := query.Root
	if err := root.Open(ctx); err != nil {
		root.Close()
		return false, err
	}
	defer root.Close()
	for {
		rec, err := root.Next(ctx)
		if err != nil || rec == nil {
			return false, err
		}
		n := rec.NumRows()
		rec.Release()
		if n > 0 {
			return true, nil
		}
	}
}

func specID(t *table.Table) int {
	spec := t.Spec()
	return spec.ID()
}

// conformTail passes the block's own uncommitted rows on in the schema of
// t, the table as the statement reads it: an ALTER of another session
// may have come since the write log's state, which Txn.Batches conforms
// to, was read.
func conformTail(t *table.Table, rows func(yield func(arrow.RecordBatch, error) bool)) func(yield func(arrow.RecordBatch, error) bool) {
	return func(yield func(arrow.RecordBatch, error) bool) {
		defaults, err := icetable.InitialDefaultsOf(t.Properties())
		if err != nil {
			yield(nil, err)
			return
		}
		rows(func(rec arrow.RecordBatch, err error) bool {
			if err != nil {
				return yield(nil, err)
			}
			out, err := icetable.Conform(rec, t.Schema(), defaults)
			rec.Release()
			if err != nil {
				yield(nil, err)
				return false
			}
			return yield(out, nil)
		})
	}
}
