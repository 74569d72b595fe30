package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// partitionTree is pg_partition_tree(regclass) in FROM: (relid,
// parentrelid, isleaf, level). A Loam table is never a partition, so a
// partitioned one is the one non-leaf row of its own tree; for any other
// relation PostgreSQL 15 returns no rows (psql's \dP+ reads it).
func (p *Planner) partitionTree(rf *pg.RangeFunction, fc *pg.FuncCall) (*fromItem, error) {
	if len(fc.Args) != 1 {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function pg_partition_tree does not exist").WithPosition(pos(p.query, fc.Location))
	}
	b := &binder{p: p, where: "functions in FROM"}
	arg, err := b.bind(fc.Args[0])
	if err != nil {
		return nil, err
	}
	root, ok, err := b.catalogFunc("pg_partition_ancestors", []expr.Expr{arg}, fc.Location)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "pg_partition_tree is not supported here").WithPosition(pos(p.query, fc.Location))
	}
	reg := types.Of(types.Regclass)
	names := []string{"relid", "parentrelid", "isleaf", "level"}
	ts := []types.T{reg, reg, types.TBool, types.TInt4}
	table := "pg_partition_tree"
	if rf.Alias != nil {
		table = rf.Alias.Aliasname
		if len(rf.Alias.Colnames) > len(names) {
			return nil, pgerr.New(pgerr.SyntaxError, "too many column aliases specified for function pg_partition_tree")
		}
		for i, c := range rf.Alias.Colnames {
			names[i] = c.GetString_().Sval
		}
	}
	cols := make([]scopeCol, len(names))
	for i := range names {
		cols[i] = scopeCol{table: table, name: names[i], t: ts[i]}
	}
	row := []expr.Expr{root, &expr.Const{D: types.NullOf(reg)}, &expr.Const{D: dBool(false)}, &expr.Const{D: types.Datum{T: types.TInt4}}}
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.Filter{In: &physical.Values{Rows: [][]expr.Expr{row}, ColumnTypes: ts}, Pred: &expr.IsNull{Arg: &expr.Col{Idx: 0, T: reg}, Negate: true}}, nil
	}}, nil
}

// withOrdinality is a function in FROM WITH ORDINALITY: the function's
// columns and a bigint one numbering its rows, named by the column alias
// after the function's own, else "ordinality".
func (p *Planner) withOrdinality(rf *pg.RangeFunction) (*fromItem, error) {
	inner := &pg.RangeFunction{Lateral: rf.Lateral, IsRowsfrom: rf.IsRowsfrom, Functions: rf.Functions, Coldeflist: rf.Coldeflist}
	var ordName string
	if rf.Alias != nil {
		inner.Alias = &pg.Alias{Aliasname: rf.Alias.Aliasname}
	}
	if rf.Alias != nil && len(rf.Alias.Colnames) > 0 {
		// The function's own columns take the first aliases; try it with
		// all of them but the last first (one-column functions).
		inner.Alias.Colnames = rf.Alias.Colnames[:len(rf.Alias.Colnames)-1]
		ordName = rf.Alias.Colnames[len(rf.Alias.Colnames)-1].GetString_().Sval
	}
	it, err := p.rangeFunction(inner)
	if err != nil {
		return nil, err
	}
	if ordName != "" && inner.Alias != nil && len(inner.Alias.Colnames) < len(it.cols) {
		// Fewer aliases than the function has columns: none is the
		// ordinality's.
		inner.Alias.Colnames = rf.Alias.Colnames
		if it, err = p.rangeFunction(inner); err != nil {
			return nil, err
		}
		ordName = ""
	}
	if ordName == "" {
		ordName = "ordinality"
	}
	table := ""
	if len(it.cols) > 0 {
		table = it.cols[0].table
	}
	n := len(it.cols)
	cols := append(append([]scopeCol{}, it.cols...), scopeCol{table: table, name: ordName, t: types.TInt8})
	return &fromItem{cols: cols, rows: -1, build: func(sc *scope, off int, _ expr.Expr) (physical.Node, error) {
		op, err := it.build(&scope{cols: sc.cols[off : off+n], used: sc.used[off : off+n]}, 0, nil)
		if err != nil {
			return nil, err
		}
		return &physical.Ordinality{In: op}, nil
	}}, nil
}
