package engine

import (
	"context"

	"github.com/loamdb/loam/storage/link"
)

// ForgetViewReads rewrites view ns.name as Loam wrote views before they
// recorded what they read: without the reads and creation properties.
func ForgetViewReads(ctx context.Context, e *Engine, ns, name string) error {
	v, err := e.meta.View(ctx, ns, name)
	if err != nil {
		return err
	}
	props := map[string]string{}
	for k, val := range v.Properties {
		if k != propViewReads && k != propViewCreated {
			props[k] = val
		}
	}
	v.Properties = props
	if err := e.meta.DropView(ctx, ns, name); err != nil {
		return err
	}
	return e.meta.CreateView(ctx, ns, name, v)
}

// Plannings is how many SELECTs and INSERTs e has planned.
func Plannings(e *Engine) int64 { return e.plannings.Load() }

// Link is e's write path, for tests of what its background upkeep may
// touch.
func Link(e *Engine) *link.Manager { return e.link }
