package engine

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// A session's settings (PostgreSQL's GUCs): their defaults, validation,
// the ones reported to the client, SET LOCAL's scope and the restore at a
// rollback. The SET and SHOW statements are in setshow.go.

// reportedSettings are the GUC_REPORT settings PostgreSQL 15 sends as
// ParameterStatus at startup and whenever they change.
var reportedSettings = []string{
	"application_name", "client_encoding", "DateStyle", "default_transaction_read_only",
	"in_hot_standby", "integer_datetimes", "IntervalStyle", "is_superuser",
	"server_encoding", "server_version", "session_authorization",
	"standard_conforming_strings", "TimeZone",
}

// ServerVersion is the PostgreSQL version Loam reports to clients.
const (
	ServerVersion    = "15.8"
	ServerVersionNum = "150008"
)

func defaultSettings(user string) map[string]string {
	return map[string]string{
		"application_name":                    "",
		"client_encoding":                     "UTF8",
		"DateStyle":                           "ISO, MDY",
		"default_transaction_read_only":       "off",
		"in_hot_standby":                      "off",
		"integer_datetimes":                   "on",
		"IntervalStyle":                       "postgres",
		"is_superuser":                        "on",
		"server_encoding":                     "UTF8",
		"server_version":                      ServerVersion,
		"server_version_num":                  ServerVersionNum,
		"session_authorization":               user,
		"role":                                "none",
		"standard_conforming_strings":         "on",
		"TimeZone":                            "UTC",
		"search_path":                         `"$user", public`,
		"extra_float_digits":                  "1",
		"statement_timeout":                   "0",
		"lock_timeout":                        "0",
		"idle_in_transaction_session_timeout": "0",
		"idle_session_timeout":                "0",
		"transaction_isolation":               "read committed",
		"default_transaction_isolation":       "read committed",
		"max_identifier_length":               "63",
		"max_index_keys":                      "32",
		"datestyle":                           "ISO, MDY",
		"bytea_output":                        "hex",
		"client_min_messages":                 "notice",
		"escape_string_warning":               "on",
		"row_security":                        "on",
		"synchronous_commit":                  "on",
		"work_mem":                            "4MB",
		"jit":                                 "off",
		build.MaxParallelWorkersSetting:       defaultParallelWorkers(),
		parallelMinRowsSetting:                strconv.Itoa(build.DefaultParallelMinRows),
	}
}

// canonicalName maps a setting name to the spelling PostgreSQL reports.
func canonicalName(name string) string {
	lower := strings.ToLower(name)
	for _, r := range reportedSettings {
		if strings.ToLower(r) == lower {
			return r
		}
	}
	return lower
}

func (s *Session) set(name, value string) error {
	name = canonicalName(name)
	switch name {
	case "TimeZone":
		loc, err := types.LoadLocation(value)
		if err != nil {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", value)
		}
		s.loc = loc
		if strings.EqualFold(loc.String(), value) {
			value = loc.String() // utc is shown as UTC, as PostgreSQL does
		}
	case "client_encoding":
		v := strings.ToUpper(strings.ReplaceAll(value, "-", ""))
		if v != "UTF8" && v != "UNICODE" {
			return pgerr.New(pgerr.FeatureNotSupported, "client encoding %q is not supported; Loam speaks UTF8", value)
		}
		value = "UTF8"
	case "DateStyle":
		if !strings.Contains(strings.ToUpper(value), "ISO") {
			return pgerr.New(pgerr.FeatureNotSupported, "DateStyle %q is not supported; Loam prints ISO dates", value)
		}
		value = "ISO, MDY"
	case "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout":
		v, err := timeSetting(name, value)
		if err != nil {
			return err
		}
		value = v
	case build.MaxParallelWorkersSetting:
		v, err := intSetting(name, value, 0, 1024)
		if err != nil {
			return err
		}
		value = v
	case parallelMinRowsSetting:
		v, err := intSetting(name, value, 0, 1<<62)
		if err != nil {
			return err
		}
		value = v
	case "role", "session_authorization":
		v, err := s.setRole(name, value)
		if err != nil {
			return err
		}
		value = v
	case "server_version", "server_encoding", "server_version_num", "integer_datetimes", "is_superuser", "in_hot_standby", "max_identifier_length", "max_index_keys":
		return pgerr.New(pgerr.CantChangeRuntimeParam, "parameter %q cannot be changed", name)
	}
	s.settings[name] = value
	for _, r := range reportedSettings {
		if r == name {
			s.changed = append(s.changed, [2]string{name, value})
		}
	}
	return nil
}

// Setting returns a setting's current value; ok is false when unknown.
func (s *Session) Setting(name string) (string, bool) {
	v, ok := s.settings[canonicalName(name)]
	return v, ok
}

// searchPath lists the schemas unqualified names are looked up in.
func (s *Session) searchPath() []string {
	var out []string
	for _, p := range strings.Split(s.settings["search_path"], ",") {
		p = strings.Trim(strings.TrimSpace(p), `"`)
		if p == "$user" {
			p = s.user
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParameterStatus lists the settings reported to the client at startup, in
// the order PostgreSQL sends them.
func (s *Session) ParameterStatus() [][2]string {
	out := make([][2]string, 0, len(reportedSettings))
	for _, name := range reportedSettings {
		out = append(out, [2]string{name, s.settings[name]})
	}
	return out
}

// TakeParameterChanges returns the reported settings the last statements
// changed, and forgets them.
func (s *Session) TakeParameterChanges() [][2]string {
	ch := s.changed
	s.changed = nil
	return ch
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

// restoreSettings puts back the settings saved at BEGIN or a SAVEPOINT.
func (s *Session) restoreSettings(saved map[string]string) {
	// A custom setting first made since stays, empty, as PostgreSQL's
	// placeholder variables do.
	for k := range s.settings {
		if _, ok := saved[k]; !ok {
			s.settings[k] = ""
		}
	}
	for _, k := range slices.Sorted(maps.Keys(saved)) {
		if v := saved[k]; s.settings[k] != v {
			// The value was accepted before; set also restores the
			// session's location and reports the change to the client.
			_ = s.set(k, v)
		}
	}
}

// StatementTimeout is statement_timeout: 0 for none.
func (s *Session) StatementTimeout() time.Duration {
	ms, _ := parseMillis(s.settings["statement_timeout"])
	return time.Duration(ms) * time.Millisecond
}
