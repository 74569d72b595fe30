package main

import (
	"context"
	"fmt"
	"os"

	"github.com/loamdb/loam/bench/query/internal/sqlbench"
)

// queryReport is one query's figures on each engine and the checks of
// their answers against PostgreSQL's.
type queryReport struct {
	Num         int                   `json:"query"`
	Loam        *sqlbench.Measurement `json:"loam,omitempty"`
	PG          *sqlbench.Measurement `json:"postgres,omitempty"`
	Duck        *sqlbench.Measurement `json:"duckdb,omitempty"`
	LoamPeakRSS int64                 `json:"loam_peak_rss_bytes,omitempty"`
	LoamCheck   string                `json:"loam_check,omitempty"`   // "ok", or the first difference from PostgreSQL
	DuckCheck   string                `json:"duckdb_check,omitempty"` // likewise (numbers within a tolerance)
}

func (e *engines) runQueries(ctx context.Context, cfg *config, rep *report, logf func(string, ...any)) {
	qs := queries(cfg.sf)
	for i, q := range qs {
		num := i + 1
		if len(cfg.only) > 0 && !cfg.only[num] {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		qr := queryReport{Num: num}
		var loamRes, pgRes, duckRes sqlbench.Result
		if e.loam != nil {
			var m sqlbench.Measurement
			loamRes, m, qr.LoamPeakRSS = e.loam.Measure(ctx, q, cfg.opts)
			qr.Loam = &m
		}
		if e.pg != nil {
			var m sqlbench.Measurement
			pgRes, m = sqlbench.Measure(ctx, e.pg, q, cfg.opts)
			qr.PG = &m
		}
		if e.duck != nil {
			var m sqlbench.Measurement
			duckRes, m = sqlbench.Measure(ctx, e.duck, q, cfg.opts)
			qr.Duck = &m
		}
		qr.LoamCheck = sqlbench.Check(qr.Loam, loamRes, qr.PG, pgRes, true)
		qr.DuckCheck = sqlbench.Check(qr.Duck, duckRes, qr.PG, pgRes, false)
		rep.Queries = append(rep.Queries, qr)
		logf("Q%d %s", num, progressLine(qr))
		if p := os.Getenv("TPCH_PROGRESS"); p != "" {
			appendLine(p, fmt.Sprintf("SF %v %s Q%d %s", cfg.sf, rep.Commit, num, progressLine(qr)))
		}
	}
	if e.loam != nil {
		rep.LoamRestarts = e.loam.Restarts
	}
	rep.Warnings = e.warnings
}

func progressLine(qr queryReport) string {
	return fmt.Sprintf("ms loam %s, postgres %s, duckdb %s (CPU ms %s, %s, %s); loam vs pg %s, duckdb vs pg %s",
		sqlbench.CellText(qr.Loam), sqlbench.CellText(qr.PG), sqlbench.CellText(qr.Duck),
		sqlbench.CPUText(qr.Loam), sqlbench.CPUText(qr.PG), sqlbench.CPUText(qr.Duck), orDash(qr.LoamCheck), orDash(qr.DuckCheck))
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
