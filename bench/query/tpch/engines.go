package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/loamdb/loam/bench/internal/servers"
	"github.com/loamdb/loam/bench/query/internal/sqlbench"
)

// engines are the servers and connections of one run. A Loam server that
// dies, or that a query keeps busy past its timeout, is replaced by a new
// one on the same data directory (its tables are in Iceberg after the
// load's CHECKPOINT), so one query cannot spoil the next one's figures.
type engines struct {
	cfg      *config
	dir      string
	loamBin  string
	loamSrv  *servers.Loam
	rss      *sqlbench.RSSWatch
	restarts int
	pgSrv    *servers.PGCluster
	loam     *sqlbench.Wire
	pg       *sqlbench.Wire
	duck     *sqlbench.Duck
}

func startEngines(ctx context.Context, cfg *config, tmp string, logf func(string, ...any)) (*engines, error) {
	e := &engines{cfg: cfg, dir: tmp}
	if cfg.engines["loam"] {
		e.loamBin = cfg.loamBin
		if e.loamBin == "" {
			logf("building ./cmd/loam")
			bin, err := servers.BuildLoam(ctx, tmp)
			if err != nil {
				return nil, err
			}
			e.loamBin = bin
		}
		if err := e.startLoam(ctx); err != nil {
			return nil, err
		}
		logf("loam on %s (data %s)", e.loamSrv.Addr, e.loamSrv.DataDir)
		timeoutSetting := fmt.Sprintf("SET statement_timeout = '%dms'", cfg.opts.Timeout.Milliseconds())
		e.loam = &sqlbench.Wire{Label: "loam", Connect: e.loamConn, Setup: []string{timeoutSetting}}
	}
	if cfg.engines["postgres"] {
		pg, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"), cfg.pgSettings...)
		if err != nil {
			e.stop()
			return nil, err
		}
		e.pgSrv = pg
		logf("postgres on port %d (%s)", pg.Port, strings.Join(cfg.pgSettings, ", "))
		e.pg = &sqlbench.Wire{Label: "postgres", Connect: func(context.Context) (string, error) { return pg.ConnString(), nil }}
	}
	return e, nil
}

func (e *engines) startLoam(ctx context.Context) error {
	srv, err := servers.StartLoamArgs(ctx, e.loamBin, filepath.Join(e.dir, "loam"), e.cfg.loamArgs...)
	if err != nil {
		return err
	}
	e.loamSrv = srv
	e.rss = sqlbench.WatchRSS(srv.PID(), e.cfg.rssLimit)
	return nil
}

// loamConn gives the server's address, starting a new server when the
// last one has exited.
func (e *engines) loamConn(ctx context.Context) (string, error) {
	if e.loamSrv.Exited() {
		if err := e.restartLoam(ctx); err != nil {
			return "", err
		}
	}
	return e.loamSrv.ConnString(), nil
}

func (e *engines) restartLoam(ctx context.Context) error {
	e.loam.Close()
	e.rss.Stop()
	e.loamSrv.Stop()
	e.restarts++
	return e.startLoam(ctx)
}

// openDuckDB makes each table a view over Loam's Parquet files; the
// row count DuckDB sees must be what was loaded (the glob holds the
// table's rows while no file has left the table's snapshot: Loam has
// only appended here).
func (e *engines) openDuckDB(ctx context.Context, rows map[string]int64) error {
	d, err := sqlbench.OpenDuckDB(ctx, e.cfg.threads)
	if err != nil {
		return err
	}
	e.duck = d
	warehouse := filepath.Join(e.loamSrv.DataDir, "warehouse")
	for _, t := range tableOrder {
		if err := d.Exec(ctx, duckView(warehouse, t)); err != nil {
			return err
		}
		res, err := d.Query(ctx, "SELECT count(*) FROM "+t)
		if err != nil {
			return err
		}
		if got := res[0][0].Text; got != fmt.Sprint(rows[t]) {
			return fmt.Errorf("duckdb sees %s rows of %s in Loam's files, %d were loaded", got, t, rows[t])
		}
	}
	return nil
}

func (e *engines) stop() {
	if e.duck != nil {
		e.duck.Close()
	}
	if e.loam != nil {
		e.loam.Close()
	}
	if e.pg != nil {
		e.pg.Close()
	}
	if e.loamSrv != nil {
		e.rss.Stop()
		e.loamSrv.Stop()
	}
	if e.pgSrv != nil {
		e.pgSrv.Stop()
	}
}

func execOut(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return string(out), err
}
