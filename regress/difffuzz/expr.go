package difffuzz

import (
	"fmt"
	"strings"
)

// literal is a constant of kind k, sometimes a typed NULL.
func (g *gen) literal(k Kind) *Expr {
	if g.chance(10) {
		return constant(k, "CAST(NULL AS "+castName(k)+")")
	}
	pick := func(vs ...string) *Expr { return constant(k, vs[g.r.Intn(len(vs))]) }
	switch k {
	case KInt:
		return pick("0", "1", "2", "3", "-1", "7", "10")
	case KFloat:
		return pick("CAST(0.5 AS float8)", "CAST(2 AS float8)", "CAST(-1.25 AS float8)", "CAST(0 AS float8)")
	case KNumeric:
		// 2.0, not 2: an integer literal makes floor(2) float8.
		return pick("1.5", "0.25", "2.0", "-3.5", "100.001")
	case KText:
		return pick("'a'", "'b'", "''", "'ab'", "'x%y'", "'A'")
	case KBool:
		return pick("true", "false")
	case KDate:
		return pick("DATE '2020-01-01'", "DATE '2020-02-29'", "DATE '2021-12-31'")
	case KTimestamp:
		return pick("TIMESTAMP '2020-01-01 12:30:00'", "TIMESTAMP '2021-06-15 08:00:00'")
	case KTimestamptz:
		return pick("TIMESTAMPTZ '2020-01-01 12:30:00+00'", "TIMESTAMPTZ '2021-06-15 08:00:00-05'")
	case KInterval:
		return pick("INTERVAL '1 day'", "INTERVAL '2 hours'", "INTERVAL '1 month'", "INTERVAL '90 minutes'", "INTERVAL '-3 days'")
	case KUUID:
		return pick("CAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS uuid)", "CAST('00000000-0000-0000-0000-000000000000' AS uuid)")
	case KBytea:
		return pick(`CAST('\x01' AS bytea)`, `CAST('\x616263' AS bytea)`)
	case KJSONB:
		return pick(`CAST('{"a": 1}' AS jsonb)`, `CAST('[1, 2]' AS jsonb)`)
	}
	panic("literal: " + k.String())
}

func castName(k Kind) string {
	return [...]string{"int4", "float8", "numeric", "text", "bool", "date", "timestamp", "timestamptz", "uuid", "bytea", "jsonb", "interval"}[k]
}

// leaf is a column of kind k from sc (or, in a subquery, from an outer
// level: a correlation), else a literal.
func (g *gen) leaf(sc *scope, k Kind) *Expr {
	if g.r.Intn(5) > 0 {
		cs := sc.ofKind(k)
		if sc.outer != nil && g.chance(4) {
			if oc := sc.outer.ofKind(k); len(oc) > 0 {
				cs = oc
			}
		}
		if len(cs) > 0 {
			return col(cs[g.r.Intn(len(cs))])
		}
	}
	return g.literal(k)
}

// expr is a random expression of kind k over sc, at most depth levels of
// operators deep.
func (g *gen) expr(sc *scope, k Kind, depth int) *Expr {
	if depth <= 0 || g.chance(3) {
		return g.leaf(sc, k)
	}
	d := depth - 1
	e := func(k Kind) *Expr { return g.expr(sc, k, d) }
	// Kind-independent forms.
	switch g.r.Intn(12) {
	case 0:
		return node(k, "CASE WHEN %s THEN %s ELSE %s END", e(KBool), e(k), e(k))
	case 1:
		return node(k, "COALESCE(%s, %s)", e(k), e(k))
	case 2:
		if orderable(k) && k != KBool {
			return node(k, []string{"GREATEST(%s, %s)", "LEAST(%s, %s)"}[g.r.Intn(2)], e(k), e(k))
		}
	case 3:
		if g.nsub < 2 && k != KInterval {
			return g.scalarSubquery(sc, k)
		}
	case 4:
		if k != KJSONB && k != KInterval {
			return node(k, "NULLIF(%s, %s)", e(k), e(k))
		}
	}
	switch k {
	case KInt:
		switch g.r.Intn(10) {
		case 0, 1:
			return node(k, "(%s "+[]string{"+", "-", "*"}[g.r.Intn(3)]+" %s)", e(KInt), e(KInt))
		case 2:
			return node(k, "(%s "+[]string{"/", "%"}[g.r.Intn(2)]+" %s)", e(KInt), g.divisor(e(KInt)))
		case 3:
			return node(k, []string{"abs(%s)", "(- %s)", "CAST(sign(%s) AS int4)"}[g.r.Intn(3)], e(KInt))
		case 4:
			return node(k, []string{"length(%s)", "char_length(%s)", "strpos(%s, 'a')", "ascii(%s)"}[g.r.Intn(4)], e(KText))
		case 5:
			to := []string{"int2", "int4", "int8"}[g.r.Intn(3)]
			if to == "int2" && !g.gates.EagerErrors {
				// Overflows where PostgreSQL does not evaluate.
				to = "int4"
			}
			return node(k, "CAST(%s AS "+to+")", e([]Kind{KFloat, KNumeric, KInt}[g.r.Intn(3)]))
		case 6:
			return node(k, "CAST(date_part('"+[]string{"year", "month", "day", "dow", "doy"}[g.r.Intn(5)]+"', %s) AS int4)", e([]Kind{KDate, KTimestamp}[g.r.Intn(2)]))
		case 7:
			return node(k, "(%s - %s)", e(KDate), e(KDate))
		case 8:
			return node(k, "CAST(EXTRACT("+[]string{"HOUR", "MINUTE", "DAY", "YEAR"}[g.r.Intn(4)]+" FROM %s) AS int8)", e([]Kind{KTimestamp, KTimestamptz}[g.r.Intn(2)]))
		}
	case KFloat:
		switch g.r.Intn(6) {
		case 0, 1:
			op := []string{"+", "-", "*", "/"}[g.r.Intn(4)]
			d := e([]Kind{KFloat, KInt}[g.r.Intn(2)])
			if op == "/" {
				d = g.divisor(d)
			}
			return node(k, "(%s "+op+" %s)", e(KFloat), d)
		case 2:
			return node(k, []string{"abs(%s)", "floor(%s)", "ceil(%s)", "round(%s)", "trunc(%s)", "sqrt(abs(%s))"}[g.r.Intn(6)], e(KFloat))
		case 3:
			return node(k, "CAST(%s AS float8)", e([]Kind{KInt, KNumeric, KFloat}[g.r.Intn(3)]))
		case 4:
			return node(k, "CAST(%s AS float4)", e([]Kind{KInt, KFloat}[g.r.Intn(2)]))
		}
	case KNumeric:
		switch g.r.Intn(6) {
		case 0, 1:
			op := []string{"+", "-", "*", "/", "%"}[g.r.Intn(5)]
			d := e([]Kind{KNumeric, KInt}[g.r.Intn(2)])
			if op == "/" || op == "%" {
				d = g.divisor(d)
			}
			return node(k, "(%s "+op+" %s)", e(KNumeric), d)
		case 2:
			return node(k, []string{"round(%s, 1)", "trunc(%s)", "abs(%s)", "round(%s)", "floor(%s)", "ceil(%s)"}[g.r.Intn(6)], e(KNumeric))
		case 3:
			return node(k, "CAST(%s AS numeric)", e([]Kind{KInt, KNumeric}[g.r.Intn(2)]))
		case 4:
			return node(k, "CAST(%s AS numeric(15,3))", e([]Kind{KInt, KNumeric, KFloat}[g.r.Intn(3)]))
		}
	case KText:
		switch g.r.Intn(9) {
		case 0:
			return node(k, []string{"upper(%s)", "lower(%s)", "trim(%s)", "ltrim(%s)", "rtrim(%s)", "reverse(%s)", "initcap(%s)", "md5(%s)"}[g.r.Intn(8)], e(KText))
		case 1:
			return node(k, "(%s || %s)", e(KText), e(KText))
		case 2:
			return node(k, []string{"substr(%s, 2)", "substr(%s, 1, 2)", "left(%s, 2)", "right(%s, 1)", "lpad(%s, 4, '*')", "rpad(%s, 3)", "repeat(%s, 2)", "split_part(%s, ' ', 1)", "replace(%s, 'a', 'xy')"}[g.r.Intn(9)], e(KText))
		case 3:
			return node(k, "concat(%s, '-', %s)", e(KText), e(g.scalarKind()))
		case 4:
			src := g.scalarKind()
			return node(k, "CAST(%s AS text)", e(src))
		case 5:
			return node(k, "(%s ->> 'a')", e(KJSONB))
		case 6:
			return node(k, "to_char(%s, 'YYYY-MM-DD HH24:MI')", e([]Kind{KTimestamp, KTimestamptz, KDate}[g.r.Intn(3)]))
		}
	case KBool:
		switch g.r.Intn(14) {
		case 0, 1, 2:
			a := g.scalarKind()
			for !orderable(a) {
				a = g.scalarKind()
			}
			b := a
			if g.chance(3) {
				for _, c := range []Kind{KInt, KFloat, KNumeric, KDate, KTimestamp, KTimestamptz} {
					if comparable(a, c) && g.chance(2) {
						b = c
					}
				}
			}
			return node(k, "(%s "+g.cmpOp()+" %s)", e(a), e(b))
		case 3:
			return node(k, "(%s IS "+[]string{"NULL", "NOT NULL"}[g.r.Intn(2)]+")", e(g.scalarKind()))
		case 4:
			return node(k, "(%s "+[]string{"AND", "OR"}[g.r.Intn(2)]+" %s)", e(KBool), e(KBool))
		case 5:
			return node(k, "(NOT %s)", e(KBool))
		case 6:
			a := []Kind{KInt, KNumeric, KText, KDate}[g.r.Intn(4)]
			return node(k, "(%s "+[]string{"BETWEEN", "NOT BETWEEN"}[g.r.Intn(2)]+" %s AND %s)", e(a), e(a), e(a))
		case 7:
			a := []Kind{KInt, KText, KNumeric}[g.r.Intn(3)]
			return node(k, "(%s "+[]string{"IN", "NOT IN"}[g.r.Intn(2)]+" (%s, %s, %s))", e(a), g.literal(a), g.literal(a), e(a))
		case 8:
			return node(k, "(%s "+[]string{"LIKE", "NOT LIKE", "ILIKE"}[g.r.Intn(3)]+" "+[]string{"'a%'", "'%b'", "'_'", "'%'", "'A%'", "'x\\%y'"}[g.r.Intn(6)]+")", e(KText))
		case 9:
			a := g.scalarKind()
			return node(k, "(%s IS "+[]string{"DISTINCT", "NOT DISTINCT"}[g.r.Intn(2)]+" FROM %s)", e(a), e(a))
		case 10:
			return node(k, "(%s IS "+[]string{"TRUE", "NOT TRUE", "FALSE", "UNKNOWN"}[g.r.Intn(4)]+")", e(KBool))
		case 11, 12:
			if g.nsub < 2 {
				return g.boolSubquery(sc)
			}
		case 13:
			return node(k, []string{"(%s ? 'a')", `(%s @> '{"a": 1}')`}[g.r.Intn(2)], e(KJSONB))
		}
	case KDate:
		switch g.r.Intn(4) {
		case 0:
			// date + int4 only: PostgreSQL has no date + int8.
			return node(k, "(%s "+[]string{"+", "-"}[g.r.Intn(2)]+" CAST(%s AS int4))", e(KDate), e(KInt))
		case 1:
			return node(k, "CAST(%s AS date)", e([]Kind{KTimestamp, KTimestamptz, KDate}[g.r.Intn(3)]))
		}
	case KTimestamp:
		switch g.r.Intn(4) {
		case 0:
			return node(k, "date_trunc('"+[]string{"hour", "day", "month", "year", "minute"}[g.r.Intn(5)]+"', %s)", e(KTimestamp))
		case 1:
			return node(k, "(%s "+[]string{"+", "-"}[g.r.Intn(2)]+" %s)", e(KTimestamp), e(KInterval))
		case 2:
			return node(k, "CAST(%s AS timestamp)", e([]Kind{KDate, KTimestamptz}[g.r.Intn(2)]))
		}
	case KTimestamptz:
		switch g.r.Intn(4) {
		case 0:
			return node(k, "date_trunc('"+[]string{"hour", "day", "month"}[g.r.Intn(3)]+"', %s)", e(KTimestamptz))
		case 1:
			return node(k, "(%s "+[]string{"+", "-"}[g.r.Intn(2)]+" %s)", e(KTimestamptz), e(KInterval))
		case 2:
			return node(k, "CAST(%s AS timestamptz)", e([]Kind{KDate, KTimestamp}[g.r.Intn(2)]))
		}
	case KInterval:
		switch g.r.Intn(4) {
		case 0:
			a := []Kind{KTimestamp, KTimestamptz}[g.r.Intn(2)]
			return node(k, "(%s - %s)", e(a), e(a))
		case 1:
			return node(k, "(%s * %s)", e(KInterval), e(KInt))
		case 2:
			return node(k, "(%s + %s)", e(KInterval), e(KInterval))
		}
	case KJSONB:
		switch g.r.Intn(3) {
		case 0:
			return node(k, "(%s -> 'a')", e(KJSONB))
		}
	}
	return g.leaf(sc, k)
}

// scalarKind is any kind, ints and text most often.
func (g *gen) scalarKind() Kind {
	if g.chance(2) {
		return []Kind{KInt, KText}[g.r.Intn(2)]
	}
	return Kind(g.r.Intn(int(nKinds)))
}

// divisor is d, or NULLIF(d, 0) unless Gates.EagerErrors is set.
func (g *gen) divisor(d *Expr) *Expr {
	if g.gates.EagerErrors {
		return d
	}
	return node(d.K, "NULLIF(%s, 0)", d)
}

// aggExpr is an aggregate of kind k over sc's rows, sometimes DISTINCT,
// ordered (when the order changes the result) or with FILTER, sometimes
// inside an expression.
func (g *gen) aggExpr(sc *scope, k Kind) *Expr {
	if !g.gates.OuterAggregate && sc.outer != nil {
		// Arguments naming only outer columns would make it an
		// aggregate of the outer query.
		sc = &scope{cols: sc.cols}
	}
	arg := func(k Kind) *Expr { return g.expr(sc, k, 1) }
	var e *Expr
	wrap := "" // a cast around the call, added after FILTER
	distinct := ""
	if g.gates.FilterDistinctAgg && g.chance(5) {
		distinct = "DISTINCT "
	}
	switch k {
	case KInt:
		switch g.r.Intn(4) {
		case 0:
			e = node(k, "count(*)")
		case 1:
			e = node(k, "count("+distinct+"%s)", arg(g.scalarKind()))
		case 2:
			e = node(k, []string{"min(%s)", "max(%s)"}[g.r.Intn(2)], arg(KInt))
		default:
			e, wrap = node(k, "sum("+distinct+"%s)", arg(KInt)), "CAST(%s AS int8)"
		}
	case KFloat:
		e = node(k, []string{"sum(", "avg(", "min(", "max("}[g.r.Intn(4)]+distinct+"%s)", arg(KFloat))
	case KNumeric:
		fn := []string{"sum(", "avg(", "min(", "max("}[g.r.Intn(4)]
		ak := []Kind{KInt, KNumeric}[g.r.Intn(2)]
		if fn != "avg(" && ak == KInt {
			// sum(int4) is int8, min(int) int: numeric, for floor() and
			// % to take it as numeric.
			e, wrap = node(k, fn+distinct+"%s)", arg(ak)), "CAST(%s AS numeric)"
		} else {
			e = node(k, fn+distinct+"%s)", arg(ak))
		}
	case KText:
		if g.chance(2) {
			a := arg(KText)
			if a.Const {
				// PostgreSQL refuses DISTINCT of a constant ordered by it (42P10).
				distinct = ""
			}
			e = node(k, "string_agg("+distinct+"%s, ',' ORDER BY %s)", a, a)
		} else {
			e = node(k, []string{"min(%s)", "max(%s)"}[g.r.Intn(2)], arg(KText))
		}
	case KBool:
		e = node(k, []string{"bool_and(%s)", "bool_or(%s)", "every(%s)"}[g.r.Intn(3)], arg(KBool))
	case KInterval:
		if !g.gates.IntervalColumn {
			return g.literal(k)
		}
		e = node(k, []string{"min(%s)", "max(%s)"}[g.r.Intn(2)], arg(k))
	case KDate, KTimestamp, KTimestamptz:
		e = node(k, []string{"min(%s)", "max(%s)"}[g.r.Intn(2)], arg(k))
	default:
		// uuid, bytea and jsonb have no min/max in PostgreSQL 15.
		return g.literal(k)
	}
	e.Agg = true
	if !g.gates.EmptyAggFatal {
		for _, a := range e.Args {
			if a.Const && strings.HasPrefix(a.Parts[0], "CAST(NULL") {
				// A NULL of the argument's kind that is not a constant.
				*a = *node(a.K, "NULLIF(%s, %s)", g.leaf(sc, a.K), g.leaf(sc, a.K))
			}
		}
	}
	if !g.gates.UnknownAggArg {
		for i, a := range e.Args {
			if a.Const && a.K == KText {
				e.Args[i] = node(KText, "CAST(%s AS text)", a)
			}
		}
	}
	if g.gates.FilterDistinctAgg && g.chance(4) {
		f := g.expr(sc, KBool, 1)
		e.Parts[len(e.Parts)-1] += " FILTER (WHERE "
		e.Args = append(e.Args, f)
		e.Parts = append(e.Parts, ")")
	}
	if wrap != "" {
		e = node(k, wrap, e)
		e.Agg = true
	}
	if g.chance(5) {
		switch k {
		case KInt:
			return node(k, "(%s + "+fmt.Sprint(g.r.Intn(3))+")", e)
		case KText:
			return node(k, "upper(%s)", e)
		}
	}
	return e
}

// windowExpr is a window function call of kind k. When the function's
// result depends on the order of rows that ORDER BY leaves tied (row
// numbers, lag, ROWS frames), the window's ORDER BY is completed with every
// column in scope: rows tied then are equal in every column, and which of
// them comes first cannot change the output.
func (g *gen) windowExpr(sc *scope, k Kind) *Expr {
	var fn *Expr
	orderSensitive := false
	framed := false
	wrapNumeric := false
	switch k {
	case KInt:
		switch g.r.Intn(5) {
		case 0:
			fn = node(k, "row_number()")
			orderSensitive = true
		case 1:
			fn = node(k, []string{"rank()", "dense_rank()"}[g.r.Intn(2)])
		case 2:
			fn = node(k, "ntile(3)")
			orderSensitive = true
		case 3:
			fn = node(k, "count(*)")
			framed = true
		default:
			fn = node(k, []string{"min(%s)", "max(%s)", "count(%s)"}[g.r.Intn(3)], g.expr(sc, KInt, 1))
			framed = true
		}
	case KFloat:
		switch g.r.Intn(3) {
		case 0:
			fn = node(k, []string{"percent_rank()", "cume_dist()"}[g.r.Intn(2)])
		default:
			fn = node(k, []string{"sum(%s)", "avg(%s)"}[g.r.Intn(2)], g.expr(sc, KFloat, 1))
			framed = true
		}
	case KNumeric:
		ak := []Kind{KInt, KNumeric}[g.r.Intn(2)]
		fn = node(k, []string{"sum(%s)", "avg(%s)"}[g.r.Intn(2)], g.expr(sc, ak, 1))
		framed = true
		if ak == KInt && fn.Parts[0] == "sum(" {
			// sum(int4) is int8: numeric for ceil() and % to take.
			wrapNumeric = true
		}
	default:
		switch g.r.Intn(3) {
		case 0:
			fn = node(k, []string{"lag(%s)", "lead(%s)", "lag(%s, 2)"}[g.r.Intn(3)], g.expr(sc, k, 1))
			orderSensitive = true
		default:
			// Which row is first depends on the order of its peers.
			fn = node(k, []string{"first_value(%s)", "last_value(%s)"}[g.r.Intn(2)], g.expr(sc, k, 1))
			framed, orderSensitive = true, true
		}
	}
	// OVER (PARTITION BY … ORDER BY … frame)
	text := ""
	if g.chance(2) && len(sc.cols) > 0 {
		c := sc.cols[g.r.Intn(len(sc.cols))]
		if orderable(c.K) {
			text = "PARTITION BY " + c.SQL() + " "
		}
	}
	var order []string
	if g.r.Intn(3) > 0 || orderSensitive {
		for i := 0; i < 1+g.r.Intn(2); i++ {
			c := g.leaf(sc, g.itemKind(sc))
			if !orderable(c.K) || c.Const {
				continue
			}
			o := c.SQL()
			if g.chance(3) {
				o += " DESC"
			}
			order = append(order, o)
		}
	}
	frame := ""
	if framed && len(order) > 0 && g.chance(2) {
		frame = []string{
			" ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
			" ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
			" ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
			" ROWS 2 PRECEDING",
			" RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
			" RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
			" GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW",
		}[g.r.Intn(7)]
		if frame[1] == 'R' && frame[2] == 'O' {
			orderSensitive = true
		}
	}
	if framed && len(order) > 0 && k != KInt && k != KFloat && k != KNumeric {
		// first_value/last_value pick one row of a peer group.
		orderSensitive = true
	}
	if orderSensitive && g.winOrder {
		return g.expr(sc, k, 1)
	}
	if orderSensitive {
		g.winOrder = true
		for _, c := range sc.cols {
			if !orderable(c.K) {
				// A column that cannot be ordered may tell tied rows
				// apart: no window function then.
				return g.expr(sc, k, 1)
			}
			order = append(order, c.SQL())
		}
	}
	if len(order) > 0 {
		text += "ORDER BY "
		for i, o := range order {
			if i > 0 {
				text += ", "
			}
			text += o
		}
	}
	text += frame
	if !g.gates.UnknownAggArg {
		for i, a := range fn.Args {
			if a.Const && a.K == KText {
				fn.Args[i] = node(KText, "CAST(%s AS text)", a)
			}
		}
	}
	w := node(fn.K, "%s OVER ("+text+")", fn)
	w.Win = true
	if wrapNumeric {
		w = node(k, "CAST(%s AS numeric)", w)
		w.Win = true
	}
	return w
}

// scalarSubquery is (SELECT agg(…) FROM … [WHERE correlated]) of kind k.
func (g *gen) scalarSubquery(sc *scope, k Kind) *Expr {
	g.nsub++
	defer func() { g.nsub-- }()
	inner := &scope{outer: sc}
	q := &Select{Limit: -1, Offset: -1}
	q.From = []*From{g.fromItem(inner)}
	if g.r.Intn(3) > 0 {
		q.Where = g.correlation(inner)
	}
	q.Items = []*Item{{E: g.aggExpr(inner, k)}}
	if !q.Items[0].E.Agg {
		// No aggregate for this kind (aggExpr gave a constant): one row.
		q.Limit = 1
	}
	return node(k, "(%s)", &Expr{K: k, Sub: q})
}

// correlation is a condition tying a subquery's rows to the outer row.
func (g *gen) correlation(inner *scope) *Expr {
	for _, ic := range inner.cols {
		for _, oc := range inner.outer.cols {
			if ic.K == oc.K && orderable(ic.K) && g.chance(2) {
				return node(KBool, "%s = %s", col(ic), col(oc))
			}
		}
	}
	return g.expr(inner, KBool, 1)
}

// boolSubquery is EXISTS, IN or a quantified comparison over a subquery.
func (g *gen) boolSubquery(sc *scope) *Expr {
	g.nsub++
	defer func() { g.nsub-- }()
	inner := &scope{outer: sc}
	q := &Select{Limit: -1, Offset: -1}
	q.From = []*From{g.fromItem(inner)}
	if g.r.Intn(3) > 0 {
		q.Where = g.correlation(inner)
	}
	switch g.r.Intn(3) {
	case 0:
		q.Items = []*Item{{E: constant(KInt, "1")}}
		return node(KBool, []string{"EXISTS (%s)", "NOT EXISTS (%s)"}[g.r.Intn(2)], &Expr{K: KInt, Sub: q})
	default:
		k := []Kind{KInt, KText, KNumeric, KDate}[g.r.Intn(4)]
		q.Items = []*Item{{E: g.expr(inner, k, 1)}}
		ops := []string{"IN", "NOT IN", "= ANY"}
		if g.gates.QuantifiedSubquery {
			ops = append(ops, "< ALL", "<> ALL", "> ANY")
		}
		op := ops[g.r.Intn(len(ops))]
		return node(KBool, "(%s "+op+" (%s))", g.expr(sc, k, 1), &Expr{K: k, Sub: q})
	}
}
