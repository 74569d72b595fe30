package main

import (
	"context"
	"log/slog"

	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/wire"
)

// wireConfig builds the wire server's configuration: logins are checked
// against the metastore's roles (the loam superuser is made sure of
// first), through the hba file's rules or the defaults, and recorded in
// the audit trail.
func wireConfig(ctx context.Context, cfg *config, eng *engine.Engine, log *slog.Logger) (wire.Config, error) {
	st := eng.Meta()
	if err := bootstrapRole(ctx, st, cfg.Password, log); err != nil {
		return wire.Config{}, err
	}
	wc := wire.Config{
		Engine:          wire.FromEngine(eng),
		Roles:           metaRoles{st},
		HBA:             cfg.HBA,
		MaxConnections:  cfg.MaxConnections,
		AuthTimeout:     cfg.AuthTimeout,
		MaxFailedLogins: cfg.MaxFailedLogins,
		OnLogin:         auditLogin(st, log),
		Logger:          log.With("component", "wire"),
	}
	if cfg.Password != "" {
		// A password means every client gives one: no trust on loopback.
		wc.AuthMethod = cfg.AuthMethod
	}
	if cfg.TLSCert != "" {
		tc, err := wire.LoadTLS(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return wire.Config{}, err
		}
		wc.TLS = tc
	}
	return wc, nil
}
