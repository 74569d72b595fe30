package plan

import (
	"context"

	"github.com/loamdb/loam/pgerr"
)

// The rest of Catalog for params_test.go's noTables: no snapshots, no
// sequences, views resolved as the query's names.

func (noTables) TableAsOf(_ context.Context, ti *TableInfo, _ Travel) (*TableInfo, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "no snapshots of %q here", ti.Name)
}

func (c noTables) ViewCatalog() Catalog { return c }

func (noTables) CheckSequence(_ context.Context, name string) error {
	return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}
