package plan

import (
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Select plans a SELECT (or VALUES) statement.
func (p *Planner) Select(s *pg.SelectStmt) (*Query, error) {
	q, err := p.selectWith(s)
	if err != nil {
		return nil, err
	}
	return p.checked(q)
}

func (p *Planner) selectWith(s *pg.SelectStmt) (*Query, error) {
	if s.WithClause == nil {
		return p.selectBody(s)
	}
	saved := p.ctes
	defer func() { p.ctes = saved }()
	if err := p.with(s.WithClause); err != nil {
		return nil, err
	}
	mine := p.ctes
	decideMaterialized(s, mine, saved)
	q, err := p.selectBody(s)
	if err != nil {
		return nil, err
	}
	if err := p.checkUnread(mine, saved); err != nil {
		return nil, err
	}
	return q, nil
}

func (p *Planner) selectBody(s *pg.SelectStmt) (*Query, error) {
	// A decorrelation request is for this query block only.
	req := p.decor
	p.decor = nil
	if s.Op != pg.SetOperation_SETOP_NONE {
		return p.setOperation(s)
	}
	if len(s.ValuesLists) > 0 {
		return p.values(s)
	}
	if q, done, err := p.groupedSRFSelect(s); done {
		return q, err
	}
	if s.IntoClause != nil || len(s.LockingClause) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SELECT INTO and FOR UPDATE are not supported yet")
	}
	wins, err := newWindowSet(p, s.WindowClause)
	if err != nil {
		return nil, err
	}

	// FROM
	var src physical.Node
	var sc *scope
	var scan *scanNode
	var general func(sc *scope, where expr.Expr) (physical.Node, error)
	// One table (not a view, which expands as a subquery): the scan takes
	// the WHERE for pruning.
	var one *TableInfo
	if len(s.FromClause) == 1 && s.FromClause[0].GetRangeVar() != nil && p.lookupCTE(s.FromClause[0].GetRangeVar()) == nil &&
		p.lookupVirtual(s.FromClause[0].GetRangeVar().Schemaname, s.FromClause[0].GetRangeVar().Relname) == nil {
		rv := s.FromClause[0].GetRangeVar()
		ti, err := p.fromTable(rv)
		switch {
		case err != nil && pgerr.Code(err) == pgerr.UndefinedTable && isMetaTable(p, rv):
			// A metadata table ("t$files") is planned as a FROM item.
		case err != nil:
			return nil, err
		case ti.ViewSQL == "":
			one = ti
		}
	}
	switch {
	case len(s.FromClause) == 0:
		src = &physical.Values{Rows: [][]expr.Expr{{}}, ColumnTypes: []types.T{}}
		sc = newScope(nil)
	case one != nil:
		rv := s.FromClause[0].GetRangeVar()
		ti := one
		alias := ti.Name
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		cols := p.tableCols(ti, alias)
		sc = newScope(cols)
		scan = &scanNode{source: p.scanSource(ti), expiry: p.expiry(ti)}
	default:
		cols, build, err := p.fromList(s.FromClause)
		if err != nil {
			return nil, err
		}
		sc = newScope(cols)
		general = build
	}

	savedFrame := p.dframe
	p.dframe = &decorFrame{sc: sc, width: len(sc.cols), semi: semiCandidates(s.WhereClause)}
	defer func() { p.dframe = savedFrame }()

	// WHERE
	var where expr.Expr
	if s.WhereClause != nil {
		b := &binder{p: p, sc: sc, where: "WHERE"}
		e, err := b.bind(s.WhereClause)
		if err != nil {
			return nil, err
		}
		if where, err = b.coerceBool(e, nodeLocation(s.WhereClause)); err != nil {
			return nil, err
		}
		where = p.fold(where)
	}

	// Targets, expanding *.
	type target struct {
		node *pg.Node
		name string
		col  int // >= 0: a star-expanded scope column
		loc  int32
	}
	var targets []target
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			tbl := ""
			if len(cr.Fields) > 1 {
				tbl = cr.Fields[len(cr.Fields)-2].GetString_().Sval
			}
			found := false
			for i, c := range sc.cols {
				if !c.system && (tbl == "" && !c.hidden || tbl != "" && c.table == tbl) {
					targets = append(targets, target{name: c.name, col: i, loc: cr.Location})
					sc.used[i] = true
					found = true
				}
			}
			if !found && tbl != "" {
				return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", tbl).WithPosition(pos(p.query, cr.Location))
			}
			if !found && len(s.FromClause) == 0 {
				return nil, pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid").WithPosition(pos(p.query, cr.Location))
			}
			continue
		}
		name := rt.Name
		if name == "" {
			name = columnName(rt.Val)
		}
		targets = append(targets, target{node: rt.Val, name: name, col: -1, loc: rt.Location})
	}

	// GROUP BY and aggregates decide how targets bind.
	hasAgg := len(s.GroupClause) > 0 || s.HavingClause != nil
	for _, t := range targets {
		if t.node != nil && containsAggregate(t.node) {
			hasAgg = true
		}
	}
	for _, o := range s.SortClause {
		if containsAggregate(o.GetSortBy().Node) {
			hasAgg = true
		}
	}
	for _, w := range s.WindowClause {
		if containsAggregate(w) {
			hasAgg = true
		}
	}

	p.dframe.grouped = hasAgg
	out := &binder{p: p, sc: sc, where: "SELECT", win: wins}
	var groupBy []expr.Expr
	var aggs []agg.Agg
	// GROUP BY binds each distinct expression once; a grouping set is the
	// list of those it groups by.
	var sets [][]int
	grouping := &groupingInfo{idx: new(int)}
	*grouping.idx = -1
	if hasAgg {
		in := &binder{p: p, sc: sc, where: "GROUP BY"}
		nodeSets, err := groupingSets(s.GroupClause)
		if err != nil {
			return nil, err
		}
		grouping.multi = len(nodeSets) > 1
		bindKey := func(g *pg.Node) (expr.Expr, error) {
			node := g
			// GROUP BY 1 and GROUP BY alias refer to targets.
			if c := g.GetAConst(); c != nil && c.GetIval() != nil {
				k := int(c.GetIval().Ival)
				if k < 1 || k > len(targets) {
					return nil, pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", k).WithPosition(pos(p.query, c.Location))
				}
				if targets[k-1].node == nil {
					sc.used[targets[k-1].col] = true
					return &expr.Col{Idx: targets[k-1].col, T: sc.cols[targets[k-1].col].t, Name: sc.label(targets[k-1].col)}, nil
				}
				node = targets[k-1].node
			} else if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
				name := cr.Fields[0].GetString_().GetSval()
				if _, err := sc.resolve("", name); err != nil {
					for _, t := range targets {
						if t.name == name && t.node != nil {
							node = t.node
						}
					}
				}
			}
			e, err := in.bind(node)
			if _, ok := e.(*paramRef); ok && err == nil && e.Type().Kind == types.Unknown {
				// GROUP BY $1 groups text, as the output would be.
				return in.coerce(e, types.TText, nodeLocation(node))
			}
			return e, err
		}
		for _, ns := range nodeSets {
			var set []int
			for _, g := range ns {
				e, err := bindKey(g)
				if err != nil {
					return nil, err
				}
				k := -1
				for i, x := range groupBy {
					if x.String() == e.String() && x.Type() == e.Type() {
						k = i
					}
				}
				if k < 0 {
					groupBy = append(groupBy, e)
					k = len(groupBy) - 1
				}
				set = append(set, k)
			}
			sets = append(sets, set)
		}
		out = &binder{p: p, sc: sc, where: "SELECT", aggMode: true, aggs: &aggs, grouping: grouping, win: wins}
		out.groupCols = groupedCols(sc, groupBy)
		out.depCols = dependentCols(sc, out.groupCols, sets)
		for _, g := range groupBy {
			out.groupStrs = append(out.groupStrs, g.String())
			out.groupTs = append(out.groupTs, g.Type())
		}
	}

	// Bind the targets.
	var exprs []expr.Expr
	var cols []Column
	var srfs []srfCall // set-returning functions, run by a ProjectSet below the projection
	out.srfs = &srfs
	for i, t := range targets {
		var e expr.Expr
		if t.node == nil {
			e = &expr.Col{Idx: t.col, T: sc.cols[t.col].t, Name: t.name}
			if hasAgg {
				var err error
				// Qualified, so that a * over two tables' same-named
				// columns reads each of them.
				fields := []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: t.name}}}}
				if tbl := sc.cols[t.col].table; tbl != "" {
					fields = append([]*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: tbl}}}}, fields...)
				}
				if e, err = out.bind(&pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
					Fields: fields, Location: t.loc}}}); err != nil {
					return nil, err
				}
			}
		} else {
			var err error
			out.target = true
			if e, err = out.bind(t.node); err != nil {
				// PostgreSQL analyses the whole select list before it
				// checks grouping: a later unknown function wins.
				for _, later := range targets[i+1:] {
					if later.node == nil || pgerr.Code(err) != pgerr.GroupingError {
						continue
					}
					if _, err2 := out.bind(later.node); resolutionError(err2) {
						return nil, err2
					}
				}
				return nil, err
			}
		}
		if e.Type().Kind == types.Unknown {
			e, _ = out.coerce(e, types.TText, t.loc)
		}
		exprs = append(exprs, e)
		o := origin{}
		if t.node == nil {
			o = sc.cols[t.col].origin
		} else {
			o = sc.originOf(t.node)
		}
		cols = append(cols, Column{Name: t.name, T: e.Type(), TableOID: o.table, ColumnNum: o.attnum})
	}

	out.srfs = nil

	var having expr.Expr
	if s.HavingClause != nil {
		out.where, out.win = "HAVING", nil
		e, err := out.bind(s.HavingClause)
		if err != nil {
			return nil, err
		}
		if having, err = out.coerceBool(e, nodeLocation(s.HavingClause)); err != nil {
			return nil, err
		}
	}

	// ORDER BY and DISTINCT ON: output names and ordinals, else
	// expressions computed as hidden extra columns.
	distinctOn := len(s.DistinctClause) > 0 && s.DistinctClause[0] != nil && s.DistinctClause[0].Node != nil
	outputIndex := func(n *pg.Node, loc int32, what string) (int, error) {
		if c := n.GetAConst(); c != nil && c.GetIval() != nil {
			k := int(c.GetIval().Ival)
			if k < 1 || k > len(cols) {
				return 0, pgerr.New(pgerr.InvalidColumnReference, "%s position %d is not in select list", what, k).WithPosition(pos(p.query, c.Location))
			}
			return k - 1, nil
		}
		if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			idx := -1
			for i, c := range cols {
				if c.Name == name {
					// Two output columns of one name are ambiguous only
					// when they differ (SELECT a, a … ORDER BY a is fine).
					if idx >= 0 && !sameExpr(exprs[idx], exprs[i]) {
						return 0, pgerr.New(pgerr.AmbiguousColumn, "%s %q is ambiguous", what, name).WithPosition(pos(p.query, cr.Location))
					}
					if idx < 0 {
						idx = i
					}
				}
			}
			if idx >= 0 {
				return idx, nil
			}
		}
		out.where, out.win = what, wins
		e, err := out.bind(n)
		if err != nil {
			return 0, err
		}
		for i, x := range exprs {
			if sameExpr(x, e) {
				return i, nil
			}
		}
		if s.DistinctClause != nil && !distinctOn {
			return 0, pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list").WithPosition(pos(p.query, loc))
		}
		exprs = append(exprs, e)
		return len(exprs) - 1, nil
	}
	var keys []exec.SortKey
	for _, o := range s.SortClause {
		sb := o.GetSortBy()
		idx, err := outputIndex(sb.Node, sb.Location, "ORDER BY")
		if err != nil {
			return nil, err
		}
		k := exec.SortKey{Expr: &expr.Col{Idx: idx, T: exprs[idx].Type()}, Desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
		k.NullsFirst = k.Desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			k.NullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			k.NullsFirst = false
		}
		keys = append(keys, k)
	}
	// DISTINCT ON keeps the first row of each run of equal keys: the sort
	// must begin with them (PostgreSQL requires ORDER BY to).
	var onKeys []int
	if distinctOn {
		for _, n := range s.DistinctClause {
			idx, err := outputIndex(n, nodeLocation(n), "DISTINCT ON")
			if err != nil {
				return nil, err
			}
			onKeys = append(onKeys, idx)
		}
		isOn := func(idx int) bool {
			for _, k := range onKeys {
				if k == idx {
					return true
				}
			}
			return false
		}
		covered := map[int]bool{}
		for i, k := range keys {
			idx := k.Expr.(*expr.Col).Idx
			if i < len(onKeys) && !isOn(idx) {
				return nil, pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions").
					WithPosition(pos(p.query, nodeLocation(s.DistinctClause[0])))
			}
			covered[idx] = true
		}
		if len(keys) > 0 && len(keys) < len(onKeys) {
			for _, idx := range onKeys {
				if !covered[idx] {
					return nil, pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions").
						WithPosition(pos(p.query, nodeLocation(s.DistinctClause[0])))
				}
			}
		}
		if len(keys) == 0 {
			for _, idx := range onKeys {
				keys = append(keys, exec.SortKey{Expr: &expr.Col{Idx: idx, T: exprs[idx].Type()}})
			}
		}
	}

	// The logical plan: scan → filter → aggregate → having → project →
	// distinct → sort → limit → trim; rewritten, then lowered to physical nodes.
	var root node
	switch {
	case scan != nil:
		sn := scan
		sn.names, sn.all = make([]string, len(sc.cols)), make([]types.T, len(sc.cols))
		for i, c := range sc.cols {
			sn.names[i], sn.all[i] = c.name, c.t
			if sc.used[i] {
				sn.columns = append(sn.columns, c.name)
				sn.types = append(sn.types, c.t)
				sn.positions = append(sn.positions, i)
			}
		}
		root = sn
	case general != nil:
		root = &sourceNode{what: "FROM list", build: func(w expr.Expr) (physical.Node, error) { return general(sc, w) }}
	default:
		one := src
		root = &sourceNode{what: "one row", build: func(w expr.Expr) (physical.Node, error) {
			if w != nil {
				return &physical.Filter{In: one, Pred: w}, nil
			}
			return one, nil
		}}
	}
	if req != nil {
		d := decorShape{sc: sc, exprs: exprs, ncols: len(cols), hasAgg: hasAgg, groupBy: groupBy, aggs: aggs, grouping: grouping, having: having,
			plain: !wins.used() && len(srfs) == 0 && !distinctOn && s.LimitCount == nil && s.LimitOffset == nil}
		if corr, rest, ok := p.splitCorrelated(req, where, d); ok {
			if dq, ok, err := p.decorrelated(req, p.withDecorJoins(root, rest), corr, d); ok || err != nil {
				return dq, err
			}
		}
	}
	root = p.withDecorJoins(root, where)
	if hasAgg {
		root = &aggregateNode{in: root, groupBy: groupBy, sets: sets, aggs: aggs, grouping: grouping}
		if having != nil {
			root = &filterNode{in: root, pred: having}
		}
	}
	if wins.used() {
		root = &windowNode{in: root, ws: wins}
	}
	if len(srfs) > 0 {
		root = projectSets(root, srfs)
	}
	root = &projectNode{in: root, exprs: exprs}
	if s.DistinctClause != nil && !distinctOn {
		// Only the output columns: hidden ORDER BY expressions are not keys.
		root = &distinctNode{in: root, width: len(cols)}
	}
	limit, offset, count, skip, err := p.limits(s)
	if err != nil {
		return nil, err
	}
	if s.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		if len(keys) == 0 {
			return nil, pgerr.New(pgerr.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
		}
		if distinctOn {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "FETCH … WITH TIES with DISTINCT ON is not supported")
		}
		var tieCols []int
		for _, k := range keys {
			tieCols = append(tieCols, k.Expr.(*expr.Col).Idx)
		}
		root = &limitNode{in: &sortNode{in: root, keys: keys}, limit: max(limit, 0), offset: offset, ties: tieCols}
	} else {
		if len(keys) > 0 {
			root = &sortNode{in: root, keys: keys}
		}
		if distinctOn {
			root = &firstOfRunsNode{in: root, keys: onKeys}
		}
		if limit >= 0 || offset > 0 || count != nil || skip != nil {
			root = &limitNode{in: root, limit: limit, offset: offset, count: count, skip: skip}
		}
	}
	if len(exprs) > len(cols) {
		trim := make([]expr.Expr, len(cols))
		for i, c := range cols {
			trim[i] = &expr.Col{Idx: i, T: c.T}
		}
		root = &projectNode{in: root, exprs: trim}
	}
	root = p.rewrite(root)
	op, err := p.lower(root)
	if err != nil {
		return nil, err
	}
	return &Query{Root: op, Columns: cols, Logical: renderLogical(root)}, nil
}

// limits evaluates LIMIT and OFFSET. One that reads a parameter is
// returned as an expression instead (count, skip; limit and offset are
// then -1 and 0), which the builder evaluates with the execution's values
// (physical.Limit), so that one plan serves every value; but for WITH
// TIES, planned with the value.
func (p *Planner) limits(s *pg.SelectStmt) (limit, offset int64, count, skip expr.Expr, err error) {
	limit = -1
	eval := func(n *pg.Node, what string, deferred *expr.Expr) (int64, error) {
		if n == nil {
			return -1, nil
		}
		if c := n.GetAConst(); c != nil && c.Isnull {
			return -1, nil
		}
		b := &binder{p: p, where: what}
		e, err := b.bind(n)
		if err != nil {
			return 0, err
		}
		if e, err = b.coerce(e, types.TInt8, nodeLocation(n)); err != nil {
			return 0, err
		}
		if s.LimitOption != pg.LimitOption_LIMIT_OPTION_WITH_TIES && (expr.HasParams(e) || expr.HasOuterRefs(e)) {
			// An outer column too: the apply or subquery holds its row
			// when the plan is built (correlated.go).
			*deferred = e
			return -1, nil
		}
		v, err := p.evalConst(e)
		if err != nil {
			return 0, err
		}
		if v.Null {
			return -1, nil
		}
		if v.I < 0 {
			code := pgerr.InvalidRowCountInLimit
			if what == "OFFSET" {
				code = pgerr.InvalidRowCountInResultOffset
			}
			return 0, pgerr.New(code, "%s must not be negative", what)
		}
		return v.I, nil
	}
	if limit, err = eval(s.LimitCount, "LIMIT", &count); err != nil {
		return 0, 0, nil, nil, err
	}
	o, err := eval(s.LimitOffset, "OFFSET", &skip)
	if err != nil {
		return 0, 0, nil, nil, err
	}
	if o > 0 {
		offset = o
	}
	return limit, offset, count, skip, nil
}

func (p *Planner) values(s *pg.SelectStmt) (*Query, error) {
	b := &binder{p: p, where: "VALUES"}
	width := len(s.ValuesLists[0].GetList().Items)
	rows := make([][]expr.Expr, len(s.ValuesLists))
	for i, vl := range s.ValuesLists {
		items := vl.GetList().Items
		if len(items) != width {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length").WithPosition(pos(p.query, nodeLocation(items[0])))
		}
		rows[i] = make([]expr.Expr, width)
		for j, it := range items {
			e, err := b.bind(it)
			if err != nil {
				return nil, err
			}
			rows[i][j] = e
		}
	}
	ts := make([]types.T, width)
	cols := make([]Column, width)
	for j := 0; j < width; j++ {
		t := types.TUnknown
		for i := range rows {
			if rows[i][j].Type().Kind == types.Unknown {
				continue
			}
			var ok bool
			if t, ok = types.Common(t, rows[i][j].Type()); !ok {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "VALUES types %s and %s cannot be matched", t, rows[i][j].Type())
			}
		}
		if t.Kind == types.Unknown {
			t = types.TText
		}
		for i := range rows {
			var err error
			if rows[i][j], err = b.coerce(rows[i][j], t, 0); err != nil {
				return nil, err
			}
		}
		ts[j] = t
		cols[j] = Column{Name: "column" + itoa(j+1), T: t}
	}
	var src physical.Node = &physical.Values{Rows: rows, ColumnTypes: ts}
	if len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil {
		var keys []exec.SortKey
		for _, o := range s.SortClause {
			sb := o.GetSortBy()
			c := sb.Node.GetAConst()
			if c == nil || c.GetIval() == nil || int(c.GetIval().Ival) > width || c.GetIval().Ival < 1 {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "ORDER BY on VALUES takes column positions")
			}
			k := int(c.GetIval().Ival) - 1
			desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
			keys = append(keys, exec.SortKey{Expr: &expr.Col{Idx: k, T: ts[k]}, Desc: desc, NullsFirst: desc})
		}
		if len(keys) > 0 {
			src = &physical.Sort{In: src, Keys: keys}
		}
		limit, offset, count, skip, err := p.limits(s)
		if err != nil {
			return nil, err
		}
		src = &physical.Limit{In: src, Limit: limit, Offset: offset, Count: count, Skip: skip}
	}
	return &Query{Root: src, Columns: cols}, nil
}

func itoa(i int) string {
	const d = "0123456789"
	if i < 10 {
		return d[i : i+1]
	}
	return itoa(i/10) + d[i%10:i%10+1]
}

// columnName is the name PostgreSQL gives an unaliased target.
func columnName(n *pg.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.Sval
		}
	case n.GetFuncCall() != nil:
		return funcName(n.GetFuncCall())
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		// A column or function name beats the type name; a cast's or
		// CASE's name does not (PostgreSQL's FigureColname strengths).
		if strongName(tc.Arg) {
			return columnName(tc.Arg)
		}
		names := tc.TypeName.Names
		return strings.ToLower(names[len(names)-1].GetString_().Sval)
	case n.GetAIndirection() != nil:
		// arr[i] is named after arr (a field selection after the field).
		ind := n.GetAIndirection()
		for i := len(ind.Indirection) - 1; i >= 0; i-- {
			if s := ind.Indirection[i].GetString_(); s != nil {
				return s.Sval
			}
		}
		return columnName(ind.Arg)
	case n.GetAArrayExpr() != nil:
		return "array"
	case n.GetRowExpr() != nil:
		return "row"
	case n.GetGroupingFunc() != nil:
		return "grouping"
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg.MinMaxOp_IS_LEAST {
			return "least"
		}
		return "greatest"
	case n.GetCaseExpr() != nil:
		// CASE takes its ELSE's name when that is a strong one.
		if d := n.GetCaseExpr().Defresult; d != nil && strongName(d) {
			return columnName(d)
		}
		return "case"
	case n.GetSqlvalueFunction() != nil:
		switch n.GetSqlvalueFunction().Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return "current_date"
		case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
			return "localtimestamp"
		case pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
			return "localtime"
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER:
			return "current_user"
		case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
			return "session_user"
		case pg.SQLValueFunctionOp_SVFOP_USER:
			return "user"
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return "current_role"
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
			return "current_catalog"
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
			return "current_schema"
		}
		return "current_timestamp"
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif"
	case n.GetSubLink() != nil:
		sl := n.GetSubLink()
		switch sl.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists"
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array"
		case pg.SubLinkType_EXPR_SUBLINK:
			// A scalar subquery is named after its one target.
			if sel := sl.Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
				rt := sel.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name
				}
				return columnName(rt.Val)
			}
		}
	}
	return "?column?"
}

func containsAggregate(n *pg.Node) bool {
	if n == nil {
		return false
	}
	found := false
	var walk func(m *pg.Node)
	walk = func(m *pg.Node) {
		if m == nil || found {
			return
		}
		switch {
		case m.GetFuncCall() != nil:
			fc := m.GetFuncCall()
			if isAggregate(fc) {
				found = true
				return
			}
			for _, a := range fc.Args {
				walk(a)
			}
			if fc.Over != nil {
				walk(&pg.Node{Node: &pg.Node_WindowDef{WindowDef: fc.Over}})
			}
		case m.GetWindowDef() != nil:
			for _, a := range m.GetWindowDef().PartitionClause {
				walk(a)
			}
			for _, a := range m.GetWindowDef().OrderClause {
				walk(a)
			}
		case m.GetSortBy() != nil:
			walk(m.GetSortBy().Node)
		case m.GetAExpr() != nil:
			walk(m.GetAExpr().Lexpr)
			walk(m.GetAExpr().Rexpr)
		case m.GetBoolExpr() != nil:
			for _, a := range m.GetBoolExpr().Args {
				walk(a)
			}
		case m.GetTypeCast() != nil:
			walk(m.GetTypeCast().Arg)
		case m.GetNullTest() != nil:
			walk(m.GetNullTest().Arg)
		case m.GetCoalesceExpr() != nil:
			for _, a := range m.GetCoalesceExpr().Args {
				walk(a)
			}
		case m.GetCaseExpr() != nil:
			ce := m.GetCaseExpr()
			walk(ce.Arg)
			walk(ce.Defresult)
			for _, w := range ce.Args {
				walk(w.GetCaseWhen().Expr)
				walk(w.GetCaseWhen().Result)
			}
		case m.GetList() != nil:
			for _, a := range m.GetList().Items {
				walk(a)
			}
		}
	}
	walk(n)
	return found
}

func nodeLocation(n *pg.Node) int32 {
	switch {
	case n.GetAExpr() != nil:
		return n.GetAExpr().Location
	case n.GetColumnRef() != nil:
		return n.GetColumnRef().Location
	case n.GetAConst() != nil:
		return n.GetAConst().Location
	case n.GetBoolExpr() != nil:
		return n.GetBoolExpr().Location
	case n.GetFuncCall() != nil:
		return n.GetFuncCall().Location
	case n.GetTypeCast() != nil:
		// PostgreSQL's exprLocation: the leftmost of the cast and its
		// argument ('1'::text points at the literal).
		tc := n.GetTypeCast()
		if a := nodeLocation(tc.Arg); a >= 0 && (a < tc.Location || tc.Location < 0) {
			return a
		}
		return tc.Location
	case n.GetNullTest() != nil:
		return n.GetNullTest().Location
	}
	return -1
}

// strongName reports whether n's column name would win over an enclosing
// cast's type name: a column, function or keyword-expression name, or a
// cast of one.
func strongName(n *pg.Node) bool {
	switch {
	case n.GetTypeCast() != nil:
		return strongName(n.GetTypeCast().Arg)
	case n.GetCaseExpr() != nil:
		d := n.GetCaseExpr().Defresult
		return d != nil && strongName(d)
	}
	return columnName(n) != "?column?"
}
