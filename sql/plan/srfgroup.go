package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// groupedSRFSelect plans a SELECT that groups by a set-returning function
// of its select list (SELECT jsonb_array_elements_text(tags) AS tag,
// count(*) … GROUP BY tag). PostgreSQL runs such a function below the
// grouping, once per input row; Loam gets the same rows by moving the call
// into FROM as a LATERAL item the grouped target reads. It is tried only
// when the plain plan fails for that reason, so a GROUP BY name that is
// an input column keeps its meaning. done is false when it does not apply.
func (p *Planner) groupedSRFSelect(s *pg.SelectStmt) (q *Query, done bool, err error) {
	if p.srfRewriting || len(s.GroupClause) == 0 || !groupsBySetFunc(s) {
		return nil, false, nil
	}
	p.srfRewriting = true
	defer func() { p.srfRewriting = false }()
	q, err = p.Select(s)
	var pe *pgerr.Error
	if err == nil || !errors.As(err, &pe) || pe.Code != pgerr.FeatureNotSupported ||
		pe.Message != "set-returning functions are not allowed in GROUP BY" {
		return q, true, err
	}
	s2, ok := moveGroupedSetFunc(s)
	if !ok {
		return q, true, err
	}
	q, err = p.Select(s2)
	return q, true, err
}

// groupedTarget is the select-list item GROUP BY item g names by position
// or output name, or -1.
func groupedTarget(s *pg.SelectStmt, g *pg.Node) int {
	if c := g.GetAConst(); c != nil && c.GetIval() != nil {
		if k := int(c.GetIval().Ival); k >= 1 && k <= len(s.TargetList) {
			return k - 1
		}
		return -1
	}
	if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		for i, t := range s.TargetList {
			if rt := t.GetResTarget(); rt != nil && rt.Name == name {
				return i
			}
		}
	}
	return -1
}

// groupsBySetFunc tells whether a GROUP BY item names a select-list item
// that calls a set-returning function.
func groupsBySetFunc(s *pg.SelectStmt) bool {
	for _, g := range s.GroupClause {
		if k := groupedTarget(s, g); k >= 0 && len(setFuncCalls(s.TargetList[k].GetResTarget().GetVal())) > 0 {
			return true
		}
	}
	return false
}

// setFuncCalls finds the set-returning function calls of an expression,
// through the operators, casts and function calls around them.
func setFuncCalls(n *pg.Node) []*pg.Node {
	var out []*pg.Node
	var walk func(m *pg.Node)
	walk = func(m *pg.Node) {
		if m == nil {
			return
		}
		switch {
		case m.GetFuncCall() != nil:
			if isSetFunc(m.GetFuncCall()) {
				out = append(out, m)
				return
			}
			for _, a := range m.GetFuncCall().Args {
				walk(a)
			}
		case m.GetAExpr() != nil:
			walk(m.GetAExpr().Lexpr)
			walk(m.GetAExpr().Rexpr)
		case m.GetTypeCast() != nil:
			walk(m.GetTypeCast().Arg)
		case m.GetCoalesceExpr() != nil:
			for _, a := range m.GetCoalesceExpr().Args {
				walk(a)
			}
		case m.GetBoolExpr() != nil:
			for _, a := range m.GetBoolExpr().Args {
				walk(a)
			}
		case m.GetAIndirection() != nil:
			walk(m.GetAIndirection().Arg)
		}
	}
	walk(n)
	return out
}

// moveGroupedSetFunc rewrites a copy of s: the one set-returning call the
// grouped select-list items make becomes a LATERAL function in FROM,
// read through its alias. Several calls run in lockstep in PostgreSQL,
// which a cross join would not do: those are left alone (ok false).
func moveGroupedSetFunc(s *pg.SelectStmt) (*pg.SelectStmt, bool) {
	s2 := proto.Clone(s).(*pg.SelectStmt)
	var call *pg.Node
	var targets []int
	for _, g := range s2.GroupClause {
		k := groupedTarget(s2, g)
		if k < 0 {
			continue
		}
		for _, c := range setFuncCalls(s2.TargetList[k].GetResTarget().GetVal()) {
			if call != nil && c != call {
				return nil, false
			}
			call = c
			targets = append(targets, k)
		}
	}
	if call == nil {
		return nil, false
	}
	fc := call.GetFuncCall()
	if spec, ok := jsonSetSpec(fc); ok && len(spec.Cols) != 1 || funcName(fc) == "_pg_expandarray" {
		return nil, false // a record: no one column to read
	}
	alias := fmt.Sprintf("__srf_%d", fc.Location)
	moved := proto.Clone(call).(*pg.Node)
	for _, k := range targets {
		rt := s2.TargetList[k].GetResTarget()
		if rt.Name == "" && rt.Val == call {
			rt.Name = strings.ToLower(funcName(fc)) // the name the call gave the column
		}
	}
	call.Node = &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
		Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: alias}}}}, Location: fc.Location}}
	s2.FromClause = append(s2.FromClause, &pg.Node{Node: &pg.Node_RangeFunction{RangeFunction: &pg.RangeFunction{
		Lateral:   true,
		Functions: []*pg.Node{{Node: &pg.Node_List{List: &pg.List{Items: []*pg.Node{moved}}}}},
		Alias:     &pg.Alias{Aliasname: alias},
	}}})
	return s2, true
}
