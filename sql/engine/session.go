package engine

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

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
		"standard_conforming_strings":         "on",
		"TimeZone":                            "UTC",
		"search_path":                         `"$user", public`,
		"extra_float_digits":                  "1",
		"statement_timeout":                   "0",
		"lock_timeout":                        "0",
		"idle_in_transaction_session_timeout": "0",
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
	}
}

// Session is one client connection's state. It is not safe for concurrent
// use; the wire layer runs one statement at a time per session.
type Session struct {
	eng      *Engine
	user     string
	database string
	settings map[string]string
	changed  [][2]string
	tx       byte
	// txSettings are the settings when the transaction block began, which
	// a rollback restores; nil outside a block.
	txSettings map[string]string
	cursors    map[string]*sqlCursor // DECLAREd cursors by name
	savepoints []savepoint           // the block's savepoints, innermost last
	// written are the block's writes, one write-log transaction a
	// statement, committed together at COMMIT and dropped at ROLLBACK.
	written []*link.Txn
	// implicit: writes outside a block also wait, for Finish.
	implicit bool
	// txNow is now() for the transaction under way; zero between them.
	txNow time.Time
	// stmtNow is statement_timestamp(): set by each Query (for all its
	// statements) and each extended-protocol Execute.
	stmtNow time.Time
	// drops are the transaction's DROPs, carried out at COMMIT (txddl.go).
	drops   []*pendingDrop
	loc     *time.Location
	notices []*pgerr.Error
	// localSaved are the values to put back when the transaction ends, of
	// the settings SET LOCAL (or set_config(…, true)) changed in it.
	localSaved map[string]string
	pid        int32 // the BackendKeyData process ID
	// runCtx is the context of the statement running now, and ec the
	// evaluation context its expressions share, made by exprCtx with
	// runCtx and this session in it: a cancel request or
	// statement_timeout ends a pg_sleep through it. A query's cursor puts
	// the context of each fetch in its ec.
	runCtx context.Context
	ec     *expr.Ctx

	// seqCurr is currval of each sequence nextval was called on in the
	// session; seqLast is lastval, when seqLastSet.
	seqCurr    map[link.Key]int64
	seqLast    int64
	seqLastSet bool

	// undo undoes the transaction's CREATEs, ALTERs and COMMENTs (stored
	// at once) if it rolls back, last first.
	undo []func(context.Context) error

	// sqlPrepared are the statements of SQL PREPARE, by name.
	sqlPrepared map[string]*Statement
}

// NewSession starts a session for user on database, applying the startup
// parameters the client sent (application_name, TimeZone, DateStyle, options).
func (e *Engine) NewSession(user, database string, params map[string]string) (*Session, error) {
	s := &Session{eng: e, user: user, database: database, settings: defaultSettings(user), tx: 'I', loc: time.UTC}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "user", "database", "replication", "options":
			continue
		}
		if err := s.set(k, params[k]); err != nil {
			return nil, err
		}
	}
	s.changed = nil
	return s, nil
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
	case "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout":
		v, err := timeSetting(name, value)
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

// startStatement begins running a statement under ctx: its expressions
// get a new evaluation context (exprCtx).
func (s *Session) startStatement(ctx context.Context) { s.runCtx, s.ec = ctx, nil }

// savepoint is a SAVEPOINT of the current block and the settings then.
type savepoint struct {
	name     string
	settings map[string]string
	work     txMark
}

// txMark is how far the transaction's undoable work reached: the lengths
// of Session.written, undo and drops. The zero mark is its start.
type txMark struct{ written, undo, drops int }

// mark is where the transaction's work stands now.
func (s *Session) mark() txMark { return txMark{len(s.written), len(s.undo), len(s.drops)} }
