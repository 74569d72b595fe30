package plan

import (
	"time"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/storage/maint"
)

// expiry is how a scan of ti hides the rows its retention expired, nil
// when it has none. The cutoff is taken at the transaction's now(), so a
// statement sees one table state and a transaction one cutoff: a row
// expires for queries the moment now() passes it, not when upkeep gets to
// its file.
func (p *Planner) expiry(ti *TableInfo) *exec.Expiry {
	if ti == nil || ti.Table == nil {
		return nil
	}
	r, ok, err := maint.RetentionOf(ti.Table.Properties())
	if err != nil || !ok {
		// A property Loam cannot read (another writer's) hides nothing,
		// as the table never promised a retention Loam understands.
		return nil
	}
	for i, c := range ti.Columns {
		if c == r.Column {
			now := time.Now()
			if p.ec != nil && !p.ec.Now.IsZero() {
				now = p.ec.Now
			}
			return &exec.Expiry{Column: c, Type: ti.Types[i], Cutoff: r.Cutoff(now), Retention: &r}
		}
	}
	return nil
}
