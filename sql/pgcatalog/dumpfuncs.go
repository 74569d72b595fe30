package pgcatalog

import (
	"context"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// dumpFunc is the functions PostgreSQL 15's pg_dump calls that no other
// client does; nil for other names and forms.
func (s *Session) dumpFunc(ctx context.Context, name string, args []types.T) (*Func, error) {
	constant := func(d types.Datum) (*Func, error) { return &Func{Const: &d}, nil }
	switch name {
	case "pg_export_snapshot":
		// pg_dump -j's workers would read the leader's snapshot; Loam's
		// sessions cannot share one, so the dump stops at once, saying so.
		if len(args) == 0 {
			return &Func{Result: types.TText, Fn: func(_ *expr.Ctx, _ []types.Datum) (types.Datum, error) {
				return types.Datum{}, pgerr.New(pgerr.FeatureNotSupported, "pg_export_snapshot() is not supported: Loam's sessions cannot share a snapshot").
					WithHint("Run pg_dump without -j (parallel dumps need a shared snapshot).")
			}}, nil
		}
	case "pg_is_in_recovery":
		// Loam has no standbys: a server is never recovering.
		if len(args) == 0 {
			return constant(dBool(false))
		}
	}
	return nil, nil
}
