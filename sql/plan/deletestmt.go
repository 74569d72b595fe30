package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Delete plans DELETE FROM t [USING …] [WHERE …] [RETURNING …]: the sink
// (physical.Modify) over the ids of the rows to delete, and their old
// values when RETURNING needs them.
func (p *Planner) Delete(d *pg.DeleteStmt) (q *Query, err error) {
	if d.WithClause != nil {
		saved := p.ctes
		defer func() { p.ctes = saved }()
		if err := p.with(d.WithClause); err != nil {
			return nil, err
		}
		mine := p.ctes
		defer func() {
			if err == nil {
				err = p.checkUnread(mine, saved)
			}
		}()
	}
	ti, alias, err := p.modifyTarget(d.Relation, "delete from")
	if err != nil {
		return nil, err
	}
	p.need(ti, "DELETE", d.Relation.Location)
	if reads(d.WhereClause) || listReads(d.ReturningList) {
		p.need(ti, "SELECT", d.Relation.Location) // it reads the rows it deletes
	}
	withRows := len(d.ReturningList) > 0
	in, ret, cols, err := p.modifyRows(ti, alias, d.UsingClause, d.WhereClause, d.ReturningList, func(sc *scope) ([]expr.Expr, error) {
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
	t, err := WriteTarget(ti, p.ec.Loc)
	if err != nil {
		return nil, err
	}
	return p.modifyQuery(&physical.Modify{In: in, Target: t, Returning: ret, Dedupe: len(d.UsingClause) > 0}, cols)
}
