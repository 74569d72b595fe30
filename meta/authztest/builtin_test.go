package authztest

import (
	"context"
	"testing"

	"github.com/loamdb/loam/meta"
)

func TestAuthzBuiltin(t *testing.T) {
	Run(t, func(_ context.Context, st meta.Store) (meta.Authorizer, error) { return meta.NewAuthorizer(st), nil })
}
