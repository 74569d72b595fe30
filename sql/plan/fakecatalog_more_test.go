package plan_test

import (
	"context"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
)

// The rest of plan.Catalog for the fake: it has no snapshots and no
// sequences, and its views' names resolve as the query's.

func (c *fakeCatalog) TableAsOf(_ context.Context, ti *plan.TableInfo, _ plan.Travel) (*plan.TableInfo, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "the fake catalog keeps no snapshots of %q", ti.Name)
}

func (c *fakeCatalog) ViewCatalog() plan.Catalog { return c }

func (c *fakeCatalog) CheckSequence(_ context.Context, name string) error {
	return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}
