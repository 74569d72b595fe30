package main

import (
	"errors"
	"flag"
	"time"

	"github.com/loamdb/loam/wire"
)

// connOpts are the flags about who may connect and how: TLS, the hba
// file and the connection limits.
type connOpts struct {
	tlsCert, tlsKey, hbaFile *string
	maxConns, maxFailed      *int
	authTimeout              *time.Duration
}

func connFlags(fs *flag.FlagSet) connOpts {
	return connOpts{
		tlsCert:     fs.String("tls-cert", "", "PEM certificate (chain) for TLS on the wire port; clients ask with sslmode=require/verify-full"),
		tlsKey:      fs.String("tls-key", "", "PEM private key of --tls-cert"),
		hbaFile:     fs.String("hba-file", "", "host-based authentication rules in pg_hba.conf's format (host/hostssl/hostnossl; trust, scram-sha-256, md5, password, reject); default: with --password every client uses --auth-method, without it loopback clients are trusted and others must use scram-sha-256"),
		maxConns:    fs.Int("max-connections", 100, "most concurrent client connections; beyond it a client gets 53300"),
		maxFailed:   fs.Int("max-failed-logins", 10, "failed logins one client address may have within a minute before it is refused for a minute; 0: no cap"),
		authTimeout: fs.Duration("auth-timeout", 60*time.Second, "how long a client has to complete the startup and authentication"),
	}
}

// apply checks the flags and puts them in cfg, reading the hba file so a
// mistake in it stops the start (naming the file and line).
func (o connOpts) apply(cfg *config) error {
	cfg.TLSCert, cfg.TLSKey, cfg.HBAFile = *o.tlsCert, *o.tlsKey, *o.hbaFile
	cfg.MaxConnections, cfg.MaxFailedLogins, cfg.AuthTimeout = *o.maxConns, *o.maxFailed, *o.authTimeout
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if cfg.MaxConnections <= 0 {
		return errors.New("--max-connections must be positive")
	}
	switch {
	case cfg.MaxFailedLogins < 0:
		return errors.New("--max-failed-logins must not be negative")
	case cfg.MaxFailedLogins == 0:
		cfg.MaxFailedLogins = -1 // wire's "no cap"
	}
	if cfg.AuthTimeout <= 0 {
		return errors.New("--auth-timeout must be positive")
	}
	if cfg.HBAFile != "" {
		h, err := wire.LoadHBA(cfg.HBAFile)
		if err != nil {
			return err
		}
		cfg.HBA = h
	}
	return nil
}
