package engine

import (
	"context"
	"time"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// analyzeWrite runs the plan of a writing statement (INSERT) under
// EXPLAIN ANALYZE, its operators counted: as in PostgreSQL the rows are
// really written, through the statement's writer and into the session's
// transaction like the statement's own, and a failure writes nothing.
func (s *Session) analyzeWrite(ctx context.Context, q *plan.Query) (*build.Analysis, time.Duration, error) {
	var an *build.Analysis
	var execution time.Duration
	_, err := s.writing(ctx, func(w link.Writer) (int64, error) {
		env := q.Env()
		env.Ec.Writer = w
		defer func() { env.Ec.Writer = nil }()
		root, a, err := build.Instrumented(ctx, q.Root, env)
		if err != nil {
			return 0, err
		}
		an = a
		start := time.Now()
		err = drain(ctx, root)
		execution = time.Since(start)
		return 0, err
	})
	if err != nil {
		return nil, 0, err
	}
	return an, execution, nil
}
