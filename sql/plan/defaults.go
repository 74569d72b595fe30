package plan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// whereDefault names DEFAULT expressions in "not allowed" errors, as
// PostgreSQL words them.
const whereDefault = "DEFAULT expressions"

// CheckDefault validates a column's DEFAULT expression at CREATE TABLE, as
// PostgreSQL's cookDefault does (no column references or subqueries, a
// type assignable to the column), and returns the text to store: the
// expression as PostgreSQL's pg_get_expr deparses it, which is also valid
// SQL that BindDefault binds again at each insert, followed by a comment
// with the pretty form when that differs (see pgcatalog.DefaultText). "" means no
// default (a NULL default stores none, as in PostgreSQL).
func (p *Planner) CheckDefault(n *pg.Node, col string, t types.T) (string, error) {
	b := &binder{p: p, where: whereDefault}
	e, err := b.bind(n)
	if err != nil {
		return "", err
	}
	if c, ok := e.(*expr.Const); ok && c.D.Null {
		return "", nil
	}
	if err := assignable(e.Type(), t, col); err != nil {
		return "", err
	}
	if e.Type().Kind == types.Unknown {
		// A literal takes the column's type now (PostgreSQL reports 'x'
		// for an integer here); a cast of a typed value runs at insert.
		if _, err := b.coerce(e, t, nodeLocation(n)); err != nil {
			return "", err
		}
	}
	// A value of another type is under an implicit cast, which hides but
	// parenthesizes an operator in pretty mode: bigint DEFAULT 1 + 1 is
	// "(1 + 1)" either way.
	top := parentTop
	if k := e.Type().Kind; k != t.Kind && k != types.Unknown {
		top = parentCast
	}
	plain := deparseDefault(n, t, deparser{ec: p.ec}, parentTop)
	pretty := deparseDefault(n, t, deparser{ec: p.ec, pretty: true}, top)
	return pgcatalog.StoredDefault(plain, pretty), nil
}

func assignable(from, to types.T, col string) error {
	if from.Kind == to.Kind || from.Kind == types.Unknown || AssignsToString(to) {
		return nil
	}
	if _, ok := types.Common(from, to); ok {
		return nil
	}
	return pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but default expression is of type %s", col, to, from).
		WithHint("You will need to rewrite or cast the expression.")
}

// BindDefault binds a stored DEFAULT text (CheckDefault's) for an insert
// into a column of type t. Volatile functions in it are evaluated per row.
func (p *Planner) BindDefault(text string, t types.T) (expr.Expr, error) {
	stmts, err := pg.Parse("SELECT " + text)
	if err != nil || len(stmts.Stmts) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "stored default %q does not parse: %v", text, err)
	}
	sel := stmts.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "stored default %q is not one expression", text)
	}
	// Bound by a planner of its own text, so positions point into it.
	dp := New(p.ctx, p.cat, p.ec, "SELECT "+text, nil, nil)
	dp.deps = p.deps
	b := &binder{p: dp, where: whereDefault}
	n := sel.TargetList[0].GetResTarget().Val
	e, err := b.bind(n)
	if err != nil {
		return nil, err
	}
	return b.coerce(e, t, nodeLocation(n))
}

// deparser prints DEFAULT expressions as PostgreSQL's ruleutils does for
// the stored (cooked) expression: literals coerced to their type become
// typed constants, implicit casts are not shown, and in pretty mode only
// the parentheses precedence needs are kept.
type deparser struct {
	ec     *expr.Ctx
	pretty bool
}

// parent is what an expression is printed under, for the parentheses.
type parent struct {
	kind   int    // parentTop, parentCast, parentArg or parentOp
	op     string // parentOp: the operator
	isLeft bool   // parentOp: the expression is its left operand
}

const (
	parentTop = iota
	parentCast
	parentArg
	parentOp
)

var (
	castParent = parent{kind: parentCast}
)

// deparseDefault prints n, a DEFAULT of a column of type t; what the
// deparser does not know it prints as pg_query deparses it.
func deparseDefault(n *pg.Node, t types.T, d deparser, top int) string {
	if c := n.GetAConst(); c != nil {
		if s := c.GetSval(); s != nil {
			// An untyped literal becomes a constant of the column's type.
			if v, err := types.ParseText(t, s.Sval, d.ec.Loc); err == nil {
				return constText(v, d.ec, false)
			}
		}
	}
	if s, ok := d.expr(n, parent{kind: top}); ok {
		return s
	}
	res, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}}}}}}}})
	if err != nil {
		return "NULL"
	}
	return strings.TrimPrefix(res, "SELECT ")
}

func (d deparser) expr(n *pg.Node, par parent) (string, bool) {
	switch {
	case n.GetAConst() != nil:
		c := n.GetAConst()
		switch {
		case c.Isnull:
			return "NULL", true
		case c.GetIval() != nil:
			return constText(types.Datum{T: types.TInt4, I: int64(c.GetIval().Ival)}, d.ec, false), true
		case c.GetFval() != nil:
			v := c.GetFval().Fval
			if x, err := types.ParseText(types.TInt8, v, d.ec.Loc); err == nil {
				return constText(x, d.ec, false), true
			}
			if x, err := types.ParseText(types.T{Kind: types.Numeric, Width: -1}, v, d.ec.Loc); err == nil {
				return constText(x, d.ec, false), true
			}
		case c.GetBoolval() != nil:
			return strconv.FormatBool(c.GetBoolval().Boolval), true
		case c.GetSval() != nil:
			return quoteLiteral(c.GetSval().Sval) + "::text", true
		}
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		t, err := TypeOf(tc.TypeName, "")
		if err != nil {
			return "", false
		}
		if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil {
			// A cast literal is a constant of the type, typmod and all.
			v, err := types.ParseText(t, c.GetSval().Sval, d.ec.Loc)
			if err != nil {
				return "", false
			}
			return constText(v, d.ec, true), true
		}
		arg, ok := d.expr(tc.Arg, castParent)
		if !ok {
			return "", false
		}
		if !d.pretty {
			arg = "(" + arg + ")"
		}
		return arg + "::" + t.String(), true
	case n.GetSqlvalueFunction() != nil:
		sv := n.GetSqlvalueFunction()
		name := strings.TrimPrefix(sv.Op.String(), "SVFOP_")
		if strings.HasSuffix(name, "_N") {
			return strings.TrimSuffix(name, "_N") + "(" + strconv.Itoa(int(sv.Typmod)) + ")", true
		}
		return name, true
	case n.GetFuncCall() != nil:
		fc := n.GetFuncCall()
		if fc.AggStar || fc.AggDistinct || fc.Over != nil || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.FuncVariadic {
			return "", false
		}
		args := make([]string, len(fc.Args))
		for i, a := range fc.Args {
			if c := a.GetAConst(); i == 0 && c != nil && c.GetSval() != nil && seqFuncs[funcName(fc)] {
				// The sequence functions take a regclass.
				args[i] = quoteLiteral(c.GetSval().Sval) + "::regclass"
				continue
			}
			s, ok := d.expr(a, parent{kind: parentArg})
			if !ok {
				return "", false
			}
			args[i] = s
		}
		return funcName(fc) + "(" + strings.Join(args, ", ") + ")", true
	case n.GetAExpr() != nil:
		ae := n.GetAExpr()
		if ae.Kind != pg.A_Expr_Kind_AEXPR_OP || len(ae.Name) != 1 {
			return "", false
		}
		op := ae.Name[0].GetString_().GetSval()
		r, ok := d.expr(ae.Rexpr, parent{kind: parentOp, op: op})
		if !ok {
			return "", false
		}
		s := op + " " + r
		if ae.Lexpr != nil {
			l, ok := d.expr(ae.Lexpr, parent{kind: parentOp, op: op, isLeft: true})
			if !ok {
				return "", false
			}
			s = l + " " + s
		}
		if !d.pretty || !simpleOp(op, ae.Lexpr == nil, par) {
			s = "(" + s + ")"
		}
		return s, true
	}
	return "", false
}

// simpleOp is ruleutils' isSimpleNode for an operator expression: whether
// pretty mode prints it without parentheses under par.
func simpleOp(op string, prefix bool, par parent) bool {
	switch par.kind {
	case parentTop, parentArg:
		return true
	case parentOp:
		lo, hi := strings.Contains("+-", op), strings.Contains("*/%", op)
		plo, phi := strings.Contains("+-", par.op), strings.Contains("*/%", par.op)
		if prefix || len(op) != 1 || len(par.op) != 1 || !(lo || hi) || !(plo || phi) {
			return false
		}
		if hi && plo {
			return true
		}
		if lo && phi {
			return false
		}
		return par.isLeft
	}
	return false
}

// constText prints a constant as ruleutils' get_const_expr: non-negative
// integers and plain decimal numbers bare, booleans as keywords, anything
// else a quoted literal labelled with its type (with its typmod when
// typmod, as a cast literal has one).
func constText(d types.Datum, ec *expr.Ctx, typmod bool) string {
	v := types.FormatText(d, ec.Loc)
	switch d.T.Kind {
	case types.Int4:
		if !strings.HasPrefix(v, "-") {
			return v
		}
	case types.Numeric:
		if v != "" && v[0] >= '0' && v[0] <= '9' && strings.ContainsAny(v, ".eE") && (!typmod || d.T.Width < 0) {
			return v
		}
	case types.Bool:
		if d.I != 0 || v == "t" {
			return "true"
		}
		return "false"
	}
	t := d.T
	if !typmod {
		t = types.T{Kind: d.T.Kind, Width: -1, Elem: d.T.Elem}
	}
	return quoteLiteral(v) + "::" + t.String()
}

func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// PropDefaults is the Iceberg table property holding the columns' DEFAULT
// texts, a JSON object keyed by field ID (IDs survive renames). Iceberg's
// own write-default is a v3 field for constants only, and Loam's tables
// are format v2, so defaults live beside the schema like loam.types.
const PropDefaults = "loam.defaults"

// PropIdentity is the Iceberg table property marking identity columns, in
// PropDefaults' form: "a" for GENERATED ALWAYS, "d" for BY DEFAULT. Their
// values come from the DEFAULT nextval of the sequence they own.
const PropIdentity = "loam.identity"

// EncodeDefaults is the PropDefaults value for fields ids with defaults
// defs ("" for none); "" when there are none.
func EncodeDefaults(ids []int, defs []string) string {
	m := map[string]string{}
	for i, d := range defs {
		if d != "" {
			m[strconv.Itoa(ids[i])] = d
		}
	}
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// DecodeDefaults reads a PropDefaults value for the fields ids; nil when
// no field has a default.
func DecodeDefaults(prop string, ids []int) ([]string, error) {
	if prop == "" {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(prop), &m); err != nil {
		return nil, fmt.Errorf("table property %s: %w", PropDefaults, err)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = m[strconv.Itoa(id)]
	}
	return out, nil
}
