package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Plan once. A SELECT or INSERT is planned when it is prepared (Parse and
// Describe, or a simple Query's statement before it runs) and the
// statement keeps the plan; each Execute binds its parameter values into
// the plan's evaluation context and builds operators from the kept plan.
// The plan is made again only when it cannot serve the execution:
//   - it holds values of its planning (plan.Planner.Reusable: LIMIT $1,
//     FOR TIMESTAMP AS OF $1, a subquery planned per outer row), so each
//     execution plans anew,
//     as PostgreSQL's custom plans do;
//   - a catalog object it resolved changed (PostgreSQL's plan-cache
//     invalidation): each name the planner looked up is looked up again
//     at Execute and must find the same object (table identity, schema
//     id, column defaults, view text, ref snapshot). The lookup reads the
//     current catalog, so another server's ALTER invalidates too, and a
//     changed search_path that resolves a name elsewhere does;
//   - a cursor still reads it (two portals of one statement).
// The lookups at Execute also pin the table states the plan's scans then
// read (build.Env.Tables), so a kept plan sees the rows written since.

// keptPlan is a statement's plan with what running it again needs.
type keptPlan struct {
	cat  *catalog  // the plan's catalog: its closures resolve through it
	ec   *expr.Ctx // the context the plan's expressions read, refreshed per run
	deps []tableDep
	cols []Column
	q    *plan.Query
	ins  bool   // q is an INSERT's, UPDATE's or DELETE's: its root is the sink
	tag  string // the command tag before the row count
	busy bool   // a cursor reads the plan now
	// access are the privileges the plan needs, checked at each run.
	access []plan.Access
}

// tableDep is one name the planner looked up and what it found.
type tableDep struct {
	schema, name string
	found        string // identity of what was found; "" for nothing
}

// recordDeps makes the catalog note each lookup (see Table).
func (c *catalog) recordDeps() { c.deps = &[]tableDep{} }

// note records a lookup's result.
func (c *catalog) note(schema, name string, ti *plan.TableInfo, err error) {
	*c.deps = append(*c.deps, tableDep{schema: schema, name: name, found: identity(ti, err)})
	if ti != nil && ti.Table != nil && ti.Ref == "" && !ti.Sequence {
		if c.current == nil {
			c.current = map[link.Key]*plan.TableInfo{}
		}
		c.current[link.Key{NS: ti.Namespace, Name: ti.Name}] = ti
	}
}

// identity names the catalog object a lookup found, as far as a plan
// depends on it: which table (its UUID, so a table dropped and created
// again is another), its schema, its columns' defaults and constraints,
// a view's text, a ref's snapshot.
func identity(ti *plan.TableInfo, err error) string {
	if err != nil || ti == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s@%s|%q|%v|%q|%q|%v|%v", ti.Namespace, ti.Name, ti.Ref, ti.ViewSQL, ti.Sequence, ti.Defaults, ti.Identity, ti.Required, ti.Types)
	if t := ti.Table; t != nil {
		fmt.Fprintf(&b, "|%s|%d", t.Metadata().TableUUID(), t.Schema().ID)
		if ti.Ref != "" {
			if snap := t.CurrentSnapshot(); snap != nil {
				fmt.Fprintf(&b, "|%d", snap.SnapshotID)
			}
		}
	}
	return b.String()
}

// CurrentSource is the state, pinned at this execution's lookups, of a
// table a kept plan scans (build.Tables).
func (c *catalog) CurrentSource(ctx context.Context, src physical.ScanSource) (physical.ScanSource, error) {
	ti := c.current[link.Key{NS: src.NS, Name: src.Name}]
	if ti == nil {
		// Not looked up by name (a view's table, read through the view's
		// own lookups): look it up now.
		var err error
		if ti, err = c.Table(ctx, src.NS, src.Name); err != nil {
			return src, err
		}
	}
	if ti.Table == nil || ti.Table.Metadata().TableUUID() != src.Table.Metadata().TableUUID() || ti.Table.Schema().ID != src.Table.Schema().ID {
		return src, pgerr.New(pgerr.FeatureNotSupported, "cached plan must not change result type")
	}
	src.Table, src.Log = ti.Table, ti.Log
	return src, nil
}

var _ build.Tables = (*catalog)(nil)

// valid looks up again each name the plan resolved and reports whether
// each finds the same object; the tables found stay pinned for the run.
func (k *keptPlan) valid(ctx context.Context) bool {
	k.cat.recordDeps()
	k.cat.current = nil
	for _, d := range k.deps {
		ti, err := k.cat.Table(ctx, d.schema, d.name)
		if identity(ti, err) != d.found {
			k.cat.release()
			return false
		}
	}
	return true
}

// planStmt plans a SELECT or INSERT for an execution with params,
// recording what the plan depends on; the plan is kept by st when it may
// serve later executions.
func (s *Session) planStmt(ctx context.Context, st *Statement, params []types.Datum) (*keptPlan, error) {
	cat := s.catalog()
	cat.recordDeps()
	p := plan.New(ctx, cat, s.exprCtx(), st.prep.query, append([]types.T(nil), st.ParamTypes...), params)
	p.NoParams = st.simple
	k, err := s.planKept(ctx, p, st.prep.stmt.Node, cat)
	if err != nil {
		cat.release()
		return nil, err
	}
	st.kept = nil
	if p.Reusable() {
		st.kept = k
	}
	return k, nil
}

// planKept plans a SELECT (without INTO) or an INSERT; nil for other
// statements.
func (s *Session) planKept(ctx context.Context, p *plan.Planner, n *pg.Node, cat *catalog) (*keptPlan, error) {
	k := &keptPlan{cat: cat, ec: p.Ctx()}
	switch n := n.Node.(type) {
	case *pg.Node_SelectStmt:
		s.eng.plannings.Add(1)
		q, err := p.Select(n.SelectStmt)
		if err != nil {
			return nil, err
		}
		k.q, k.cols = q, columns(q)
	case *pg.Node_InsertStmt:
		s.eng.plannings.Add(1)
		q, err := p.Insert(n.InsertStmt)
		if err != nil {
			return nil, err
		}
		k.q, k.ins, k.tag = q, true, "INSERT 0 "
		if len(q.Columns) > 0 {
			k.cols = columns(q)
		}
	case *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
		s.eng.plannings.Add(1)
		q, tag, err := planModify(p, &pg.Node{Node: n})
		if err != nil {
			return nil, err
		}
		k.q, k.ins, k.tag = q, true, tag
		if len(q.Columns) > 0 {
			k.cols = columns(q)
		}
	default:
		return nil, nil
	}
	k.deps = *cat.deps
	k.access = p.Access()
	return k, nil
}

// keptFor is the plan an execution of st with params runs: the kept one
// when it is still valid, else a new one. The plan's context then holds
// this execution's values and time.
func (s *Session) keptFor(ctx context.Context, st *Statement, params []types.Datum) (k *keptPlan, reused bool, err error) {
	if k := st.kept; k != nil && !k.busy && k.valid(ctx) {
		*k.ec = *s.exprCtx()
		k.ec.Params = params
		k.ec.Run = nil // this execution's results are its own (expr.RunState)
		return k, true, nil
	}
	k, err = s.planStmt(ctx, st, params)
	return k, false, err
}

// env is what building the plan's operators needs: a reused plan reads
// the tables' states pinned by its lookups at this execution.
func (k *keptPlan) env(reused bool) build.Env {
	env := build.Env{Ec: k.ec}
	if reused {
		env.Tables = k.cat
	}
	return env
}
