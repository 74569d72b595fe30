package engine

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

func (s *Session) transaction(ts *pg.TransactionStmt) (*Cursor, error) {
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		// PostgreSQL warns about a nested BEGIN and carries on.
		if s.tx == 'I' {
			s.txSettings = maps.Clone(s.settings)
			if s.txNow.IsZero() {
				s.txNow = s.stmtNow // a block's now() is its BEGIN's
				if s.txNow.IsZero() {
					s.txNow = time.Now()
				}
			}
		} else {
			s.warning(pgerr.ActiveSQLTransaction, "there is already a transaction in progress")
		}
		s.tx = 'T'
		return &Cursor{tag: "BEGIN", sess: s}, nil
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		if s.tx == 'I' {
			s.warning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
		}
		// COMMIT of a failed block rolls it back, and says so.
		tag := "COMMIT"
		if s.tx == 'E' {
			tag = "ROLLBACK"
		}
		if err := s.endTx(s.tx != 'E'); err != nil {
			return nil, err
		}
		return &Cursor{tag: tag, sess: s}, nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		if s.tx == 'I' {
			s.warning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
		}
		_ = s.endTx(false)
		return &Cursor{tag: "ROLLBACK", sess: s}, nil
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT, pg.TransactionStmtKind_TRANS_STMT_RELEASE,
		pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return s.savepoint(ts)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "two-phase commit is not supported")
}

// savepoint runs SAVEPOINT, RELEASE and ROLLBACK TO. psycopg 3's nested
// transaction() blocks and SQLAlchemy's begin_nested use them, above all to
// recover from an error without ending the block. As with ROLLBACK, the
// SETs and the writes since the savepoint are undone.
func (s *Session) savepoint(ts *pg.TransactionStmt) (*Cursor, error) {
	verb, tag := "SAVEPOINT", "SAVEPOINT"
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		verb, tag = "RELEASE SAVEPOINT", "RELEASE"
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		verb, tag = "ROLLBACK TO SAVEPOINT", "ROLLBACK"
	}
	if s.tx == 'I' {
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", verb)
	}
	if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT {
		s.savepoints = append(s.savepoints, savepoint{name: ts.SavepointName, settings: maps.Clone(s.settings),
			work: s.mark()})
		return &Cursor{tag: tag, sess: s}, nil
	}
	i := len(s.savepoints) - 1
	for i >= 0 && s.savepoints[i].name != ts.SavepointName {
		i--
	}
	if i < 0 {
		return nil, pgerr.New(pgerr.InvalidSavepointSpec, "savepoint \"%s\" does not exist", ts.SavepointName)
	}
	if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_RELEASE {
		s.savepoints = s.savepoints[:i]
		return &Cursor{tag: tag, sess: s}, nil
	}
	s.restoreSettings(s.savepoints[i].settings)
	s.rollbackWork(s.savepoints[i].work)
	s.savepoints = s.savepoints[:i+1]
	s.tx = 'T'
	return &Cursor{tag: tag, sess: s}, nil
}

// endTx ends a transaction block. A commit makes the block's writes
// durable and visible at once, with one write-log record. A rollback (or
// the COMMIT of a failed block) drops them and undoes the SETs made in the
// block, as in PostgreSQL: psycopg runs every statement in a block, so an
// error there must not leave a SET behind.
func (s *Session) endTx(commit bool) error {
	var err error
	if commit {
		err = s.commitWork()
	}
	s.rollbackWork(txMark{}) // after a commit, nothing is left to undo
	if (!commit || err != nil) && s.txSettings != nil {
		s.restoreSettings(s.txSettings)
		s.localSaved = nil
	}
	s.restoreLocal()
	s.txSettings, s.savepoints = nil, nil
	s.tx = 'I'
	s.txNow = time.Time{}
	s.closeCursors(false)
	return err
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

func setValue(args []*pg.Node) string {
	var parts []string
	for _, a := range args {
		c := a.GetAConst()
		switch {
		case c == nil:
			if tc := a.GetTypeCast(); tc != nil && tc.Arg.GetAConst() != nil {
				parts = append(parts, constText(tc.Arg.GetAConst()))
			}
		default:
			parts = append(parts, constText(c))
		}
	}
	return strings.Join(parts, ", ")
}

func constText(c *pg.A_Const) string {
	switch v := c.Val.(type) {
	case *pg.A_Const_Sval:
		return v.Sval.Sval
	case *pg.A_Const_Ival:
		return strconv.Itoa(int(v.Ival.Ival))
	case *pg.A_Const_Fval:
		return v.Fval.Fval
	case *pg.A_Const_Boolval:
		if v.Boolval.Boolval {
			return "on"
		}
		return "off"
	}
	return "0"
}

func (s *Session) setStmt(vs *pg.VariableSetStmt) (*Cursor, error) {
	name := strings.ToLower(vs.Name)
	if name == "timezone" {
		name = "TimeZone"
	}
	switch vs.Kind {
	case pg.VariableSetKind_VAR_SET_VALUE:
		v := setValue(vs.Args)
		if name == "TimeZone" && strings.EqualFold(v, "local") {
			v = "UTC"
		}
		if vs.IsLocal && s.tx == 'I' {
			// Its implicit transaction ends with it: nothing changes.
			s.warning(pgerr.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks")
			return &Cursor{tag: "SET", sess: s}, nil
		}
		if _, err := s.setConfig(name, &v, vs.IsLocal); err != nil {
			return nil, err
		}
		return &Cursor{tag: "SET", sess: s}, nil
	case pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET:
		def := defaultSettings(s.user)
		if v, ok := def[canonicalName(name)]; ok {
			if err := s.set(name, v); err != nil {
				return nil, err
			}
		}
		tag := "SET"
		if vs.Kind == pg.VariableSetKind_VAR_RESET {
			tag = "RESET"
		}
		return &Cursor{tag: tag, sess: s}, nil
	case pg.VariableSetKind_VAR_RESET_ALL:
		for k, v := range defaultSettings(s.user) {
			if cur, ok := s.settings[k]; ok && cur != v {
				_ = s.set(k, v)
			}
		}
		return &Cursor{tag: "RESET", sess: s}, nil
	case pg.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION … / SET SESSION CHARACTERISTICS: Loam runs every
		// statement on its own snapshot, so these change nothing.
		return &Cursor{tag: "SET", sess: s}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of SET is not supported")
}

func (s *Session) showColumns(vs *pg.VariableShowStmt) []Column {
	if strings.EqualFold(vs.Name, "all") {
		return []Column{{Name: "name", Type: types.TText}, {Name: "setting", Type: types.TText}, {Name: "description", Type: types.TText}}
	}
	name := strings.ToLower(vs.Name)
	if name == "timezone" {
		name = "TimeZone"
	}
	return []Column{{Name: name, Type: types.TText}}
}

func (s *Session) show(ctx context.Context, vs *pg.VariableShowStmt) (*Cursor, error) {
	cols := s.showColumns(vs)
	var rows [][]expr.Expr
	text := func(v string) expr.Expr { return &expr.Const{D: types.TextDatum(v)} }
	if len(cols) == 3 {
		names := make([]string, 0, len(s.settings))
		for k := range s.settings {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			rows = append(rows, []expr.Expr{text(k), text(s.settings[k]), text("")})
		}
	} else {
		v, ok := s.Setting(vs.Name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", vs.Name)
		}
		rows = [][]expr.Expr{{text(v)}}
	}
	ts := make([]types.T, len(cols))
	for i := range ts {
		ts[i] = types.TText
	}
	src, err := build.Build(ctx, &physical.Values{Rows: rows, ColumnTypes: ts}, build.Env{Ec: s.exprCtx()})
	if err != nil {
		return nil, err
	}
	c, err := s.queryCursor(ctx, cols, src, nil)
	if err != nil {
		return nil, err
	}
	c.tagFn = func(int64) string { return "SHOW" }
	return c, nil
}
