package engine

import (
	"context"
	"fmt"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// SQL-level prepared statements: PREPARE name [(types)] AS statement,
// EXECUTE name [(args)], DEALLOCATE [PREPARE] name | ALL. The protocol's
// named statements live in the wire layer; these live in the session,
// and DEALLOCATE looks here first (see Cursor.Deallocated).

// prepareSQL runs PREPARE: the statement is planned now, for its errors,
// parameter types and result columns; EXECUTE runs the plan kept then,
// or plans again where it cannot (plancache.go).
func (s *Session) prepareSQL(ctx context.Context, n *pg.PrepareStmt, ps parse.Statement, query string) (*Cursor, error) {
	if _, dup := s.sqlPrepared[n.Name]; dup {
		return nil, pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", n.Name)
	}
	paramTypes := make([]types.T, len(n.Argtypes))
	for i, a := range n.Argtypes {
		t, err := plan.TypeOf(a.GetTypeName(), query)
		if err != nil {
			return nil, err
		}
		paramTypes[i] = t
	}
	inner := parse.Statement{Text: ps.Text, Offset: ps.Offset, Node: n.Query}
	st := &Statement{Query: ps.Text, prep: prepared{stmt: inner, query: query}}
	cat := s.catalog()
	cat.recordDeps()
	p := plan.New(ctx, cat, s.exprCtx(), query, paramTypes, nil)
	cols, err := s.describe(ctx, p, inner, cat, st)
	cat.release()
	if err != nil {
		return nil, err
	}
	if n.Query.GetCopyStmt() != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY cannot be prepared")
	}
	st.Columns, st.ParamTypes = cols, p.ParamTypes
	for i, t := range st.ParamTypes {
		if t.Kind == types.Unknown {
			return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", i+1)
		}
	}
	if s.sqlPrepared == nil {
		s.sqlPrepared = map[string]*Statement{}
	}
	s.sqlPrepared[n.Name] = st
	return &Cursor{tag: "PREPARE", sess: s}, nil
}

// executeSQL runs EXECUTE: its arguments are evaluated and converted to
// the parameter types as an assignment would, then the statement runs.
func (s *Session) executeSQL(ctx context.Context, n *pg.ExecuteStmt, query string) (*Cursor, error) {
	st, ok := s.sqlPrepared[n.Name]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedPreparedStatement, "prepared statement %q does not exist", n.Name)
	}
	if len(n.Params) != len(st.ParamTypes) {
		e := pgerr.New(pgerr.SyntaxError, "wrong number of parameters for prepared statement %q", n.Name)
		e.Detail = fmt.Sprintf("Expected %d parameters but got %d.", len(st.ParamTypes), len(n.Params))
		return nil, e
	}
	params, err := s.evalArgs(ctx, n.Params, st.ParamTypes, query)
	if err != nil {
		return nil, err
	}
	return s.execute(ctx, st, params)
}

// evalArgs evaluates EXECUTE's arguments, one row of a SELECT of them.
func (s *Session) evalArgs(ctx context.Context, args []*pg.Node, ts []types.T, query string) ([]types.Datum, error) {
	if len(args) == 0 {
		return nil, nil
	}
	sel := &pg.SelectStmt{Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}
	for _, a := range args {
		sel.TargetList = append(sel.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: a}}})
	}
	cat := s.catalog()
	defer cat.release()
	ec := s.exprCtx()
	q, err := plan.New(ctx, cat, ec, query, nil, nil).Select(sel)
	if err != nil {
		return nil, err
	}
	root, err := q.Build(ctx)
	if err != nil {
		return nil, err
	}
	if err := root.Open(ctx); err != nil {
		root.Close()
		return nil, err
	}
	defer root.Close()
	rec, err := root.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	out := make([]types.Datum, len(args))
	for i, t := range ts {
		d := types.DatumAt(q.Columns[i].T, rec.Column(i), 0)
		if out[i], err = expr.CastDatum(d, t, ec.Loc); err != nil {
			if pe := pgerr.From(err); pe.Position == 0 {
				if loc := argLocation(args[i]); loc >= 0 {
					return nil, pe.WithPosition(parse.CharPos(query, int(loc)))
				}
			}
			return nil, err
		}
	}
	return out, nil
}

// deallocateSQL drops a PREPAREd statement, or all of them; it reports
// whether name was one (else the wire layer's statements are looked at).
func (s *Session) deallocateSQL(name string, all bool) bool {
	if all {
		s.sqlPrepared = nil
		return false
	}
	if _, ok := s.sqlPrepared[name]; ok {
		delete(s.sqlPrepared, name)
		return true
	}
	return false
}

// argLocation is where an EXECUTE argument starts in the query, -1 when
// unknown: PostgreSQL points its conversion errors there.
func argLocation(n *pg.Node) int32 {
	switch {
	case n.GetAConst() != nil:
		return n.GetAConst().Location
	case n.GetTypeCast() != nil:
		return n.GetTypeCast().Location
	case n.GetFuncCall() != nil:
		return n.GetFuncCall().Location
	case n.GetAExpr() != nil:
		return n.GetAExpr().Location
	case n.GetColumnRef() != nil:
		return n.GetColumnRef().Location
	}
	return -1
}
