package plan

import (
	"strconv"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Row constructors, ROW(a, b) or (a, b), and what PostgreSQL does with
// them. Comparisons of two rows are expanded, as PostgreSQL's parser
// does, into comparisons of their fields:
//
//	(a, b) = (x, y)    a = x AND b = y
//	(a, b) <> (x, y)   a <> x OR b <> y
//	(a, b) < (x, y)    a < x OR (a = x AND b < y), and likewise for <=, >, >=:
//	                   the first pair of fields that is not equal decides,
//	                   a NULL in it makes the result NULL
//	(a, b) IS [NOT] DISTINCT FROM (x, y)   field by field
//	(a, b) IN ((1, 2), (3, 4))             (a, b) = (1, 2) OR (a, b) = (3, 4)
//	ROW(a, b) IS NULL                      a IS NULL AND b IS NULL
//	ROW(a, b) IS NOT NULL                  a IS NOT NULL AND b IS NOT NULL
//
// (a, b) IN (SELECT x, y …) is in rowInSubquery. A row anywhere else is a
// value of type record, whose text form is record_out's.

// rowElems is the fields of a row constructor; ok is false for anything
// else.
func rowElems(n *pg.Node) ([]*pg.Node, bool) {
	if r := n.GetRowExpr(); r != nil {
		return r.Args, true
	}
	return nil, false
}

func opNode(kind pg.A_Expr_Kind, op string, l, r *pg.Node, loc int32) *pg.Node {
	return pg.MakeAExprNode(kind, []*pg.Node{pg.MakeStrNode(op)}, l, r, loc)
}

func andOr(t pg.BoolExprType, args []*pg.Node, loc int32) *pg.Node {
	if len(args) == 1 {
		return args[0]
	}
	return pg.MakeBoolExprNode(t, args, loc)
}

// bindRowOp binds an operator expression with a row operand; ok is false
// when a has none.
func (b *binder) bindRowOp(a *pg.A_Expr) (e expr.Expr, ok bool, err error) {
	if a.Lexpr == nil || a.Rexpr == nil {
		return nil, false, nil
	}
	_, lrow := rowElems(a.Lexpr)
	_, rrow := rowElems(a.Rexpr)
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		if !lrow && !rrow {
			return nil, false, nil
		}
		n, err := b.expandRowCompare(a.Kind, opName(a.Name), a.Lexpr, a.Rexpr, a.Location)
		if err != nil {
			return nil, true, err
		}
		e, err := b.bind(n)
		return e, true, err
	case pg.A_Expr_Kind_AEXPR_IN:
		if !lrow {
			return nil, false, nil
		}
		// IN is = with each item, OR-ed; NOT IN (op <>) is <> with each, AND-ed.
		op, join := "=", pg.BoolExprType_OR_EXPR
		if opName(a.Name) == "<>" {
			op, join = "<>", pg.BoolExprType_AND_EXPR
		}
		var terms []*pg.Node
		for _, it := range a.Rexpr.GetList().GetItems() {
			n, err := b.expandRowCompare(pg.A_Expr_Kind_AEXPR_OP, op, a.Lexpr, it, a.Location)
			if err != nil {
				return nil, true, err
			}
			terms = append(terms, n)
		}
		e, err := b.bind(andOr(join, terms, a.Location))
		return e, true, err
	}
	return nil, false, nil
}

// expandRowCompare is l op r over rows as comparisons of their fields.
func (b *binder) expandRowCompare(kind pg.A_Expr_Kind, op string, l, r *pg.Node, loc int32) (*pg.Node, error) {
	at := pos(b.p.query, loc)
	ls, lok := rowElems(l)
	rs, rok := rowElems(r)
	if !lok || !rok {
		if kind == pg.A_Expr_Kind_AEXPR_OP {
			if sl := r.GetSubLink(); lok && sl != nil && sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK {
				return b.rowCompareSubquery(op, ls, sl, loc)
			}
		}
		// A row against a scalar: PostgreSQL looks for an operator on
		// record and finds none.
		other, oloc := r, "record %s %s"
		if !lok {
			other, oloc = l, "%[2]s %[1]s record"
		}
		e, err := b.bind(other)
		if err != nil {
			return nil, err
		}
		return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: "+oloc, op, e.Type()).WithPosition(at).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	if len(ls) != len(rs) {
		return nil, pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions").WithPosition(at)
	}
	if len(ls) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot compare rows of zero length").WithPosition(at)
	}
	pair := func(k pg.A_Expr_Kind, op string, i int) *pg.Node { return opNode(k, op, ls[i], rs[i], loc) }
	all := func(k pg.A_Expr_Kind, op string, join pg.BoolExprType) *pg.Node {
		terms := make([]*pg.Node, len(ls))
		for i := range ls {
			terms[i] = pair(k, op, i)
		}
		return andOr(join, terms, loc)
	}
	switch kind {
	case pg.A_Expr_Kind_AEXPR_DISTINCT:
		return all(kind, "=", pg.BoolExprType_OR_EXPR), nil
	case pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return all(kind, "=", pg.BoolExprType_AND_EXPR), nil
	}
	switch op {
	case "=":
		return all(kind, "=", pg.BoolExprType_AND_EXPR), nil
	case "<>":
		return all(kind, "<>", pg.BoolExprType_OR_EXPR), nil
	case "<", "<=", ">", ">=":
		strict := op[:1]
		n := pair(kind, op, len(ls)-1)
		for i := len(ls) - 2; i >= 0; i-- {
			n = andOr(pg.BoolExprType_OR_EXPR, []*pg.Node{
				pair(kind, strict, i),
				andOr(pg.BoolExprType_AND_EXPR, []*pg.Node{pair(kind, "=", i), n}, loc),
			}, loc)
		}
		if len(ls) > 1 {
			// The first fields bound the rest: (ts, id) < ($1, $2) implies
			// ts <= $1, a plain condition on one column that scans can
			// prune files with (keyset pagination). It changes no result:
			// where it is false the comparison is too, and a NULL first
			// field makes both NULL.
			n = andOr(pg.BoolExprType_AND_EXPR, []*pg.Node{pair(kind, strict+"=", 0), n}, loc)
		}
		return n, nil
	}
	// Another operator: PostgreSQL looks it up for the first fields, then
	// finds it is no comparison.
	if _, err := b.bind(pair(kind, op, 0)); err != nil {
		return nil, err
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "could not determine interpretation of row comparison operator %s", op).
		WithPosition(at).WithHint("Row comparison operators must be associated with btree operator families.")
}

// rowNullTest is ROW(…) IS [NOT] NULL: every field NULL, or every field
// not NULL.
func (b *binder) rowNullTest(nt *pg.NullTest, elems []*pg.Node) (expr.Expr, error) {
	terms := make([]*pg.Node, len(elems))
	for i, el := range elems {
		terms[i] = &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: el, Nulltesttype: nt.Nulltesttype, Location: nt.Location}}}
	}
	if len(terms) == 0 {
		// ROW() has no fields: all of them are NULL and not NULL.
		return &expr.Const{D: types.BoolDatum(true)}, nil
	}
	return b.bind(andOr(pg.BoolExprType_AND_EXPR, terms, nt.Location))
}

// rowValue is ROW(a, b) as a value: an anonymous record with fields f1,
// f2, … in record_out's text form.
func (b *binder) rowValue(r *pg.RowExpr) (expr.Expr, error) {
	args := make([]expr.Expr, len(r.Args))
	fields := make([]types.Field, len(r.Args))
	for i, n := range r.Args {
		e, err := b.bind(n)
		if err != nil {
			return nil, err
		}
		if e.Type().Kind == types.Unknown {
			if e, err = b.coerce(e, types.TText, nodeLocation(n)); err != nil {
				return nil, err
			}
		}
		args[i] = e
		fields[i] = types.Field{Name: "f" + strconv.Itoa(i+1), T: e.Type()}
	}
	t := types.RecordOf(fields...)
	return &expr.Func{Name: "row", Args: args, T: t, Fn: func(c *expr.Ctx, d []types.Datum) (types.Datum, error) {
		vals := make([]string, len(d))
		null := make([]bool, len(d))
		for i, x := range d {
			if x.Null {
				null[i] = true
				continue
			}
			vals[i] = types.FormatText(x, c.Loc)
		}
		return types.Datum{T: t, S: types.FormatRecord(vals, null)}, nil
	}}, nil
}

// rowInSubquery is (a, b) IN (SELECT x, y …), n columns (and any other
// (a, b) op ANY/ALL (SELECT …)), as a scalar subquery that keeps IN's
// three values: true when a row of the subquery is equal, else NULL when
// one might be (a comparison was NULL), else false (also for no rows):
//
//	(SELECT CASE max(CASE WHEN (a, b) = (s.c1, s.c2) THEN 2
//	                      WHEN NOT (a, b) = (s.c1, s.c2) THEN 0 ELSE 1 END)
//	        WHEN 2 THEN true WHEN 1 THEN NULL ELSE false END
//	 FROM (SELECT x, y …) s(c1, c2))
func (b *binder) rowInSubquery(sl *pg.SubLink, elems []*pg.Node, ncols int) (expr.Expr, error) {
	if err := widthError(b, sl.Location, ncols, len(elems)); err != nil {
		return nil, err
	}
	for _, el := range elems {
		if containsAggregate(el) {
			// The row's fields go inside the subquery's max(…).
			return nil, pgerr.New(pgerr.FeatureNotSupported, "a row with aggregates IN (subquery) is not supported").WithPosition(pos(b.p.query, sl.Location))
		}
	}
	// IN is = ANY. op ALL is NOT (NOT op) ANY, which keeps the three
	// values: false when a comparison is false, else NULL when one is
	// NULL, else true.
	op := "="
	if len(sl.OperName) > 0 {
		op = opName(sl.OperName)
	}
	all := sl.SubLinkType == pg.SubLinkType_ALL_SUBLINK
	loc := sl.Location
	boolConst := func(v bool) *pg.Node {
		return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: v}}, Location: loc}}}
	}
	in, err := b.bind(rowSubquery(sl, ncols, func(refs []*pg.Node) *pg.Node {
		eq := opNode(pg.A_Expr_Kind_AEXPR_OP, op, rowNode(elems, loc), rowNode(refs, loc), loc)
		if all {
			eq = pg.MakeBoolExprNode(pg.BoolExprType_NOT_EXPR, []*pg.Node{eq}, loc)
		}
		inner := pg.MakeCaseExprNode(nil, []*pg.Node{
			pg.MakeCaseWhenNode(eq, pg.MakeAConstIntNode(2, loc), loc),
			pg.MakeCaseWhenNode(pg.MakeBoolExprNode(pg.BoolExprType_NOT_EXPR, []*pg.Node{eq}, loc), pg.MakeAConstIntNode(0, loc), loc),
		}, loc)
		inner.GetCaseExpr().Defresult = pg.MakeAConstIntNode(1, loc)
		mx := pg.MakeFuncCallNode([]*pg.Node{pg.MakeStrNode("max")}, []*pg.Node{inner}, loc)
		outer := pg.MakeCaseExprNode(mx, []*pg.Node{
			pg.MakeCaseWhenNode(pg.MakeAConstIntNode(2, loc), boolConst(true), loc),
			pg.MakeCaseWhenNode(pg.MakeAConstIntNode(1, loc), &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true, Location: loc}}}, loc),
		}, loc)
		outer.GetCaseExpr().Defresult = boolConst(false)
		return outer
	}))
	if err != nil || !all {
		return in, err
	}
	return &expr.Not{Arg: in}, nil
}

// subqueryWidth plans a subquery as bindSubquery does, for its number of
// columns.
func (b *binder) subqueryWidth(sl *pg.SubLink) (int, error) {
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return 0, pgerr.New(pgerr.FeatureNotSupported, "this subquery form is not supported").WithPosition(pos(b.p.query, sl.Location))
	}
	child := &Planner{ctx: b.p.ctx, cat: b.p.cat, ec: b.p.ec, query: b.p.query, ParamTypes: b.p.ParamTypes, deps: b.p.deps, ctes: b.p.ctes,
		outer: &outerRow{sc: b.sc, frame: expr.NewFrame(), parent: b.p.outer, owner: b.p}}
	if b.aggMode {
		child.outer.grouped = b.outerGrouped()
	}
	q, err := child.Select(sel)
	if err != nil {
		return 0, err
	}
	return len(q.Columns), nil
}

// rowSubquery is a SELECT over sl's subquery as a derived table whose
// columns are named; cols refers to them.
func rowSubquery(sl *pg.SubLink, n int, cols func([]*pg.Node) *pg.Node) *pg.Node {
	loc := sl.Location
	const alias = "?row?"
	refs := make([]*pg.Node, n)
	names := make([]*pg.Node, n)
	for i := range refs {
		name := "?c" + strconv.Itoa(i+1) + "?"
		names[i] = pg.MakeStrNode(name)
		refs[i] = pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode(alias), pg.MakeStrNode(name)}, loc)
	}
	from := &pg.Node{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
		Subquery: sl.Subselect,
		Alias:    &pg.Alias{Aliasname: alias, Colnames: names},
	}}}
	sel := &pg.SelectStmt{
		TargetList:  []*pg.Node{pg.MakeResTargetNodeWithVal(cols(refs), loc)},
		FromClause:  []*pg.Node{from},
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:          pg.SetOperation_SETOP_NONE,
	}
	return &pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{
		SubLinkType: pg.SubLinkType_EXPR_SUBLINK,
		Subselect:   &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}},
		Location:    loc,
	}}}
}

// widthError is PostgreSQL's complaint about a subquery with a row of
// another width, at loc (the operator).
func widthError(b *binder, loc int32, ncols, want int) error {
	at := pos(b.p.query, loc)
	switch {
	case ncols > want:
		return pgerr.New(pgerr.SyntaxError, "subquery has too many columns").WithPosition(at)
	case ncols < want:
		return pgerr.New(pgerr.SyntaxError, "subquery has too few columns").WithPosition(at)
	}
	return nil
}

func rowNode(args []*pg.Node, loc int32) *pg.Node {
	return &pg.Node{Node: &pg.Node_RowExpr{RowExpr: &pg.RowExpr{Args: args, Location: loc}}}
}

// rowCompareSubquery is (a, b) op (SELECT x, y …), the subquery giving at
// most one row: (SELECT (a, b) op (s.c1, s.c2) FROM (SELECT x, y …) s(c1, c2)),
// NULL without a row, an error with more than one.
func (b *binder) rowCompareSubquery(op string, elems []*pg.Node, sl *pg.SubLink, loc int32) (*pg.Node, error) {
	n, err := b.subqueryWidth(sl)
	if err != nil {
		return nil, err
	}
	if err := widthError(b, loc, n, len(elems)); err != nil {
		return nil, err
	}
	return rowSubquery(sl, n, func(refs []*pg.Node) *pg.Node {
		return opNode(pg.A_Expr_Kind_AEXPR_OP, op, rowNode(elems, loc), rowNode(refs, loc), loc)
	}), nil
}

// wholeRow is a table's name used as a value (json_agg(t), row_to_json(t),
// SELECT t FROM t): a record of the table's columns, named after them.
// PostgreSQL tries it once no column has the name; ok is false when no
// FROM item has it either.
func (b *binder) wholeRow(name string) (expr.Expr, bool) {
	var args []expr.Expr
	var fields []types.Field
	for i, c := range b.sc.cols {
		if c.table != name || c.hidden || c.system {
			continue
		}
		b.sc.used[i] = true
		args = append(args, &expr.Col{Idx: i, T: c.t, Name: b.sc.label(i)})
		fields = append(fields, types.Field{Name: c.name, T: c.t})
	}
	if len(args) == 0 {
		return nil, false
	}
	t := types.RecordOf(fields...)
	return &expr.Func{Name: name, Args: args, T: t, Fn: func(c *expr.Ctx, d []types.Datum) (types.Datum, error) {
		vals := make([]string, len(d))
		null := make([]bool, len(d))
		for i, x := range d {
			if x.Null {
				null[i] = true
				continue
			}
			vals[i] = types.FormatText(x, c.Loc)
		}
		return types.Datum{T: t, S: types.FormatRecord(vals, null)}, nil
	}}, true
}
