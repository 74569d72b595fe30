package plan

import (
	"fmt"

	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// checkIdentityInsert refuses a value for a GENERATED ALWAYS identity
// column (428C9), unless OVERRIDING SYSTEM VALUE; DEFAULT in a VALUES list
// is no value.
func checkIdentityInsert(ins *pg.InsertStmt, ti *TableInfo, target []int, sel *pg.SelectStmt) error {
	if ti.Identity == nil || ins.Override == pg.OverridingKind_OVERRIDING_SYSTEM_VALUE {
		return nil
	}
	for k, idx := range target {
		if ti.Identity[idx] != "a" {
			continue
		}
		given := len(sel.ValuesLists) == 0
		for _, row := range sel.ValuesLists {
			if items := row.GetList().GetItems(); k < len(items) && items[k].GetSetToDefault() == nil {
				given = true
			}
		}
		if given {
			col := ti.Columns[idx]
			e := pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", col).
				WithHint("Use OVERRIDING SYSTEM VALUE to override.")
			e.Detail = fmt.Sprintf("Column %q is an identity column defined as GENERATED ALWAYS.", col)
			return e
		}
	}
	return nil
}
