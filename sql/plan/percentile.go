package plan

import (
	"errors"

	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// percentileFraction binds the direct argument of percentile_cont or
// percentile_disc, e (bound over the input rows) from node n: a float8,
// or a float8[] for one result per element (ARRAY[0.5, 0.9], a float8[]
// literal, column or parameter). One without columns is evaluated here,
// once; one with columns is evaluated per row (agg.Agg.Arg2), and may use
// only grouped columns, as PostgreSQL evaluates it once per group.
func (b *binder) percentileFraction(a *agg.Agg, e expr.Expr, n *pg.Node, undefined func() error) error {
	t := e.Type()
	want := types.TFloat8
	switch {
	case t.Kind == types.Array:
		if !types.Of(t.Elem).IsNumeric() {
			return undefined()
		}
		want = types.ArrayOf(types.Float8)
	case t.IsNumeric() || t.Kind == types.Unknown:
	default:
		return undefined()
	}
	e, err := b.coerce(e, want, nodeLocation(n))
	if err != nil {
		return err
	}
	// Bound again with no columns in scope: does it use any?
	noCols := &binder{p: b.p, sc: newScope(nil), where: b.where, inAgg: true}
	if _, err := noCols.bind(n); err == nil {
		d, err := b.p.evalConst(e)
		if err != nil {
			return b.errAt(pgerr.From(err), nodeLocation(n))
		}
		d.T = want
		a.Frac = d
		return nil
	}
	// The grouped-columns check: bound as the select list is.
	check := *b
	if _, err := check.bind(n); err != nil {
		var pe *pgerr.Error
		if errors.As(err, &pe) && pe.Code == pgerr.GroupingError {
			pe.Detail = "Direct arguments of an ordered-set aggregate must use only grouped columns."
		}
		return err
	}
	if b.grouping != nil && b.grouping.multi {
		return b.errAt(pgerr.New(pgerr.FeatureNotSupported, "a percentile fraction that uses columns is not supported with GROUPING SETS, ROLLUP or CUBE"), nodeLocation(n))
	}
	a.Arg2 = e
	return nil
}
