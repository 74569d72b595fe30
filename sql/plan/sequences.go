package plan

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// SequenceInfo describes one sequence, for the catalogs and the
// sequence functions.
type SequenceInfo = pgcatalog.Sequence

// SequenceControl is what the sequence functions need of the session; the
// engine's catalog implements it. A sequence is named as regclass prints
// it or as a user writes it ('s', 'public.s', '"S"'), resolved through the
// search path.
type SequenceControl interface {
	// Sequences lists the sequences of one schema.
	Sequences(ctx context.Context, ns string) ([]SequenceInfo, error)
	// NextVal hands out n values of the sequence (nextval n times).
	NextVal(ctx context.Context, name string, n int) ([]int64, error)
	// CurrVal is the value nextval last returned for the sequence in this
	// session (55000 when none).
	CurrVal(ctx context.Context, name string) (int64, error)
	// SetVal is setval; it returns v.
	SetVal(ctx context.Context, name string, v int64, called bool) (int64, error)
	// LastVal is the value nextval last returned in this session, of any
	// sequence (55000 when none).
	LastVal() (int64, error)
	// CheckSequence fails with 42P01 when name names no sequence.
	CheckSequence(ctx context.Context, name string) error
}

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
	sc, ok := b.p.cat.(SequenceControl)
	if c == nil || c.GetSval() == nil || !ok {
		return nil, false, nil
	}
	name := c.GetSval().Sval
	if err := sc.CheckSequence(b.p.ctx, name); err != nil {
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
	sc, ok := b.p.cat.(SequenceControl)
	if !ok {
		return nil, true, pgerr.New(pgerr.FeatureNotSupported, "%s() is not available here", name).WithPosition(pos(b.p.query, loc))
	}
	ctx := b.p.ctx
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
		return &expr.Func{Name: name, T: types.TInt8, Fn: func(*expr.Ctx, []types.Datum) (types.Datum, error) {
			v, err := sc.LastVal()
			return types.Int(types.TInt8, v), err
		}}, true, nil
	case "currval":
		return &expr.Func{Name: name, Args: coerced, T: types.TInt8, Strict: true, Fn: func(_ *expr.Ctx, d []types.Datum) (types.Datum, error) {
			v, err := sc.CurrVal(ctx, d[0].S)
			return types.Int(types.TInt8, v), err
		}}, true, nil
	case "setval":
		return &expr.Func{Name: name, Args: coerced, T: types.TInt8, Strict: true, Fn: func(_ *expr.Ctx, d []types.Datum) (types.Datum, error) {
			called := len(d) < 3 || d[2].I != 0
			v, err := sc.SetVal(ctx, d[0].S, d[1].I, called)
			return types.Int(types.TInt8, v), err
		}}, true, nil
	}
	// nextval: a batch's values are taken at once when every row names the
	// same sequence (a column DEFAULT), one metastore round trip a batch.
	next := func(_ *expr.Ctx, d []types.Datum) (types.Datum, error) {
		v, err := sc.NextVal(ctx, d[0].S, 1)
		if err != nil {
			return types.Datum{}, err
		}
		return types.Int(types.TInt8, v[0]), nil
	}
	vec := func(_ *expr.Ctx, args []expr.Expr, vals []arrow.Array, n int) (arrow.Array, error) {
		c, isConst := args[0].(*expr.Const)
		if !isConst || n == 0 {
			return nil, nil // row by row
		}
		bld := array.NewInt64Builder(memory.DefaultAllocator)
		defer bld.Release()
		if c.D.Null {
			bld.AppendNulls(n)
			return bld.NewArray(), nil
		}
		vs, err := sc.NextVal(ctx, c.D.S, n)
		if err != nil {
			return nil, err
		}
		bld.AppendValues(vs, nil)
		return bld.NewArray(), nil
	}
	return &expr.Func{Name: name, Args: coerced, T: types.TInt8, Strict: true, Fn: next, Vec: vec}, true, nil
}
