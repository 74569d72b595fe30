package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// InsertValues plans the VALUES of an INSERT, typing each item by its
// target column (as PostgreSQL does), so '2026-11-29 10:00' or $1 become
// the column's type directly. DEFAULT items take the column's default
// (defaults as TableInfo.Defaults), bound per item so volatile ones are
// evaluated per row.
func (p *Planner) InsertValues(s *pg.SelectStmt, colTypes []types.T, target []int, defaults []string) (*Query, error) {
	b := &binder{p: p, where: "VALUES"}
	rows := make([][]expr.Expr, len(s.ValuesLists))
	for i, vl := range s.ValuesLists {
		items := vl.GetList().Items
		if i > 0 && len(items) != len(s.ValuesLists[0].GetList().Items) {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		if len(items) > len(target) {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns").WithPosition(pos(p.query, nodeLocation(items[len(target)])))
		}
		if len(items) < len(target) {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
		}
		rows[i] = make([]expr.Expr, len(items))
		for j, it := range items {
			want := colTypes[target[j]]
			if it.GetSetToDefault() != nil {
				if defaults == nil || defaults[target[j]] == "" {
					rows[i][j] = &expr.Const{D: types.NullOf(want)}
					continue
				}
				e, err := p.BindDefault(defaults[target[j]], want)
				if err != nil {
					return nil, err
				}
				rows[i][j] = e
				continue
			}
			e, err := b.bind(it)
			if err != nil {
				return nil, err
			}
			if _, ok := types.Common(e.Type(), want); !ok && e.Type().Kind != types.Text && !AssignsToString(want) && !ArrayAssigns(e.Type(), want) {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "column is of type %s but expression is of type %s", want, e.Type()).
					WithPosition(pos(p.query, nodeLocation(it))).WithHint("You will need to rewrite or cast the expression.")
			}
			if rows[i][j], err = b.coerce(e, want, nodeLocation(it)); err != nil {
				return nil, err
			}
		}
	}
	ts := make([]types.T, len(target))
	cols := make([]Column, len(target))
	for j, idx := range target {
		ts[j] = colTypes[idx]
		cols[j] = Column{Name: "column" + itoa(j+1), T: ts[j]}
	}
	return p.checked(&Query{Root: &physical.Values{Rows: rows, ColumnTypes: ts}, Columns: cols})
}

// AssignsToString reports whether t is a string type, which every type is
// assignment-cast to (PostgreSQL's I/O conversion casts): pandas' to_sql
// writes Decimals into the text column it makes for object dtypes.
func AssignsToString(t types.T) bool {
	switch t.Kind {
	case types.Text, types.Varchar, types.Char:
		return true
	}
	return false
}

// ArrayAssigns says whether an array of one element type may be stored in
// an array column of another (int[] into bigint[]): when the elements
// have a common type; each element is then cast.
func ArrayAssigns(from, to types.T) bool {
	if from.Kind != types.Array || to.Kind != types.Array {
		return false
	}
	_, ok := types.Common(types.Of(from.Elem), types.Of(to.Elem))
	return ok
}
