package difffuzz

import (
	"fmt"
	"math/rand"
)

// Gates turn off query shapes that hit known, not yet fixed Loam bugs, so
// that the fixed-seed run in `make test` passes; each names the bug in
// KNOWN.md. A long run (make fuzz-diff GATES=all-open) sets them all
// false to look for new instances.
type Gates struct {
	// QuantifiedSubquery: x op ALL (subquery) and x op ANY (subquery) with
	// op other than =; Loam answers 0A000.
	QuantifiedSubquery bool
	// EagerErrors: an expression that can raise an error (division by
	// zero, overflow) inside COALESCE or CASE branches, or in a derived
	// table's column, that PostgreSQL never evaluates; Loam evaluates
	// every argument and column (KNOWN.md). Off, divisors are wrapped in
	// NULLIF(…, 0) and rows hold no extreme integers.
	EagerErrors bool
	// OuterAggregate: an aggregate in a subquery whose arguments name only
	// outer columns, which PostgreSQL evaluates in the outer query.
	OuterAggregate bool
	// FilterDistinctAgg: aggregates with FILTER or DISTINCT; over no rows
	// or with HAVING over write-log rows Loam ends the session (issue 11,
	// finding 2).
	FilterDistinctAgg bool
	// IntervalColumn: an interval output column of a derived table or
	// CTE, or min/max of intervals; Loam fails with XX000 "invalid values
	// byte width for take" (KNOWN.md). Off, such columns are cast to text.
	IntervalColumn bool
	// UnknownAggArg: min/max/string_agg of an untyped string literal,
	// which Loam takes as float8 (KNOWN.md). Off, the literal is cast to
	// text.
	UnknownAggArg bool
	// SameNameGroupBy: GROUP BY, or aggregates of, two same-named columns
	// of different tables, which Loam merges into one (issue 11, finding
	// 1; max(t.k), max(u.k) the same).
	SameNameGroupBy bool
	// JSONBOrder: ORDER BY a jsonb column; Loam's order of jsonb values is
	// not PostgreSQL's (KNOWN.md).
	JSONBOrder bool
	// ConstGroupKey: ROLLUP/CUBE/GROUPING SETS over expressions that may
	// be constant; Loam takes an equal constant in HAVING for the
	// grouped-out key (NULL), PostgreSQL only in the select list
	// (KNOWN.md).
	ConstGroupKey bool
	// UnknownUnion: an untyped string literal as a set operation's
	// column, which PostgreSQL resolves to the other side's type (and may
	// fail to read), Loam to text (KNOWN.md).
	UnknownUnion bool
	// EmptyAggFatal: aggregates of NULL constants of several types over an
	// empty table in a derived table; Loam ends the session (KNOWN.md).
	EmptyAggFatal bool
	// SetOpNumericScale: compare numerics of INTERSECT and EXCEPT as text;
	// of 2.000 and 2.0 Loam keeps 2 (KNOWN.md).
	SetOpNumericScale bool
	// PGDistinctWindow: a derived table with DISTINCT over a window
	// function; PostgreSQL 15.18 answers wrongly when a correlated
	// subquery compares its column with an outer value (KNOWN.md).
	PGDistinctWindow bool
	// CharColumn: char(3) columns; Loam's blank-padded semantics differ
	// from PostgreSQL's in UNION types, LIKE, and comparisons with varchar
	// (KNOWN.md).
	CharColumn bool
	// NonASCII: a non-ASCII letter among the text values; PostgreSQL in
	// the C locale upper-cases only ASCII letters, Loam all of Unicode
	// (KNOWN.md).
	NonASCII bool
}

// DefaultGates opens the shapes whose bugs are fixed (issue 11's
// findings 1 and 2, intervals in joins and grouping, quantified
// subqueries, untyped literals in set operations) and keeps the rest out.
func DefaultGates() Gates {
	return Gates{QuantifiedSubquery: true, FilterDistinctAgg: true, IntervalColumn: true,
		SameNameGroupBy: true, EmptyAggFatal: true, UnknownAggArg: true, UnknownUnion: true}
}

// AllGates turns every gated shape on.
func AllGates() Gates {
	return Gates{QuantifiedSubquery: true, EagerErrors: true, OuterAggregate: true,
		FilterDistinctAgg: true, IntervalColumn: true, UnknownAggArg: true,
		SameNameGroupBy: true, JSONBOrder: true, NonASCII: true,
		ConstGroupKey: true, UnknownUnion: true, EmptyAggFatal: true,
		PGDistinctWindow: true, SetOpNumericScale: true, CharColumn: true}
}

// colRef is a column an expression may name.
type colRef struct {
	Qual, Name string
	K          Kind
}

func (c colRef) SQL() string { return c.Qual + "." + c.Name }

// scope is what a query level sees: its FROM's columns, and the enclosing
// levels' for correlated subqueries.
type scope struct {
	cols  []colRef
	outer *scope
}

// uniqueNames is s without the columns whose name another column of s
// has.
func (s *scope) uniqueNames() *scope {
	n := map[string]int{}
	for _, c := range s.cols {
		n[c.Name]++
	}
	u := &scope{outer: s.outer}
	for _, c := range s.cols {
		if n[c.Name] == 1 {
			u.cols = append(u.cols, c)
		}
	}
	return u
}

func (s *scope) ofKind(k Kind) []colRef {
	var out []colRef
	for _, c := range s.cols {
		if c.K == k {
			out = append(out, c)
		}
	}
	return out
}

// gen builds queries over one schema.
type gen struct {
	r      *rand.Rand
	s      *Schema
	gates  Gates
	ctes   []*CTE // visible CTEs of the query being built
	nalias int
	nsub   int // subquery nesting depth
	// winOrder: the SELECT being built has an order-sensitive window
	// function already. Two of them pick among identical rows each in
	// its own way, and the pairing shows: one is the most.
	winOrder bool
}

func (g *gen) chance(n int) bool { return g.r.Intn(n) == 0 }

func (g *gen) alias(prefix string) string {
	g.nalias++
	return fmt.Sprintf("%s%d", prefix, g.nalias)
}

// query is a top-level query: optional CTEs, a SELECT, an optional set
// operation, ORDER BY and LIMIT/OFFSET.
func (g *gen) query() *Select {
	g.ctes, g.nalias, g.nsub = nil, 0, 0
	var with []*CTE
	if g.chance(6) {
		for i := 0; i < 1+g.r.Intn(2); i++ {
			q := g.selectCore(nil, nil)
			g.noIntervalItems(q)
			c := &CTE{Name: g.alias("w"), Q: q}
			for j := range q.Items {
				c.Cols = append(c.Cols, fmt.Sprintf("c%d", j))
			}
			with = append(with, c)
			g.ctes = append(g.ctes, c)
		}
	}
	q := g.selectCore(nil, nil)
	q.With = with
	if g.chance(6) {
		q.Op = []string{"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"}[g.r.Intn(6)]
		q.Right = g.selectCore(q.kinds(), nil)
	}
	g.orderBy(q)
	return q
}

// noIntervalItems casts q's interval output columns to text unless
// Gates.IntervalColumn is set.
func (g *gen) noIntervalItems(q *Select) {
	if g.gates.IntervalColumn {
		return
	}
	for _, it := range q.Items {
		if it.E.K == KInterval {
			it.E = node(KText, "CAST(%s AS text)", it.E)
		}
	}
}

func (s *Select) kinds() []Kind {
	var ks []Kind
	for _, it := range s.Items {
		ks = append(ks, it.E.K)
	}
	return ks
}

// orderBy adds ORDER BY, sometimes with LIMIT/OFFSET. LIMIT and OFFSET come
// only with an order over every output column: otherwise which rows they
// keep is not determined and the two databases may rightly differ.
func (g *gen) orderBy(q *Select) {
	switch x := g.r.Intn(10); {
	case x < 6 && !g.gates.JSONBOrder && hasKind(q, KJSONB):
		// No order: jsonb values sort differently in Loam.
	case x < 4:
		perm := g.r.Perm(len(q.Items))
		n := 1 + g.r.Intn(len(perm))
		for _, i := range perm[:n] {
			q.Order = append(q.Order, g.orderKey(q.Items[i]))
		}
	case x < 6:
		for _, i := range g.r.Perm(len(q.Items)) {
			q.Order = append(q.Order, g.orderKey(q.Items[i]))
		}
		if g.chance(3) {
			q.Offset = g.r.Intn(4)
		}
		if g.r.Intn(3) > 0 {
			q.Limit = g.r.Intn(6)
		}
	}
}

func hasKind(q *Select, k Kind) bool {
	for _, it := range q.Items {
		if it.E.K == k {
			return true
		}
	}
	return false
}

func (g *gen) orderKey(it *Item) *OrderKey {
	o := &OrderKey{Item: it, Desc: g.chance(3), ByName: g.chance(3)}
	if g.chance(4) {
		o.Nulls = []string{"NULLS FIRST", "NULLS LAST"}[g.r.Intn(2)]
	}
	return o
}

// selectCore is one SELECT … FROM … WHERE … GROUP BY … HAVING. want, when
// set, fixes the kinds of its output columns (the right side of a set
// operation, a subquery's single column).
func (g *gen) selectCore(want []Kind, outer *scope) *Select {
	q := &Select{Limit: -1, Offset: -1}
	sc := &scope{outer: outer}
	saved := g.winOrder
	g.winOrder = false
	defer func() { g.winOrder = saved }()
	q.From = g.fromList(sc)
	if g.r.Intn(2) == 0 {
		q.Where = g.expr(sc, KBool, 2)
	}
	n := len(want)
	if n == 0 {
		n = 1 + g.r.Intn(4)
	}
	kind := func(i int) Kind {
		if want != nil {
			return want[i]
		}
		return g.itemKind(sc)
	}
	// What grouped items and aggregates may name: without
	// SameNameGroupBy, no column whose name another column in scope has.
	asc := sc
	if !g.gates.SameNameGroupBy {
		asc = sc.uniqueNames()
	}
	switch x := g.r.Intn(10); {
	case x < 3: // grouped
		sc := asc
		ng := 1 + g.r.Intn(3)
		var groups []*Expr
		names := map[string]bool{}
		for i := 0; i < ng; i++ {
			e := g.groupExpr(sc)
			if e.K == KInterval && !g.gates.IntervalColumn {
				continue
			}
			if c, ok := e.colName(); ok && !g.gates.SameNameGroupBy {
				if names[c] {
					continue
				}
				names[c] = true
			}
			groups = append(groups, e)
		}
		if len(groups) == 0 {
			groups = append(groups, node(KInt, "COALESCE(CAST(NULL AS int4), 1)"))
		}
		q.GroupBy = groups
		if g.chance(5) && (g.gates.ConstGroupKey || allColumns(groups)) {
			q.Grouping = []string{"ROLLUP", "CUBE", "GROUPING SETS"}[g.r.Intn(3)]
		}
		for i := 0; i < n; i++ {
			k := kind(i)
			var e *Expr
			var cands []*Expr
			for _, ge := range groups {
				if ge.K == k {
					cands = append(cands, ge)
				}
			}
			if len(cands) > 0 && g.r.Intn(2) == 0 {
				e = cands[g.r.Intn(len(cands))]
			} else {
				e = g.aggExpr(sc, k)
			}
			q.Items = append(q.Items, &Item{E: e})
		}
		if g.chance(3) {
			q.Having = g.havingExpr(sc, groups)
		}
	case x < 4: // aggregate without GROUP BY: one row
		sc := asc
		for i := 0; i < n; i++ {
			q.Items = append(q.Items, &Item{E: g.aggExpr(sc, kind(i))})
		}
		if g.chance(4) {
			q.Having = g.havingExpr(sc, nil)
		}
	default:
		for i := 0; i < n; i++ {
			k := kind(i)
			var e *Expr
			if g.chance(5) {
				e = g.windowExpr(sc, k)
			} else {
				e = g.expr(sc, k, 2)
			}
			q.Items = append(q.Items, &Item{E: e})
		}
	}
	if g.chance(6) {
		q.Distinct = true
	}
	if !g.gates.UnknownUnion {
		for _, it := range q.Items {
			if it.E.Const && it.E.K == KText {
				it.E = node(KText, "CAST(%s AS text)", it.E)
			}
		}
	}
	if g.chance(4) {
		for i, it := range q.Items {
			it.Alias = fmt.Sprintf("o%d", i)
		}
	}
	return q
}

// itemKind picks an output kind, mostly the kind of a column in scope.
func (g *gen) itemKind(sc *scope) Kind {
	if len(sc.cols) > 0 && g.r.Intn(3) > 0 {
		return sc.cols[g.r.Intn(len(sc.cols))].K
	}
	return Kind(g.r.Intn(int(nKinds)))
}

// groupExpr is a GROUP BY expression: mostly a column, never a bare
// constant (PostgreSQL reads an integer as an output column's position and
// refuses others, 42601).
func (g *gen) groupExpr(sc *scope) *Expr {
	if len(sc.cols) > 0 && g.r.Intn(4) > 0 {
		c := sc.cols[g.r.Intn(len(sc.cols))]
		return col(c)
	}
	// Wrapped: a constant, even -1 (which the grammar folds), is a
	// position.
	e := g.expr(sc, g.itemKind(sc), 1)
	return node(e.K, "COALESCE(%s, %s)", e, g.literal(e.K))
}

func allColumns(es []*Expr) bool {
	for _, e := range es {
		if e.Col == "" {
			return false
		}
	}
	return true
}

func col(c colRef) *Expr {
	e := node(c.K, c.SQL())
	e.Col = c.Name
	return e
}

// colName is the column name e refers to when it is a bare column.
func (e *Expr) colName() (string, bool) { return e.Col, e.Col != "" }

// havingExpr is a condition on aggregates and grouped expressions.
func (g *gen) havingExpr(sc *scope, groups []*Expr) *Expr {
	a := g.aggExpr(sc, KInt)
	var rhs *Expr
	if len(groups) > 0 && groups[0].K == KInt && g.chance(2) {
		rhs = groups[0]
	} else {
		rhs = constant(KInt, fmt.Sprint(g.r.Intn(4)))
	}
	e := node(KBool, "%s "+g.cmpOp()+" %s", a, rhs)
	if g.chance(3) {
		e = node(KBool, "(%s OR %s)", e, node(KBool, "%s IS NULL", g.aggExpr(sc, g.itemKind(sc))))
	}
	return e
}

func (g *gen) cmpOp() string {
	return []string{"=", "<>", "<", "<=", ">", ">="}[g.r.Intn(6)]
}

// fromList is the FROM clause: one item, a comma list of two, or joins.
func (g *gen) fromList(sc *scope) []*From {
	switch x := g.r.Intn(10); {
	case x < 4:
		return []*From{g.fromItem(sc)}
	case x < 5:
		return []*From{g.fromItem(sc), g.fromItem(sc)}
	default:
		f := g.join(g.fromItem(sc), sc)
		if g.chance(4) {
			f = g.join(f, sc)
		}
		return []*From{f}
	}
}

// join joins left (whose columns are in sc) with a new item.
func (g *gen) join(left *From, sc *scope) *From {
	leftCols := append([]colRef(nil), sc.cols...)
	right := g.fromItem(sc)
	rightCols := sc.cols[len(leftCols):]
	j := &From{Left: left, Right: right}
	j.Join = []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", "JOIN", "LEFT JOIN"}[g.r.Intn(7)]
	if j.Join == "CROSS JOIN" {
		return j
	}
	// USING over same-named columns of the same kind, sometimes.
	if g.chance(4) {
		for _, rc := range rightCols {
			var n int
			var lk Kind
			for _, lc := range leftCols {
				if lc.Name == rc.Name {
					n++
					lk = lc.K
				}
			}
			if n == 1 && lk == rc.K {
				j.Using = []string{rc.Name}
				return j
			}
		}
	}
	// An equality of comparable columns, else any condition.
	var eqs []*Expr
	for _, lc := range leftCols {
		for _, rc := range rightCols {
			if comparable(lc.K, rc.K) && orderable(lc.K) {
				eqs = append(eqs, node(KBool, "%s = %s", col(lc), col(rc)))
			}
		}
	}
	if len(eqs) > 0 {
		j.On = eqs[g.r.Intn(len(eqs))]
		if j.Join != "FULL JOIN" && g.chance(3) {
			j.On = node(KBool, "%s AND %s", j.On, g.expr(sc, KBool, 1))
		}
		return j
	}
	if j.Join == "FULL JOIN" {
		// PostgreSQL runs FULL JOIN only on hashable or mergeable
		// conditions.
		j.Join = "LEFT JOIN"
	}
	j.On = g.expr(sc, KBool, 1)
	return j
}

// comparable says values of kinds a and b can be compared with = and <.
func comparable(a, b Kind) bool {
	num := func(k Kind) bool { return k == KInt || k == KFloat || k == KNumeric }
	dt := func(k Kind) bool { return k == KDate || k == KTimestamp || k == KTimestamptz }
	return a == b || num(a) && num(b) || dt(a) && dt(b)
}

// orderable kinds have < (jsonb does in PostgreSQL, but json ordering is
// not something the fuzzer needs to stress).
func orderable(k Kind) bool { return k != KJSONB }

// fromItem is a table, a CTE or a derived table; its columns join sc.
func (g *gen) fromItem(sc *scope) *From {
	switch x := g.r.Intn(10); {
	case x < 2 && len(g.ctes) > 0:
		// (CTE items were made safe by g.query.)
		c := g.ctes[g.r.Intn(len(g.ctes))]
		f := &From{Name: c.Name, Alias: g.alias("q")}
		for i, name := range c.Cols {
			sc.cols = append(sc.cols, colRef{Qual: f.Alias, Name: name, K: c.Q.Items[i].E.K})
		}
		return f
	case x < 3 && g.nsub < 2:
		g.nsub++
		q := g.selectCore(nil, nil)
		g.nsub--
		g.noIntervalItems(q)
		if q.Distinct && !g.gates.PGDistinctWindow {
			for _, it := range q.Items {
				if it.E.Win {
					q.Distinct = false
				}
			}
		}
		f := &From{Sub: q, Alias: g.alias("d")}
		for i, it := range q.Items {
			it.Alias = fmt.Sprintf("c%d", i)
			sc.cols = append(sc.cols, colRef{Qual: f.Alias, Name: it.Alias, K: it.E.K})
		}
		return f
	}
	t := g.s.Tables[g.r.Intn(len(g.s.Tables))]
	f := &From{Name: t.Name, Alias: t.Name}
	used := false
	for _, c := range sc.cols {
		if c.Qual == t.Name {
			used = true
		}
	}
	for s := sc.outer; s != nil; s = s.outer {
		for _, c := range s.cols {
			if c.Qual == t.Name {
				used = true
			}
		}
	}
	if used || g.chance(3) {
		f.Alias = g.alias(t.Name + "_")
	}
	for _, c := range t.Cols {
		sc.cols = append(sc.cols, colRef{Qual: f.Alias, Name: c.Name, K: c.Type.Kind})
	}
	return f
}
