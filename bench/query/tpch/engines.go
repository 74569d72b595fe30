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

// engines are the servers and connections of one run.
type engines struct {
	cfg   *config
	loam  *sqlbench.Loam
	pgSrv *servers.PGCluster
	pg    *sqlbench.Wire
	duck  *sqlbench.Duck
	// warnings go under the report's notes.
	warnings []string
}

func startEngines(ctx context.Context, cfg *config, tmp string, logf func(string, ...any)) (*engines, error) {
	e := &engines{cfg: cfg}
	if cfg.engines["loam"] {
		bin := cfg.loamBin
		if bin == "" {
			logf("building ./cmd/loam")
			var err error
			if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
				return nil, err
			}
		}
		l, err := sqlbench.StartLoam(ctx, bin, filepath.Join(tmp, "loam"), cfg.loamArgs, cfg.rssLimit, cfg.opts.Timeout)
		if err != nil {
			return nil, err
		}
		e.loam = l
		logf("loam on %s (data %s)", l.Srv.Addr, l.Srv.DataDir)
	}
	if cfg.engines["postgres"] {
		pg, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"), cfg.pgSettings...)
		if err != nil {
			e.stop()
			return nil, err
		}
		e.pgSrv = pg
		logf("postgres on port %d (%s)", pg.Port, strings.Join(cfg.pgSettings, ", "))
		e.pg = sqlbench.PostgresWire(pg)
	}
	return e, nil
}

// openDuckDB makes each table a view over the Parquet files of its
// current snapshot (from Loam's Iceberg metadata); the row count DuckDB
// sees must be what was loaded.
func (e *engines) openDuckDB(ctx context.Context, rows map[string]int64) error {
	d, err := sqlbench.OpenDuckDB(ctx, e.cfg.threads)
	if err != nil {
		return err
	}
	e.duck = d
	for _, t := range tableOrder {
		files, err := sqlbench.DataFiles(ctx, e.loam.Srv.DataDir, t)
		if err != nil {
			return err
		}
		if len(files) == 0 {
			return fmt.Errorf("loam's table %s has no data files", t)
		}
		if err := d.Exec(ctx, duckView(t, files)); err != nil {
			return err
		}
		res, err := d.Query(ctx, "SELECT count(*) FROM "+t)
		if err != nil {
			return err
		}
		if got := res[0][0].Text; got != fmt.Sprint(rows[t]) {
			// Reported, not fatal: Loam's own answers are still compared
			// with PostgreSQL's, and DuckDB's mismatches show the damage.
			e.warnings = append(e.warnings, fmt.Sprintf("DuckDB reads %s rows of %s from the files of Loam's current Iceberg snapshot; %d were loaded", got, t, rows[t]))
		}
	}
	return nil
}

func (e *engines) stop() {
	if e.duck != nil {
		e.duck.Close()
	}
	if e.loam != nil {
		e.loam.Stop()
	}
	if e.pg != nil {
		e.pg.Close()
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
