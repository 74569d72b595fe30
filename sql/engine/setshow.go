package engine

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// The SET, RESET and SHOW statements over the session's settings.

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
		s.resetAll()
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
