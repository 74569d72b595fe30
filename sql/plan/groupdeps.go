package plan

import (
	"strconv"

	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/sql/pgcatalog"
)

// tableCols are the scope columns of a base table named in FROM: each
// with its origin, the table's number in this query (rel) and whether it
// is in the primary key (the Iceberg schema's identifier fields).
func (p *Planner) tableCols(ti *TableInfo, alias string) []scopeCol {
	p.rels++
	key := map[string]bool{}
	if ti.Table != nil {
		sc := ti.Table.Schema()
		for _, id := range sc.IdentifierFieldIDs {
			if f, ok := sc.FindFieldByID(id); ok {
				key[f.Name] = true
			}
		}
	}
	cols := make([]scopeCol, len(ti.Columns))
	for i, c := range ti.Columns {
		cols[i] = scopeCol{table: alias, name: c, t: ti.Types[i], origin: origin{pgcatalog.ObjectOID(ti.Namespace, ti.Name), int16(i + 1)},
			rel: p.rels, key: key[c]}
	}
	return cols
}

// dependentCols marks the scope columns that GROUP BY determines without
// listing them, by PostgreSQL's functional dependency rule: every column
// of a base table named directly in FROM (not through a view or
// subquery) whose primary key columns are all grouped, as plain columns,
// in every grouping set (sets lists each set's GROUP BY keys).
func dependentCols(sc *scope, grouped []int, sets [][]int) []bool {
	if sc == nil || len(sets) == 0 {
		return nil
	}
	// The keys every grouping set has.
	inAll := map[int]int{}
	for _, set := range sets {
		seen := map[int]bool{}
		for _, k := range set {
			if !seen[k] {
				seen[k] = true
				inAll[k]++
			}
		}
	}
	common := func(i int) bool { return i < len(grouped) && grouped[i] >= 0 && inAll[grouped[i]] == len(sets) }
	keyed := map[int]bool{} // rel -> all of its key grouped (and it has a key)
	for i, c := range sc.cols {
		if !c.key || c.rel == 0 {
			continue
		}
		if _, ok := keyed[c.rel]; !ok {
			keyed[c.rel] = true
		}
		if !common(i) {
			keyed[c.rel] = false
		}
	}
	var out []bool
	for i, c := range sc.cols {
		if c.rel != 0 && keyed[c.rel] && (i >= len(grouped) || grouped[i] < 0) {
			if out == nil {
				out = make([]bool, len(sc.cols))
			}
			out[i] = true
		}
	}
	return out
}

// groupValue is column c of the input in a grouped query where the
// grouped primary key determines it: the group's value of it, computed
// as an aggregate (agg.GroupValue), once however often it is named.
func (b *binder) groupValue(c *expr.Col) expr.Expr {
	for i, prev := range *b.aggs {
		if x, ok := prev.Arg.(*expr.Col); ok && prev.Fn == agg.GroupValue && x.Idx == c.Idx {
			return &expr.Col{Idx: len(b.groupStrs) + i, T: c.T, Name: c.Name}
		}
	}
	// Named by position too: same-named columns of two tables are two
	// aggregates.
	arg := &expr.Col{Idx: c.Idx, T: c.T, Name: c.Name + "#" + strconv.Itoa(c.Idx)}
	a := agg.Agg{Fn: agg.GroupValue, Arg: arg, T: c.T}
	*b.aggs = append(*b.aggs, a)
	return &expr.Col{Idx: len(b.groupStrs) + len(*b.aggs) - 1, T: c.T, Name: c.Name}
}

// outerGrouped is outerRow.grouped for a subquery of a grouped query:
// the GROUP BY keys, and the columns a grouped primary key determines as
// their group values (agg.GroupValue), which the subquery may read too.
func (b *binder) outerGrouped() []int {
	if b.groupCols == nil {
		return []int{}
	}
	out := append([]int(nil), b.groupCols...)
	for i, dep := range b.depCols {
		if dep && i < len(out) {
			c := b.sc.cols[i]
			out[i] = b.groupValue(&expr.Col{Idx: i, T: c.t, Name: c.name}).(*expr.Col).Idx
		}
	}
	return out
}
