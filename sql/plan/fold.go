package plan

import (
	"strconv"
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// fold evaluates once, at planning, each subexpression of e that reads no
// column: `ts >= now() - interval '1 day'` compares ts with a constant,
// which the scan can prune files by and the filter need not recompute for
// every row. Volatile functions, parameters and anything
// that fails to evaluate (it may not be reached at run time) stay as they
// are.
func (p *Planner) fold(e expr.Expr) expr.Expr {
	if e == nil {
		return nil
	}
	e = foldNulls(e)
	out, ok := rewriteWith(e, func(c *expr.Col) expr.Expr { return c }, func(x expr.Expr) (expr.Expr, bool) {
		switch x.(type) {
		case *expr.Const, *expr.Col:
			return x, true
		}
		cols, ok := colsOf(x)
		if !ok || len(cols) > 0 || !p.foldable(x) {
			return nil, false
		}
		d, err := exec.EvalConst(p.ec, x)
		if err != nil {
			return nil, false
		}
		if p.readsMoment(x, d) {
			// now() - interval '1 day' is computed when the plan runs, so a
			// kept plan serves every execution; scan pruning still gets a
			// constant (expr.BindRun, when the scan is built).
			return nil, false
		}
		return &expr.Const{D: d}, true
	})
	if !ok {
		return e
	}
	return out
}

func (p *Planner) foldable(x expr.Expr) bool {
	if expr.HasParams(x) || expr.HasOuterRefs(x) {
		return false // read at run time: the plan serves every execution (every outer row)
	}
	s := x.String()
	if readsPrivileges(s) {
		return false
	}
	for _, v := range []string{"random(", "clock_timestamp(", "timeofday(", "gen_random_uuid(", "nextval(", "setval(", "currval(", "lastval(",
		"pg_sleep(", "set_config(", "current_setting("} {
		if strings.Contains(s, v) {
			return false
		}
	}
	return true
}

// fuse replaces floor(a / b) over numerics with expr.FloorDiv, which
// divides integers where the values allow.
func fuse(e expr.Expr) expr.Expr {
	if e == nil {
		return nil
	}
	out, ok := rewriteWith(e, func(c *expr.Col) expr.Expr { return c }, func(x expr.Expr) (expr.Expr, bool) {
		// floor(a / b) * k, k an integer constant: one pass.
		if m, ok := x.(*expr.Arith); ok && m.Op == expr.Mul && m.T.Kind == types.Numeric {
			if k, ok := m.R.(*expr.Const); ok && !k.D.Null && k.D.T.Kind == types.Numeric {
				if n, err := strconv.ParseInt(k.D.S, 10, 64); err == nil && n != 0 {
					if fd, ok := fuse(m.L).(*expr.FloorDiv); ok && fd.Times == 0 {
						fd.Times = n
						fd.Orig = &expr.Arith{Op: expr.Mul, L: fd.Orig, R: k, T: m.T}
						return fd, true
					}
				}
			}
		}
		f, ok := x.(*expr.Func)
		if !ok || f.Name != "floor" || len(f.Args) != 1 || f.T.Kind != types.Numeric {
			return nil, false
		}
		d, ok := f.Args[0].(*expr.Arith)
		if !ok || d.Op != expr.Div || d.T.Kind != types.Numeric {
			return nil, false
		}
		fd := &expr.FloorDiv{L: fuse(d.L), R: fuse(d.R), Orig: f}
		if ex, ok := d.L.(*expr.Func); ok && ex.Name == "extract" && len(ex.Args) == 2 {
			field, isConst := ex.Args[0].(*expr.Const)
			k := ex.Args[1].Type().Kind
			if isConst && !field.D.Null && strings.EqualFold(field.D.S, "epoch") && (k == types.TimestampTZ || k == types.Timestamp) {
				fd.EpochOf = ex.Args[1]
			}
		}
		return fd, true
	})
	if !ok {
		return e
	}
	return out
}
