package main

import (
	"log/slog"
	"net/http"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/rest"
)

// restCatalog is the Iceberg REST catalog served on the HTTP port, over
// the engine's own metastore and authorizer: tokens are issued to roles
// with LOGIN for their passwords (--password requires one, as on the
// wire port), each request is checked with the same privileges as SQL,
// and an s3:// warehouse's settings and credentials are vended to
// readers in load-table results.
func restCatalog(st meta.Store, authz meta.Authorizer, cfg *config, log *slog.Logger) http.Handler {
	return rest.New(st, rest.Options{
		Password:   cfg.Password,
		Authorizer: authz,
		// The catalog does not read a pg_hba file: with one, it trusts
		// no client without a token.
		NoLoopbackTrust: cfg.HBAFile != "",
		Warehouse:       cfg.Warehouse,
		TableConfig:     meta.VendedS3(cfg.WarehouseIO),
		Logger:          log.With("component", "rest"),
	})
}
