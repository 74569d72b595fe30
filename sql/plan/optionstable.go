package plan

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
)

// optionsItem is pg_options_to_table(options text[]) in FROM: an
// options array's name=value elements as rows (option_name,
// option_value), for psql's \des+ and \dew+ (pgcatalog.OptionsTable).
func (p *Planner) optionsItem(fc *pg.FuncCall, alias *pg.Alias) (*fromItem, error) {
	b := &binder{p: p, where: "functions in FROM"}
	arg, err := b.bind(fc.Args[0])
	if err != nil {
		return nil, err
	}
	at := types.ArrayOf(types.Text)
	if arg, err = b.coerce(arg, at, fc.Location); err != nil {
		return nil, err
	}
	table, names := "pg_options_to_table", []string{"option_name", "option_value"}
	if alias != nil {
		table = alias.Aliasname
		for i, c := range alias.Colnames {
			if i >= len(names) {
				return nil, pgerr.New(pgerr.SyntaxError, "too many column aliases specified for function pg_options_to_table")
			}
			names[i] = c.GetString_().Sval
		}
	}
	ts := []types.T{types.TText, types.TText}
	cols := []scopeCol{{table: table, name: names[0], t: ts[0]}, {table: table, name: names[1], t: ts[1]}}
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.FunctionScan{Name: "pg_options_to_table", Args: []expr.Expr{arg}, Fn: pgcatalog.OptionsTable{}, ColumnTypes: ts}, nil
	}}, nil
}
