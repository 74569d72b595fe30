package plan

import (
	"context"
	"math"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// SessionControl is what the functions that act on the session need of
// it; the engine's catalog implements it.
type SessionControl interface {
	// StatementContext is the context of the statement running now (nil
	// outside one): a cancel request or statement_timeout ends it.
	StatementContext() context.Context
	// BackendPID is the process ID sent in BackendKeyData.
	BackendPID() int32
	// SetConfig is set_config: SET, or SET LOCAL when local; a nil value
	// resets. It returns the new value as SHOW prints it.
	SetConfig(name string, value *string, local bool) (string, error)
}

// sessionFunc binds pg_backend_pid, pg_sleep and set_config; ok is false
// for other names or argument counts.
func (b *binder) sessionFunc(name string, args []expr.Expr, loc int32) (expr.Expr, bool, error) {
	sc, _ := b.p.cat.(SessionControl)
	coerced := func(want ...types.T) ([]expr.Expr, error) {
		out := make([]expr.Expr, len(args))
		for i, a := range args {
			c, err := b.coerce(a, want[i], loc)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	switch {
	case name == "pg_backend_pid" && len(args) == 0 && sc != nil:
		return &expr.Const{D: dInt(int64(sc.BackendPID()))}, true, nil
	case name == "pg_sleep" && len(args) == 1:
		a, err := coerced(types.TFloat8)
		if err != nil {
			return nil, true, err
		}
		// The statement's context: a cancel request or statement_timeout
		// ends the sleep.
		return &expr.Func{Name: name, Args: a, T: types.Of(types.Void), Strict: true, Fn: func(_ *expr.Ctx, d []types.Datum) (types.Datum, error) {
			ctx := b.p.ctx
			if sc != nil && sc.StatementContext() != nil {
				ctx = sc.StatementContext()
			}
			secs := d[0].F
			if secs > 0 && !math.IsInf(secs, 1) {
				t := time.NewTimer(time.Duration(secs * float64(time.Second)))
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					return types.Datum{}, pgerr.Canceled(ctx)
				}
			} else if math.IsInf(secs, 1) {
				<-ctx.Done()
				return types.Datum{}, pgerr.Canceled(ctx)
			}
			return types.Datum{T: types.Of(types.Void)}, nil
		}}, true, nil
	case name == "set_config" && len(args) == 3 && sc != nil:
		a, err := coerced(types.TText, types.TText, types.TBool)
		if err != nil {
			return nil, true, err
		}
		return &expr.Func{Name: name, Args: a, T: types.TText, Fn: func(_ *expr.Ctx, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.Datum{}, pgerr.New(pgerr.NullValueNotAllowed, "SET requires parameter name")
			}
			var v *string
			if !d[1].Null {
				v = &d[1].S
			}
			got, err := sc.SetConfig(d[0].S, v, !d[2].Null && d[2].I != 0)
			if err != nil {
				return types.Datum{}, err
			}
			return dText(got), nil
		}}, true, nil
	}
	return nil, false, nil
}
