package plan_test

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/types"
)

// fakeCatalog resolves a fixed set of tables whose Iceberg metadata lives
// in memory only: no files, no snapshot, no write log. Plans over it are
// the planner's alone, with nothing read from storage.
type fakeCatalog struct {
	tables map[string]*plan.TableInfo
}

// fakeColumn is a column of a fake table: its SQL type and whether it is
// NOT NULL.
type fakeColumn struct {
	name     string
	t        types.T
	required bool
}

// newFakeCatalog holds the tables the golden plans query: an LLM call log
// partitioned by day and sorted like a Loam table, and two small tables
// to join it with.
func newFakeCatalog() (*fakeCatalog, error) {
	c := &fakeCatalog{tables: map[string]*plan.TableInfo{}}
	for _, def := range []struct {
		name string
		cols []fakeColumn
		day  string // partition by day(col) when set
	}{
		{name: "llm_calls", day: "ts", cols: []fakeColumn{
			{"ts", types.TTimestampTZ, true}, {"tenant", types.TText, true}, {"model", types.TText, false},
			{"tokens", types.TInt8, false}, {"cost", types.TFloat8, false}, {"latency_ms", types.TInt4, false},
		}},
		{name: "tenants", cols: []fakeColumn{
			{"tenant", types.TText, true}, {"plan", types.TText, false}, {"seats", types.TInt4, false},
		}},
		{name: "evals", cols: []fakeColumn{
			{"id", types.TInt8, true}, {"tenant", types.TText, false}, {"score", types.TFloat8, false}, {"at", types.TTimestampTZ, false},
		}},
	} {
		ti, err := fakeTable(def.name, def.cols, def.day)
		if err != nil {
			return nil, fmt.Errorf("fake table %s: %w", def.name, err)
		}
		c.tables[def.name] = ti
	}
	return c, nil
}

func fakeTable(name string, cols []fakeColumn, day string) (*plan.TableInfo, error) {
	fields := make([]iceberg.NestedField, len(cols))
	ti := &plan.TableInfo{Namespace: "public", Name: name}
	for i, c := range cols {
		it, err := ice.ToIceberg(c.t)
		if err != nil {
			return nil, err
		}
		fields[i] = iceberg.NestedField{ID: i + 1, Name: c.name, Type: it, Required: c.required}
		ti.Columns = append(ti.Columns, c.name)
		ti.Types = append(ti.Types, c.t)
		ti.Required = append(ti.Required, c.required)
	}
	sc := iceberg.NewSchema(0, fields...)
	spec := iceberg.UnpartitionedSpec
	if day != "" {
		for _, f := range fields {
			if f.Name == day {
				s := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{f.ID}, FieldID: 1000, Name: day + "_day", Transform: iceberg.DayTransform{}})
				spec = &s
			}
		}
	}
	md, err := table.NewMetadata(sc, spec, table.UnsortedSortOrder, "file:///fake/"+name, nil)
	if err != nil {
		return nil, err
	}
	ti.Table = table.New(table.Identifier{"public", name}, md, "file:///fake/"+name+"/metadata/v1.metadata.json", nil, nil)
	return ti, nil
}

func (c *fakeCatalog) Table(_ context.Context, schema, name string) (*plan.TableInfo, error) {
	if ti, ok := c.tables[name]; ok && (schema == "" || schema == "public") {
		return ti, nil
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

func (c *fakeCatalog) Store() *icetable.Store { return icetable.New(nil) }
