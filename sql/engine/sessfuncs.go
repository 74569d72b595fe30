package engine

import (
	"github.com/loamdb/loam/exec/expr"
)

// exprSession is the session as the expressions of its statements see it
// (expr.Session): exprCtx puts it in their Ctx, so a plan holds no
// reference back into the engine.
type exprSession struct{ s *Session }

var _ expr.Session = exprSession{}

// Setting is current_setting: the value now, so a set_config earlier in
// the statement shows.
func (x exprSession) Setting(name string) (string, bool) { return x.s.Setting(name) }

// BackendPID is pg_backend_pid().
func (x exprSession) BackendPID() int32 { return x.s.pid }

// BackendPID is what pg_stat_activity reports as pid.
func (c *catalog) BackendPID() int32 { return c.s.pid }

// SetConfig is set_config(name, value, is_local): SET, or SET LOCAL when
// local, returning the new value as SHOW prints it. A nil value resets
// the setting to its default.
func (x exprSession) SetConfig(name string, value *string, local bool) (string, error) {
	return x.s.setConfig(name, value, local)
}
