package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Returning binds an INSERT's RETURNING list over the inserted rows, which
// arrive with one column per table column in table order. alias is the
// name the list may qualify columns with (the table's, or its AS alias).
func (p *Planner) Returning(ti *TableInfo, alias string, list []*pg.Node) ([]expr.Expr, []Column, error) {
	cols := make([]scopeCol, len(ti.Columns))
	for i, c := range ti.Columns {
		cols[i] = scopeCol{table: alias, name: c, t: ti.Types[i]}
	}
	sc := newScope(cols)
	b := &binder{p: p, sc: sc, where: "RETURNING"}
	var exprs []expr.Expr
	var out []Column
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			if len(cr.Fields) > 1 {
				if tbl := cr.Fields[len(cr.Fields)-2].GetString_().Sval; tbl != alias {
					return nil, nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", tbl).WithPosition(pos(p.query, cr.Location))
				}
			}
			for i, c := range cols {
				exprs = append(exprs, &expr.Col{Idx: i, T: c.t, Name: c.name})
				out = append(out, Column{Name: c.name, T: c.t})
			}
			continue
		}
		e, err := b.bind(rt.Val)
		if err != nil {
			return nil, nil, err
		}
		if e.Type().Kind == types.Unknown {
			e, _ = b.coerce(e, types.TText, rt.Location)
		}
		name := rt.Name
		if name == "" {
			name = columnName(rt.Val)
		}
		exprs = append(exprs, p.fold(e))
		out = append(out, Column{Name: name, T: e.Type()})
	}
	return exprs, out, nil
}
