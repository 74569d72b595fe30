package engine

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
)

// SetBackendPID records the process ID the wire layer sent the client in
// BackendKeyData, which pg_backend_pid() and pg_stat_activity report.
func (s *Session) SetBackendPID(pid uint32) { s.pid = int32(pid) }

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

func (s *Session) setConfig(name string, value *string, local bool) (string, error) {
	var v string
	if value != nil {
		v = *value
	} else if d, ok := defaultSettings(s.user)[canonicalName(name)]; ok {
		v = d
	}
	if local {
		s.saveLocal(name)
	} else if _, ok := s.localSaved[canonicalName(name)]; ok {
		// A SET after a SET LOCAL is the value the block's end keeps.
		s.localSaved[canonicalName(name)] = v
	}
	if err := s.set(name, v); err != nil {
		return "", err
	}
	got, _ := s.Setting(name)
	return got, nil
}

// saveLocal remembers a setting's value before its first SET LOCAL, to be
// put back when the transaction ends. Outside a block the statement's own
// implicit transaction is the scope (restoreLocal runs before the next).
func (s *Session) saveLocal(name string) {
	name = canonicalName(name)
	if s.localSaved == nil {
		s.localSaved = map[string]string{}
	}
	if _, ok := s.localSaved[name]; !ok {
		s.localSaved[name] = s.settings[name]
	}
}

// restoreLocal undoes the SET LOCALs of the transaction that ended.
func (s *Session) restoreLocal() {
	for k, v := range s.localSaved {
		_ = s.set(k, v)
	}
	s.localSaved = nil
}

// StatementTimeout is statement_timeout: 0 for none.
func (s *Session) StatementTimeout() time.Duration {
	ms, _ := parseMillis(s.settings["statement_timeout"])
	return time.Duration(ms) * time.Millisecond
}

// parseMillis reads a time setting in milliseconds: a bare number, or one
// with a unit (us, ms, s, min, h, d), as PostgreSQL's GUC parser does.
func parseMillis(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || i == 0 && (v[i] == '-' || v[i] == '+')) {
		i++
	}
	n, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, false
	}
	unit := map[string]float64{"": 1, "us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}
	m, ok := unit[strings.TrimSpace(v[i:])]
	if !ok {
		return 0, false
	}
	ms := n * m
	if ms < 0 || ms > 2147483647 {
		return 0, false
	}
	return int64(math.RoundToEven(ms)), true // rint, as PostgreSQL rounds
}

// formatMillis prints a time setting as SHOW does: in the largest unit
// that holds it exactly.
func formatMillis(ms int64) string {
	if ms == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		n    int64
	}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}} {
		if ms%u.n == 0 {
			return strconv.FormatInt(ms/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// timeSetting validates and normalizes a milliseconds setting's value.
func timeSetting(name, value string) (string, error) {
	ms, ok := parseMillis(value)
	if !ok {
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value)
	}
	return formatMillis(ms), nil
}
