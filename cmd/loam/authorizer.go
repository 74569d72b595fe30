package main

import (
	"context"
	"fmt"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/openfga"
)

// The values of --authorizer.
const (
	authorizerBuiltin = "builtin"
	authorizerOpenFGA = "openfga"
)

func checkAuthorizer(name string) error {
	switch name {
	case authorizerBuiltin, authorizerOpenFGA:
		return nil
	}
	return fmt.Errorf("--authorizer %q: want %s or %s", name, authorizerBuiltin, authorizerOpenFGA)
}

// newAuthorizer is engine.Config.Authorizer for --authorizer: nil (the
// engine's built-in default) for builtin; for openfga an in-process
// OpenFGA server loaded from the metastore at start and brought in step
// whenever the metastore's roles and privileges change (on any server).
func newAuthorizer(name string) func(context.Context, meta.Store) (meta.Authorizer, error) {
	if name != authorizerOpenFGA {
		return nil
	}
	return func(ctx context.Context, st meta.Store) (meta.Authorizer, error) {
		return openfga.New(ctx, st)
	}
}
