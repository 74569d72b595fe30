package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
)

// setClauses is ALTER TABLE … SET PARTITIONED BY (…) and SET SORTED BY
// (…): a new partition spec or sort order for the data written from now
// on. Files already written keep theirs (Iceberg reads each file through
// the spec it was written under). An empty list makes the table
// unpartitioned or unsorted.
func (d *tableDef) setClauses(tc *parse.TableClauses) error {
	sc := d.schemaOut()
	byName := map[string]int{}
	for i, f := range d.fields {
		byName[f.Name] = i
	}
	if tc.SetPartition {
		spec, err := d.evolvedSpec(tc, sc, byName)
		if err != nil {
			return err
		}
		d.spec = spec
	}
	if tc.SetSort {
		order := table.UnsortedSortOrder
		if len(tc.Sort) > 0 {
			var err error
			if order, err = sortOrder(tc, sc, byName); err != nil {
				return err
			}
		}
		d.order = &order
	}
	return nil
}

// evolvedSpec builds the spec PARTITIONED BY names, with partition field
// IDs as Iceberg wants them across specs: a field an earlier spec had
// (same source column and transform) keeps its ID and name, a new one
// takes an ID no spec used.
func (d *tableDef) evolvedSpec(tc *parse.TableClauses, sc *iceberg.Schema, byName map[string]int) (*iceberg.PartitionSpec, error) {
	if len(tc.Partition) == 0 {
		spec := iceberg.NewPartitionSpec()
		return &spec, nil
	}
	named, err := partitionSpec(tc, sc, byName, d.types)
	if err != nil {
		return nil, err
	}
	old := d.base.Metadata().PartitionSpecs()
	last := iceberg.PartitionDataIDStart - 1
	if p := d.base.Metadata().LastPartitionSpecID(); p != nil {
		last = max(last, *p)
	}
	for _, s := range old {
		last = max(last, s.LastAssignedFieldID())
	}
	var opts []iceberg.PartitionOption
	for _, pf := range named.Fields() {
		id, name := 0, pf.Name
		for _, s := range old {
			for _, of := range s.Fields() {
				if slices.Equal(of.SourceIDs, pf.SourceIDs) && of.Transform.String() == pf.Transform.String() {
					id, name = of.FieldID, of.Name
				}
			}
		}
		if id == 0 {
			last++
			id = last
		}
		opts = append(opts, iceberg.AddPartitionFieldBySourceID(pf.SourceIDs[0], name, pf.Transform, sc, &id))
	}
	spec, err := iceberg.NewPartitionSpecOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("PARTITIONED BY: %w", err)
	}
	return &spec, nil
}

// syncSettings rewrites the metastore's record of a table's clauses from
// its Iceberg metadata after an ALTER TABLE: partitioning, sort order,
// primary key, defaults and retention column are kept there by column
// name.
func (s *Session) syncSettings(ctx context.Context, ns, name string) error {
	settings, err := s.eng.meta.TableSettings(ctx, ns, name)
	if err != nil {
		return nil // a table without settings (made outside Loam) keeps none
	}
	t, err := s.eng.store.Load(ctx, ns, name)
	if err != nil {
		return err
	}
	ti, err := tableInfo(ns, name, t)
	if err != nil {
		return err
	}
	settingsFrom(&settings, t, ti.Columns, ti.Defaults)
	return s.eng.meta.PutTableSettings(ctx, ns, name, settings)
}

// settingsFrom sets the by-name parts of settings from table t.
func settingsFrom(settings *meta.TableSettings, t *table.Table, cols, defaults []string) {
	sc := t.Schema()
	colName := func(id int) string {
		if f, ok := sc.FindFieldByID(id); ok {
			return f.Name
		}
		return fmt.Sprint(id)
	}
	settings.PartitionBy = nil
	spec := t.Spec()
	for _, pf := range spec.Fields() {
		col := colName(pf.SourceIDs[0])
		switch tr := pf.Transform.(type) {
		case iceberg.IdentityTransform:
			settings.PartitionBy = append(settings.PartitionBy, col)
		case iceberg.BucketTransform:
			settings.PartitionBy = append(settings.PartitionBy, fmt.Sprintf("bucket(%d, %s)", tr.NumBuckets, col))
		case iceberg.TruncateTransform:
			settings.PartitionBy = append(settings.PartitionBy, fmt.Sprintf("truncate(%d, %s)", tr.Width, col))
		default:
			settings.PartitionBy = append(settings.PartitionBy, tr.String()+"("+col+")")
		}
	}
	settings.SortedBy = nil
	for _, sf := range t.SortOrder().Fields() {
		item := colName(sf.SourceIDs[0])
		desc := sf.Direction == table.SortDESC
		if desc {
			item += " DESC"
		}
		if nf := sf.NullOrder == table.NullsFirst; nf != desc {
			if nf {
				item += " NULLS FIRST"
			} else {
				item += " NULLS LAST"
			}
		}
		settings.SortedBy = append(settings.SortedBy, item)
	}
	settings.Keys = nil
	for _, id := range sc.IdentifierFieldIDs {
		settings.Keys = append(settings.Keys, colName(id))
	}
	settings.Defaults = nil
	for i, d := range defaults {
		if d != "" {
			if settings.Defaults == nil {
				settings.Defaults = map[string]string{}
			}
			settings.Defaults[cols[i]] = pgcatalog.DefaultText(d, false)
		}
	}
	settings.RetentionColumn = t.Properties()[PropRetentionColumn]
}
