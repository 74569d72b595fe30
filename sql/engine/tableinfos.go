package engine

import (
	"slices"
	"sync"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/sql/plan"
)

// tableInfosLimit bounds the tables whose TableInfo is kept; past it the
// memo starts over.
const tableInfosLimit = 1024

// tableInfos memoizes tableInfo by loaded table. A *table.Table is one
// immutable metadata (a commit or ALTER yields a new one), and the store
// hands out the same one while the table's pointer has not moved, so a
// kept plan's check at each Execute (keptPlan.valid) no longer decodes
// the column types and defaults from the table properties every time.
type tableInfos struct {
	mu sync.Mutex
	m  map[*table.Table]*plan.TableInfo
}

// get is tableInfo(ns, name, t): a copy of the memoized one, whose slices
// are clipped so that a caller's append cannot write into the memo's.
func (c *tableInfos) get(ns, name string, t *table.Table) (*plan.TableInfo, error) {
	c.mu.Lock()
	ti := c.m[t]
	c.mu.Unlock()
	if ti == nil || ti.Namespace != ns || ti.Name != name {
		var err error
		if ti, err = tableInfo(ns, name, t); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.m == nil || len(c.m) >= tableInfosLimit {
			c.m = map[*table.Table]*plan.TableInfo{}
		}
		c.m[t] = ti
		c.mu.Unlock()
	}
	cp := *ti
	cp.Columns = slices.Clip(cp.Columns)
	cp.Types = slices.Clip(cp.Types)
	cp.Required = slices.Clip(cp.Required)
	cp.Defaults = slices.Clip(cp.Defaults)
	cp.Identity = slices.Clip(cp.Identity)
	return &cp, nil
}
