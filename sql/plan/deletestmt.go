package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Delete plans DELETE FROM t [USING …] [WHERE …] [RETURNING …]: the sink
// (physical.Modify) over the ids of the rows to delete, and their old
// values when RETURNING needs them.
func (p *Planner) Delete(d *pg.DeleteStmt) (*Query, error) {
	if d.WithClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH before DELETE is not supported yet").
			WithPosition(pos(p.query, d.WithClause.Location))
	}
	ti, alias, err := p.modifyTarget(d.Relation, "delete from")
	if err != nil {
		return nil, err
	}
	withRows := len(d.ReturningList) > 0
	in, err := p.modifyRows(ti, alias, d.UsingClause, d.WhereClause, func(sc *scope) ([]expr.Expr, error) {
		exprs := []expr.Expr{rowIDExpr(ti)}
		if withRows {
			for i, t := range ti.Types {
				sc.used[i] = true
				exprs = append(exprs, &expr.Col{Idx: i, T: t, Name: ti.Columns[i]})
			}
		}
		return exprs, nil
	})
	if err != nil {
		return nil, err
	}
	ret, cols, err := p.modifyReturning(ti, alias, d.ReturningList)
	if err != nil {
		return nil, err
	}
	t, err := WriteTarget(ti, p.ec.Loc)
	if err != nil {
		return nil, err
	}
	return p.modifyQuery(&physical.Modify{In: in, Target: t, Returning: ret}, cols)
}
