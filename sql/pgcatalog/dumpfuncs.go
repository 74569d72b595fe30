package pgcatalog

import (
	"context"

	"github.com/loamdb/loam/types"
)

// dumpFunc is the functions PostgreSQL 15's pg_dump calls that no other
// client does; nil for other names and forms.
func (s *Session) dumpFunc(ctx context.Context, name string, args []types.T) (*Func, error) {
	constant := func(d types.Datum) (*Func, error) { return &Func{Const: &d}, nil }
	switch name {
	case "pg_is_in_recovery":
		// Loam has no standbys: a server is never recovering.
		if len(args) == 0 {
			return constant(dBool(false))
		}
	}
	return nil, nil
}
