package pgcatalog

import (
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// OptionsTable is pg_options_to_table(options text[]) as a set-returning
// function (exec.SetTable): an options array's name=value elements as rows
// (option_name, option_value).
type OptionsTable struct{}

// Rows splits the options; a NULL array has none, and NULL elements are
// skipped.
func (OptionsTable) Rows(args []types.Datum, _ *expr.Ctx) ([][]types.Datum, error) {
	if args[0].Null {
		return nil, nil
	}
	elems, null, err := types.SplitArrayText(args[0].S)
	if err != nil {
		return nil, err
	}
	var rows [][]types.Datum
	for i, e := range elems {
		if null[i] {
			continue
		}
		// An option without "=" has a NULL value, as in PostgreSQL.
		n, val, ok := strings.Cut(e, "=")
		value := types.NullOf(types.TText)
		if ok {
			value = dText(val)
		}
		rows = append(rows, []types.Datum{dText(n), value})
	}
	return rows, nil
}
