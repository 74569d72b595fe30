package expr

import "sync"

// RunState is what the expressions of one execution of a plan keep while
// it runs: an uncorrelated subquery's rows, a correlated one's rows by
// outer value. A plan is immutable and may serve many executions (a
// prepared statement keeps it), so such results live here, one RunState
// per execution, never in the expressions themselves; two executions, or
// two cursors of one statement, then never share them.
type RunState struct {
	mu    sync.Mutex
	slots map[any]any
}

// Slot is the value kept under key (an expression node, say) in this
// execution, made by mk on first use.
func (r *RunState) Slot(key any, mk func() any) any {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.slots[key]; ok {
		return v
	}
	if r.slots == nil {
		r.slots = map[any]any{}
	}
	v := mk()
	r.slots[key] = v
	return v
}

// Lookup is the value kept under key, if any.
func (r *RunState) Lookup(key any) (any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.slots[key]
	return v, ok
}

// Set keeps v under key for the rest of the execution.
func (r *RunState) Set(key, v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.slots == nil {
		r.slots = map[any]any{}
	}
	r.slots[key] = v
}

// RunState is the state of the execution c belongs to, made on first use.
// Whoever starts an execution with a context that served another gives it
// a fresh one (Ctx.Run = nil or a new RunState).
func (c *Ctx) RunState() *RunState {
	if c.Run == nil {
		c.Run = &RunState{}
	}
	return c.Run
}
