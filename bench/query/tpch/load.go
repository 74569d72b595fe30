package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loamdb/loam/bench/query/internal/sqlbench"
	"github.com/loamdb/loam/bench/query/internal/tpchgen"
)

var tableOrder = tpchgen.Tables

type generated struct {
	SF      float64          `json:"sf"`
	Rows    map[string]int64 `json:"rows"`
	Bytes   map[string]int64 `json:"bytes"`
	Seconds float64          `json:"seconds"` // 0 when reused
	Reused  bool             `json:"reused"`
}

// generate writes the tables into dir, or reuses what an earlier run at
// the same scale factor left there (its manifest, written last, says).
func generate(dir string, sf float64, logf func(string, ...any)) (generated, error) {
	manifest := filepath.Join(dir, "manifest.json")
	var g generated
	if b, err := os.ReadFile(manifest); err == nil && json.Unmarshal(b, &g) == nil && g.SF == sf {
		logf("reusing the SF %v tables in %s", sf, dir)
		g.Reused, g.Seconds = true, 0
		return g, nil
	}
	logf("generating SF %v into %s", sf, dir)
	start := time.Now()
	counts, err := tpchgen.Generate(dir, sf)
	if err != nil {
		return g, err
	}
	g = generated{SF: sf, Rows: counts, Bytes: map[string]int64{}, Seconds: time.Since(start).Seconds()}
	for _, t := range tableOrder {
		st, err := os.Stat(filepath.Join(dir, t+".tsv"))
		if err != nil {
			return g, err
		}
		g.Bytes[t] = st.Size()
	}
	b, _ := json.MarshalIndent(g, "", "  ")
	if err := os.WriteFile(manifest, b, 0o644); err != nil {
		return g, err
	}
	logf("generated in %.1fs: %d lineitems", g.Seconds, g.Rows["lineitem"])
	return g, nil
}

type tableLoad struct {
	Table string  `json:"table"`
	Rows  int64   `json:"rows"`
	Bytes int64   `json:"bytes"`
	LoamS float64 `json:"loam_s,omitempty"`
	PGS   float64 `json:"pg_s,omitempty"`
}

type loadReport struct {
	Tables      []tableLoad `json:"tables"`
	LoamCopyS   float64     `json:"loam_copy_s"`
	LoamCkptS   float64     `json:"loam_checkpoint_s"`
	PGCopyS     float64     `json:"pg_copy_s"`
	PGIndexS    float64     `json:"pg_index_s"`
	PGAnalyzeS  float64     `json:"pg_vacuum_analyze_s"`
	LoamPeakRSS int64       `json:"loam_peak_rss_bytes"`
}

// load COPYs every table into Loam, then PostgreSQL (one at a time, so
// the two do not share the cores while timed), and readies DuckDB.
func (e *engines) load(ctx context.Context, cfg *config, dir string, rows map[string]int64, logf func(string, ...any)) (loadReport, error) {
	var lr loadReport
	for _, t := range tableOrder {
		st, _ := os.Stat(filepath.Join(dir, t+".tsv"))
		lr.Tables = append(lr.Tables, tableLoad{Table: t, Rows: rows[t], Bytes: st.Size()})
	}
	if e.loam != nil {
		if err := e.loam.Untimed(ctx); err != nil {
			return lr, err
		}
		if err := e.copyAll(ctx, e.loam.Wire, dir, lr.Tables, func(tl *tableLoad, s float64) { tl.LoamS = s; lr.LoamCopyS += s }, logf); err != nil {
			return lr, err
		}
		s, err := timedExec(ctx, e.loam.Wire, "CHECKPOINT")
		if err != nil {
			return lr, err
		}
		lr.LoamCkptS = s
		if err := e.loam.Timed(ctx); err != nil {
			return lr, err
		}
		lr.LoamPeakRSS = e.loam.ResetPeak()
		logf("loam: COPY %.1fs, CHECKPOINT %.1fs, peak RSS %d MiB", lr.LoamCopyS, s, lr.LoamPeakRSS>>20)
	}
	if e.pg != nil {
		if err := e.copyAll(ctx, e.pg, dir, lr.Tables, func(tl *tableLoad, s float64) { tl.PGS = s; lr.PGCopyS += s }, logf); err != nil {
			return lr, err
		}
		var err error
		if lr.PGIndexS, err = timedExec(ctx, e.pg, pgIndexes...); err != nil {
			return lr, err
		}
		if lr.PGAnalyzeS, err = timedExec(ctx, e.pg, "VACUUM ANALYZE"); err != nil {
			return lr, err
		}
		logf("postgres: COPY %.1fs, keys and indexes %.1fs, VACUUM ANALYZE %.1fs", lr.PGCopyS, lr.PGIndexS, lr.PGAnalyzeS)
	}
	if cfg.engines["duckdb"] {
		if err := e.openDuckDB(ctx, rows); err != nil {
			return lr, err
		}
		for _, w := range e.warnings {
			logf("WARNING: %s", w)
		}
	}
	return lr, nil
}

// copyAll creates each table and COPYs its file in, timing the COPY.
func (e *engines) copyAll(ctx context.Context, w *sqlbench.Wire, dir string, tables []tableLoad, record func(*tableLoad, float64), logf func(string, ...any)) error {
	for i := range tables {
		tl := &tables[i]
		if err := w.Exec(ctx, ddl[tl.Table]); err != nil {
			return err
		}
		conn, err := w.Conn(ctx)
		if err != nil {
			return err
		}
		f, err := os.Open(filepath.Join(dir, tl.Table+".tsv"))
		if err != nil {
			return err
		}
		start := time.Now()
		tag, err := conn.PgConn().CopyFrom(ctx, f, "COPY "+tl.Table+" FROM STDIN")
		s := time.Since(start).Seconds()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: COPY %s: %w", w.Label, tl.Table, err)
		}
		if tag.RowsAffected() != tl.Rows {
			return fmt.Errorf("%s: COPY %s: %d rows, the file has %d", w.Label, tl.Table, tag.RowsAffected(), tl.Rows)
		}
		record(tl, s)
		logf("%s: COPY %s: %d rows in %.2fs (%.0f rows/s)", w.Label, tl.Table, tl.Rows, s, float64(tl.Rows)/s)
	}
	return nil
}

func timedExec(ctx context.Context, w *sqlbench.Wire, stmts ...string) (float64, error) {
	start := time.Now()
	err := w.Exec(ctx, stmts...)
	return time.Since(start).Seconds(), err
}
