package plan

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
)

// sessionValue is current_user, session_user, user, current_role,
// current_catalog or current_schema; ok is false for other ops.
func (b *binder) sessionValue(op pg.SQLValueFunctionOp) (expr.Expr, bool) {
	var name string
	switch op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		name = "current_user"
	case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		name = "session_user"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		name = "current_catalog"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		name = "current_schema"
	default:
		return nil, false
	}
	d, ok := b.p.catalogs().Value(b.p.ctx, name)
	if !ok {
		return nil, false
	}
	if name == "current_user" || name == "session_user" {
		return roleValue(name, d), true
	}
	return &expr.Const{D: d}, true
}

// catalogFunc binds the functions clients call on the catalog (psql's \d,
// drivers' type loading, Grafana), which sql/pgcatalog implements; ok is
// false for other names.
func (b *binder) catalogFunc(name string, args []expr.Expr, loc int32) (expr.Expr, bool, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	f, err := b.p.catalogs().Func(b.p.ctx, name, ts)
	if err != nil || f == nil {
		return nil, err != nil, err
	}
	return b.catalogCall(name, f, args, loc)
}

// catalogCall is a call of a catalog function with its arguments coerced
// to the types it takes.
func (b *binder) catalogCall(name string, f *pgcatalog.Func, args []expr.Expr, loc int32) (expr.Expr, bool, error) {
	if f.Const != nil {
		return &expr.Const{D: *f.Const}, true, nil
	}
	out := make([]expr.Expr, len(args))
	for i, a := range args {
		c, err := b.coerce(a, f.Args[i], loc)
		if err != nil {
			return nil, true, err
		}
		out[i] = c
	}
	return &expr.Func{Name: name, Args: out, T: f.Result, Strict: f.Strict, Fn: f.Fn}, true, nil
}

func isReg(k types.Kind) bool { return types.Of(k).IsReg() }

// regCast converts to or from regclass, regtype and regnamespace, which
// look names and OIDs up in the catalog; ok is false for other casts.
func (b *binder) regCast(arg expr.Expr, to types.T, loc int32) (expr.Expr, bool, error) {
	from := arg.Type()
	if !isReg(to.Kind) && !(isReg(from.Kind) && (to.Kind == types.OID || to.IsInteger())) {
		return nil, false, nil
	}
	if isReg(to.Kind) && isReg(from.Kind) {
		return arg, true, nil
	}
	f, err := b.p.catalogs().RegCast(b.p.ctx, from, to)
	if err != nil || f == nil {
		return nil, err != nil, err
	}
	if from.Kind == types.Unknown {
		if arg, err = b.coerce(arg, types.TText, loc); err != nil {
			return nil, true, err
		}
	}
	if c, ok := arg.(*expr.Const); ok {
		if c.D.Null {
			return &expr.Const{D: types.NullOf(to)}, true, nil
		}
		d, err := f(b.p.ec, []types.Datum{c.D})
		if err != nil {
			return nil, true, b.errAt(pgerr.From(err), loc)
		}
		return &expr.Const{D: d}, true, nil
	}
	return &expr.Func{Name: to.String(), Args: []expr.Expr{arg}, T: to, Strict: true, Fn: f}, true, nil
}

// regprocOfOID is oid::regproc and oid::regprocedure (pgcatalog.Regproc).
func (b *binder) regprocOfOID(arg expr.Expr, withArgs bool, loc int32) (expr.Expr, error) {
	arg, err := b.coerce(arg, types.TOID, loc)
	if err != nil {
		return nil, err
	}
	return &expr.Func{Name: "regproc", Args: []expr.Expr{arg}, T: types.TText, Strict: true, Fn: func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
		return types.TextDatum(pgcatalog.Regproc(a[0].I, withArgs)), nil
	}}, nil
}
