package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// sessionFunc binds pg_backend_pid, pg_sleep, set_config and
// current_setting: plain nodes that find the session (and the statement's
// context) in the Ctx they are evaluated with. ok is false for other
// names or argument counts.
func (b *binder) sessionFunc(name string, args []expr.Expr, loc int32) (expr.Expr, bool, error) {
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
	case name == "pg_backend_pid" && len(args) == 0:
		return expr.NewBackendPID(), true, nil
	case name == "pg_sleep" && len(args) == 1:
		a, err := coerced(types.TFloat8)
		if err != nil {
			return nil, true, err
		}
		return expr.NewSleep(a[0]), true, nil
	case name == "set_config" && len(args) == 3:
		a, err := coerced(types.TText, types.TText, types.TBool)
		if err != nil {
			return nil, true, err
		}
		return expr.NewSetConfig(a[0], a[1], a[2]), true, nil
	case name == "current_setting" && (len(args) == 1 || len(args) == 2):
		a, err := coerced(types.TText, types.TBool)
		if err != nil {
			return nil, true, err
		}
		return expr.NewCurrentSetting(a), true, nil
	}
	return nil, false, nil
}
