package expr

import "testing"

// TestRunState: a slot is made once per execution; a context given a
// fresh RunState (the next execution of a kept plan) starts empty, and
// copies of one execution's context share its slots.
func TestRunState(t *testing.T) {
	key := &Col{Idx: 0}
	made := 0
	mk := func() any { made++; return made }
	c := &Ctx{}
	if v := c.RunState().Slot(key, mk); v != 1 {
		t.Fatalf("first slot: %v", v)
	}
	cp := *c // an operator's copy of the same execution's context
	if v := cp.RunState().Slot(key, mk); v != 1 {
		t.Errorf("a copy of the execution's context: %v, want the same slot", v)
	}
	if v := c.RunState().Slot(&Col{Idx: 0}, mk); v != 2 {
		t.Errorf("another node's slot: %v, want a new one", v)
	}
	c.Run = nil // the next execution
	if _, ok := c.RunState().Lookup(key); ok {
		t.Errorf("the next execution sees the last one's slot")
	}
	if v := c.RunState().Slot(key, mk); v != 3 {
		t.Errorf("the next execution's slot: %v, want a new one", v)
	}
}
