package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/rest"
)

// restCatalog opens the Iceberg REST catalog served on the HTTP port. It
// has its own connection to the metastore (the catalog needs names and
// pointers only, not the engine); the password that guards the wire port
// guards its tokens, and an s3:// warehouse's settings and credentials are
// vended to readers in load-table results.
func restCatalog(ctx context.Context, cfg *config, log *slog.Logger) (http.Handler, func(), error) {
	st, err := meta.Open(ctx, cfg.Metastore, cfg.Warehouse, cfg.WarehouseIO)
	if err != nil {
		return nil, nil, fmt.Errorf("rest catalog: %w", err)
	}
	h := rest.New(st, rest.Options{
		Password:    cfg.Password,
		Warehouse:   cfg.Warehouse,
		TableConfig: meta.VendedS3(cfg.WarehouseIO),
		Logger:      log.With("component", "rest"),
	})
	return h, func() { st.Close() }, nil
}
