package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
)

// A statement's expr.Ctx, and any copy of it (a kept plan copies the
// statement's into its own), watches the context of the fetch running
// now: a later fetch's context replaces the Execute's, and a timeout's
// cause is the 57014 an expression reports.
func TestRunContextFollowsFetches(t *testing.T) {
	s := &Session{}
	first, endFirst := context.WithCancel(context.Background())
	s.startStatement(first)
	ec := s.exprCtx()
	copied := *ec
	endFirst()
	if copied.Context.Err() == nil {
		t.Fatal("the Execute's context ended, and the Ctx's did not")
	}
	later, endLater := context.WithCancelCause(context.Background())
	s.runCtx.set(later) // a fetch under a later context
	for _, c := range []*expr.Ctx{ec, &copied} {
		if err := expr.Context(c).Err(); err != nil {
			t.Errorf("the fetch's context is live, the Ctx's ended: %v", err)
		}
	}
	endLater(pgerr.StatementTimeout())
	var pe *pgerr.Error
	if err := pgerr.Canceled(expr.Context(&copied)); !errors.As(err, &pe) || pe.Message != "canceling statement due to statement timeout" {
		t.Errorf("cancelled by statement_timeout: %v", err)
	}
	s.startStatement(context.Background())
	if s.exprCtx() == ec || s.exprCtx().Context == ec.Context {
		t.Error("the next statement shares the last one's Ctx")
	}
}
