package engine

import (
	"context"
	"sync/atomic"
	"time"
)

// runContext is the context of one statement's run as its expressions see
// it (expr.Ctx.Context, through which pg_sleep, a subquery or nextval stop
// at a cancel request or statement_timeout): the Execute's, then each
// fetch's, since a cursor's rows may be read under a later context than
// the one that started it (a suspended portal, DECLARE … FETCH). One value
// serves every copy of the statement's expr.Ctx; its context changes
// between fetches, never during one.
type runContext struct {
	cur atomic.Pointer[context.Context]
}

func newRunContext(ctx context.Context) *runContext {
	r := &runContext{}
	r.set(ctx)
	return r
}

// set makes ctx the run's context, for a fetch about to run under it.
func (r *runContext) set(ctx context.Context) { r.cur.Store(&ctx) }

func (r *runContext) ctx() context.Context        { return *r.cur.Load() }
func (r *runContext) Deadline() (time.Time, bool) { return r.ctx().Deadline() }
func (r *runContext) Done() <-chan struct{}       { return r.ctx().Done() }
func (r *runContext) Err() error                  { return r.ctx().Err() }

// Value is the current context's, context.Cause's included: a
// statement_timeout shows as its own 57014.
func (r *runContext) Value(key any) any { return r.ctx().Value(key) }
