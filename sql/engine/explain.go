package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

var explainColumns = []Column{{Name: "QUERY PLAN", Type: types.TText}}

type explainOptions struct {
	analyze, verbose bool
}

func explainOpts(es *pg.ExplainStmt) (explainOptions, error) {
	var o explainOptions
	for _, n := range es.Options {
		d := n.GetDefElem()
		on := true
		if d.Arg != nil {
			v := strings.ToLower(defString(d.Arg))
			switch v {
			case "true", "on", "1", "yes":
			case "false", "off", "0", "no":
				on = false
			default:
				if d.Defname != "format" {
					return o, pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", d.Defname)
				}
				if v != "text" {
					return o, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN FORMAT %s is not supported: only text", strings.ToUpper(v))
				}
			}
		}
		switch d.Defname {
		case "analyze":
			o.analyze = on
		case "verbose":
			o.verbose = on
		case "costs", "buffers", "timing", "summary", "settings", "wal", "format":
			// Loam shows no costs or buffers; the rest has one layout.
		default:
			return o, pgerr.New(pgerr.SyntaxError, "unrecognized EXPLAIN option %q", d.Defname).WithPosition(int(d.Location) + 1)
		}
	}
	return o, nil
}

func defString(n *pg.Node) string {
	switch {
	case n.GetString_() != nil:
		return n.GetString_().Sval
	case n.GetBoolean() != nil:
		return fmt.Sprint(n.GetBoolean().Boolval)
	case n.GetInteger() != nil:
		return fmt.Sprint(n.GetInteger().Ival)
	}
	return ""
}

// explain plans the statement and shows its plan, one text row a line;
// with ANALYZE it runs the plan first and shows what each operator did.
func (s *Session) explain(ctx context.Context, p *plan.Planner, es *pg.ExplainStmt, release func()) (*Cursor, error) {
	opts, err := explainOpts(es)
	if err != nil {
		release()
		return nil, err
	}
	start := time.Now()
	q, err := explainPlan(p, es.Query)
	if err == nil {
		err = s.checkAccess(ctx, p.Access())
	}
	if err != nil {
		release()
		return nil, err
	}
	planning := time.Since(start)
	var lines []string
	if opts.analyze {
		var an *build.Analysis
		var execution time.Duration
		// The analysed plan runs under a budget of its own, as a query.
		budget := s.eng.queryMem.NewBudget()
		ctx := mem.WithBudget(ctx, budget)
		if es.Query.GetInsertStmt() != nil || es.Query.GetUpdateStmt() != nil || es.Query.GetDeleteStmt() != nil || es.Query.GetMergeStmt() != nil {
			an, execution, err = s.analyzeWrite(ctx, q)
		} else {
			an, execution, err = analyzeQuery(ctx, q)
		}
		budget.Close()
		if err != nil {
			release()
			return nil, err
		}
		lines = build.Render(ctx, q.Root, an, q.Env().Ec)
		lines = append(lines, fmt.Sprintf("Planning Time: %.3f ms", float64(planning.Microseconds())/1000),
			fmt.Sprintf("Execution Time: %.3f ms", float64(execution.Microseconds())/1000))
	} else {
		lines = build.Render(ctx, q.Root, nil, q.Env().Ec)
	}
	if opts.verbose && len(q.Logical) > 0 {
		lines = append(lines, "Logical Plan (rewritten):")
		for _, l := range q.Logical {
			lines = append(lines, "  "+l)
		}
	}
	rows := make([][]expr.Expr, len(lines))
	for i, l := range lines {
		rows[i] = []expr.Expr{&expr.Const{D: types.TextDatum(l)}}
	}
	out, err := build.Build(ctx, &physical.Values{Rows: rows, ColumnTypes: []types.T{types.TText}}, q.Env())
	if err != nil {
		release()
		return nil, err
	}
	return s.queryCursor(ctx, explainColumns, out, release)
}

// explainPlan plans the statement EXPLAIN shows: a query or an INSERT.
func explainPlan(p *plan.Planner, n *pg.Node) (*plan.Query, error) {
	if sel := n.GetSelectStmt(); sel != nil {
		return p.Select(sel)
	}
	if ins := n.GetInsertStmt(); ins != nil {
		return p.Insert(ins)
	}
	if q, _, err := planModify(p, n); q != nil || err != nil {
		return q, err
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN of %s is not supported: only SELECT, INSERT, UPDATE, DELETE and MERGE", parse.StmtName(n))
}

// analyzeQuery runs a query's plan with its operators counted.
func analyzeQuery(ctx context.Context, q *plan.Query) (*build.Analysis, time.Duration, error) {
	root, an, err := build.Instrumented(ctx, q.Root, q.Env())
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	err = drain(ctx, root)
	return an, time.Since(start), err
}

func drain(ctx context.Context, root exec.Operator) error {
	defer root.Close()
	if err := root.Open(ctx); err != nil {
		return err
	}
	for {
		rec, err := root.Next(ctx)
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		rec.Release()
	}
}
