package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// maxViewDepth bounds views over views: a view replaced to read itself
// would otherwise expand for ever.
const maxViewDepth = 64

// PlanView plans a view's stored SELECT text on its own: no parameters,
// no outer query, no CTEs of the query that reads it. Positions of its
// errors would point into the view's text, not the query's, so they are
// dropped.
func (p *Planner) PlanView(ti *TableInfo) (*Query, error) {
	name, text := ti.Name, ti.ViewSQL
	if p.viewDepth >= maxViewDepth {
		return nil, pgerr.New("42P17", "infinite recursion detected in rules for relation %q", name)
	}
	stmts, err := parse.Parse(text)
	if err != nil {
		return nil, noPosition(err)
	}
	if len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil {
		return nil, pgerr.New("42P17", "view %q does not hold one SELECT", name)
	}
	f := &Planner{ctx: p.ctx, cat: p.cat.ViewCatalog(), ec: p.ec, query: text, NoParams: true, reg: p.reg, viewDepth: p.viewDepth + 1, deps: p.deps, via: ti}
	q, err := f.Select(stmts[0].Node.GetSelectStmt())
	if err != nil {
		return nil, noPosition(err)
	}
	return q, nil
}

func noPosition(err error) error {
	if pe := pgerr.From(err); pe.Position != 0 {
		return pe.WithPosition(0)
	}
	return err
}

// viewItem expands a view in FROM like a subquery, its columns named as
// the view declares them. A SELECT * over a table that gained columns
// since CREATE VIEW yields more; only the view's own are kept, as
// PostgreSQL fixes * at creation.
func (p *Planner) viewItem(ti *TableInfo, rv *pg.RangeVar) (*fromItem, error) {
	q, err := p.PlanView(ti)
	if err != nil {
		return nil, err
	}
	if len(q.Columns) < len(ti.Columns) {
		return nil, pgerr.New("42P17", "view %q yields %d columns, not the %d it was created with; recreate it",
			ti.Name, len(q.Columns), len(ti.Columns))
	}
	alias := ti.Name
	var names []string
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
		for _, c := range rv.Alias.Colnames {
			names = append(names, c.GetString_().Sval)
		}
	}
	oid := pgcatalog.ObjectOID(ti.Namespace, ti.Name)
	cols := make([]scopeCol, len(ti.Columns))
	keep := make([]expr.Expr, len(ti.Columns))
	project := len(q.Columns) > len(ti.Columns)
	for i, c := range ti.Columns {
		name := c
		if i < len(names) {
			name = names[i]
		}
		t := q.Columns[i].T
		keep[i] = &expr.Col{Idx: i, T: t}
		if t.Kind == types.Unknown {
			// An untyped literal column is text, as CREATE VIEW recorded.
			t = ti.Types[i]
			keep[i] = &expr.Cast{Arg: keep[i], T: t}
			project = true
		}
		cols[i] = scopeCol{table: alias, name: name, t: t, origin: origin{oid, int16(i + 1)}}
	}
	root := q.Root
	if project {
		root = &physical.Project{In: root, Exprs: keep}
	}
	return &fromItem{cols: cols, rows: -1, build: func(_ *scope, _ int, filter expr.Expr) (physical.Node, error) { return withPrune(root, filter), nil }}, nil
}
