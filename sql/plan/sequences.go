package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// SequenceInfo describes one sequence, for the catalogs and the
// sequence functions.
type SequenceInfo = pgcatalog.Sequence

// sequenceName binds the first argument of nextval, currval or setval
// when it is a literal ('s' or 's'::regclass, as a serial's DEFAULT
// stores it): the sequence must exist, and the value is the name as
// written. This skips regclass's lookup of every relation, which a
// DEFAULT would pay on every INSERT. ok is false for other arguments.
func (b *binder) sequenceName(n *pg.Node) (expr.Expr, bool, error) {
	lit := n
	if tc := n.GetTypeCast(); tc != nil {
		if names := tc.TypeName.GetNames(); len(names) == 0 || names[len(names)-1].GetString_().GetSval() != "regclass" || len(tc.TypeName.ArrayBounds) > 0 {
			return nil, false, nil
		}
		lit = tc.Arg
	}
	c := lit.GetAConst()
	if c == nil || c.GetSval() == nil {
		return nil, false, nil
	}
	name := c.GetSval().Sval
	if err := b.p.cat.CheckSequence(b.p.ctx, name); err != nil {
		return nil, true, b.errAt(pgerr.From(err), c.Location)
	}
	return &expr.Const{D: types.Datum{T: types.Of(types.Regclass), S: name}}, true, nil
}

// seqFuncs are the functions whose first argument names a sequence.
var seqFuncs = map[string]bool{"nextval": true, "currval": true, "setval": true}

// sequenceFunc binds nextval, currval, setval and lastval; ok is false for
// other names or argument counts.
func (b *binder) sequenceFunc(name string, args []expr.Expr, loc int32) (expr.Expr, bool, error) {
	switch {
	case name == "nextval" && len(args) == 1, name == "currval" && len(args) == 1,
		name == "setval" && (len(args) == 2 || len(args) == 3), name == "lastval" && len(args) == 0:
	default:
		return nil, false, nil
	}
	coerced := make([]expr.Expr, len(args))
	for i, a := range args {
		want := types.TInt8
		switch {
		case i == 0:
			// regclass travels as the name it prints; a text argument is
			// the name as written.
			switch a.Type().Kind {
			case types.Regclass:
				coerced[i] = a
				continue
			case types.Unknown:
				// A literal is a regclass, resolved now: a missing
				// sequence fails here (with its position), as in
				// PostgreSQL, a DEFAULT's at CREATE TABLE.
				want = types.Of(types.Regclass)
			default:
				want = types.TText
			}
		case i == 2:
			want = types.TBool
		}
		c, err := b.coerce(a, want, loc)
		if err != nil {
			return nil, true, err
		}
		coerced[i] = c
	}
	switch name {
	case "lastval":
		return expr.NewLastVal(), true, nil
	case "currval":
		return expr.NewCurrVal(coerced[0]), true, nil
	case "setval":
		return expr.NewSetVal(coerced), true, nil
	}
	return expr.NewNextVal(coerced[0]), true, nil
}
