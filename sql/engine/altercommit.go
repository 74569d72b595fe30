package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
)

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
	root, err := query.Build(ctx)
	if err != nil {
		return false, err
	}
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
