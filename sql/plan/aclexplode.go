package plan

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
)

// aclexplodeItem is aclexplode(aclitem[]) in FROM: an ACL's privileges as
// rows (grantor, grantee, privilege_type, is_grantable), which clients
// (pgAdmin, DBeaver) read relacl and nspacl through.
func (p *Planner) aclexplodeItem(fc *pg.FuncCall, alias *pg.Alias) (*fromItem, error) {
	b := &binder{p: p, where: "functions in FROM"}
	arg, err := b.bind(fc.Args[0])
	if err != nil {
		return nil, err
	}
	if arg, err = b.coerce(arg, types.ArrayOf(types.ACLItem), fc.Location); err != nil {
		return nil, err
	}
	table := "aclexplode"
	var names []string
	var ts []types.T
	for _, c := range pgcatalog.ACLExplodeColumns {
		names, ts = append(names, c.Name), append(ts, c.Type)
	}
	if alias != nil {
		table = alias.Aliasname
		for i, c := range alias.Colnames {
			if i >= len(names) {
				return nil, pgerr.New(pgerr.SyntaxError, "too many column aliases specified for function aclexplode")
			}
			names[i] = c.GetString_().Sval
		}
	}
	cols := make([]scopeCol, len(names))
	for i := range names {
		cols[i] = scopeCol{table: table, name: names[i], t: ts[i]}
	}
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.FunctionScan{Name: "aclexplode", Args: []expr.Expr{arg}, Fn: pgcatalog.ACLExplode{}, ColumnTypes: ts}, nil
	}}, nil
}
