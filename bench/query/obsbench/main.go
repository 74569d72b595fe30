// Command obsbench times an LLM-observability dashboard (JSON attributes,
// traces joined to observations and scores, subqueries) on Loam and on an
// indexed PostgreSQL 15 over the same few hundred thousand rows, and
// checks that both return the same answers. See bench/README.md
// ("Observability dashboard benchmark").
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loamdb/loam/bench/internal/servers"
	"github.com/loamdb/loam/bench/query/internal/sqlbench"
)

type config struct {
	traces     int
	seed       uint64
	opts       sqlbench.Options
	only       map[string]bool
	label, out string
	loamBin    string
	pgBin      string
	pgSettings []string
	rssLimit   int64
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func parseConfig(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("obsbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	traces := fs.Int("traces", intEnv("OBS_TRACES", 60000), "traces generated; about 6 observations and 2 scores each (OBS_TRACES)")
	seed := fs.Uint64("seed", uint64(intEnv("BENCH_SEED", 1)), "data seed (BENCH_SEED)")
	runs := fs.Int("runs", intEnv("OBS_RUNS", 5), "timed runs after the warm-up; the median is reported (OBS_RUNS)")
	timeout := fs.Duration("timeout", 120*time.Second, "limit of one run of a query")
	budget := fs.Duration("budget", 30*time.Second, "time the timed runs of one query on one engine may take together")
	only := fs.String("queries", env("OBS_QUERIES", ""), "query names, comma-separated; empty: all (OBS_QUERIES)")
	label := fs.String("label", env("OBS_LABEL", "latest"), "results go to <out>/obs-<label>.txt and .json (OBS_LABEL)")
	out := fs.String("out", env("OBS_OUT", "bench/results"), "directory of the results, relative to the repository root; empty: stdout only")
	loamBin := fs.String("loam-bin", env("BENCH_LOAM_BIN", env("LOAM_BIN", "")), "Loam server binary; empty builds ./cmd/loam (BENCH_LOAM_BIN)")
	pgBin := fs.String("pg-bin", env("BENCH_PG_BIN", "/usr/lib/postgresql/15/bin"), "PostgreSQL binaries (BENCH_PG_BIN)")
	pgSettings := fs.String("pg-settings", env("BENCH_PG_SETTINGS", "shared_buffers=2GB,work_mem=64MB,effective_cache_size=8GB"), "PostgreSQL settings (BENCH_PG_SETTINGS)")
	rssLimit := fs.Int64("rss-limit-mb", 8192, "kill the Loam server when its resident set passes this many MiB (0: never)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *traces < 1 || *runs < 0 {
		return nil, fmt.Errorf("-traces must be positive and -runs not negative")
	}
	cfg := &config{traces: *traces, seed: *seed, opts: sqlbench.Options{Runs: *runs, Timeout: *timeout, Budget: *budget},
		only: map[string]bool{}, label: *label, out: *out, loamBin: *loamBin, pgBin: *pgBin, rssLimit: *rssLimit << 20}
	for _, s := range strings.Split(*pgSettings, ",") {
		if s = strings.TrimSpace(s); s != "" {
			cfg.pgSettings = append(cfg.pgSettings, s)
		}
	}
	known := map[string]bool{}
	for _, q := range queries {
		known[q.name] = true
	}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		} else if !known[s] {
			return nil, fmt.Errorf("-queries: no query %q", s)
		}
		cfg.only[s] = true
	}
	return cfg, nil
}

func intEnv(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
		return -1
	}
	return def
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(stderr, "obsbench:", err)
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "obsbench:", err)
		return 1
	}
	return 0
}

// result is one query's figures.
type result struct {
	Name        string                `json:"query"`
	Loam        *sqlbench.Measurement `json:"loam"`
	PG          *sqlbench.Measurement `json:"postgres"`
	LoamPeakRSS int64                 `json:"loam_peak_rss_bytes,omitempty"`
	Check       string                `json:"check,omitempty"`
}

type report struct {
	Traces  int                `json:"traces"`
	Rows    map[string]int64   `json:"rows"`
	Options sqlbench.Options   `json:"options"`
	Started time.Time          `json:"started"`
	Queries []result           `json:"queries"`
	Load    map[string]float64 `json:"load_s"`
}

func bench(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, time.Now().Format("15:04:05 ")+format+"\n", a...) }
	tmp, err := os.MkdirTemp("", "obsbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := cfg.loamBin
	if bin == "" {
		if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
			return err
		}
	}
	loam, err := sqlbench.StartLoam(ctx, bin, filepath.Join(tmp, "loam"), nil, cfg.rssLimit, cfg.opts.Timeout)
	if err != nil {
		return err
	}
	defer loam.Stop()
	pgSrv, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"), cfg.pgSettings...)
	if err != nil {
		return err
	}
	defer pgSrv.Stop()
	pg := sqlbench.PostgresWire(pgSrv)
	defer pg.Close()

	rep := &report{Traces: cfg.traces, Options: cfg.opts, Started: time.Now().UTC(), Load: map[string]float64{}}
	if err := loam.Untimed(ctx); err != nil {
		return err
	}
	if rep.Rows, err = load(ctx, cfg, loam, pg, rep.Load, logf); err != nil {
		return err
	}
	if err := loam.Timed(ctx); err != nil {
		return err
	}
	for _, q := range queries {
		if len(cfg.only) > 0 && !cfg.only[q.name] {
			continue
		}
		r := result{Name: q.name}
		loamRes, lm, peak := loam.Measure(ctx, q.sql, cfg.opts)
		pgRes, pm := sqlbench.Measure(ctx, pg, q.sql, cfg.opts)
		r.Loam, r.PG, r.LoamPeakRSS = &lm, &pm, peak
		r.Check = sqlbench.Check(&lm, loamRes, &pm, pgRes, true)
		logf("%s: loam %s, postgres %s, %s", q.name, sqlbench.CellText(&lm), sqlbench.CellText(&pm), r.Check)
		rep.Queries = append(rep.Queries, r)
	}
	return rep.write(cfg, stdout, logf)
}

// load COPYs the generated tables into Loam (then CHECKPOINT) and into
// PostgreSQL (then its indexes and VACUUM ANALYZE).
func load(ctx context.Context, cfg *config, loam *sqlbench.Loam, pg *sqlbench.Wire, secs map[string]float64, logf func(string, ...any)) (map[string]int64, error) {
	data := tables(cfg.traces, cfg.seed)
	rows := map[string]int64{}
	for _, w := range []*sqlbench.Wire{loam.Wire, pg} {
		if err := w.Exec(ctx, ddl...); err != nil {
			return nil, err
		}
		conn, err := w.Conn(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range []string{"traces", "observations", "scores"} {
			start := time.Now()
			tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data[t]), "COPY "+t+" FROM STDIN")
			if err != nil {
				return nil, fmt.Errorf("%s: COPY %s: %w", w.Label, t, err)
			}
			secs[w.Label+" COPY "+t] = time.Since(start).Seconds()
			rows[t] = tag.RowsAffected()
		}
		after := []string{"CHECKPOINT"}
		if w == pg {
			after = append(pgIndexes, "VACUUM ANALYZE")
		}
		start := time.Now()
		if err := w.Exec(ctx, after...); err != nil {
			return nil, err
		}
		secs[w.Label+" "+strings.Fields(after[0])[0]] = time.Since(start).Seconds()
		logf("%s loaded: %v", w.Label, rows)
	}
	return rows, nil
}

func (r *report) write(cfg *config, stdout io.Writer, logf func(string, ...any)) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Load average at the end: %s\n", loadAvg())
	fmt.Fprintf(&b, "Observability dashboard: %d traces, %d observations, %d scores; median of up to %d runs after a warm-up, ms\n\n",
		r.Rows["traces"], r.Rows["observations"], r.Rows["scores"], cfg.opts.Runs)
	rows := [][]string{{"query", "Loam", "PG", "Loam/PG", "Loam CPU", "PG CPU", "CPU Loam/PG", "Loam RSS MiB", "Loam = PG"}}
	var ratios, cpuRatios []float64
	slower, notes := 0, []string{}
	for _, q := range r.Queries {
		rss := "-"
		if q.LoamPeakRSS > 0 {
			rss = fmt.Sprint(q.LoamPeakRSS >> 20)
		}
		check := q.Check
		if strings.HasPrefix(check, "MISMATCH") {
			notes = append(notes, q.Name+": "+check)
			check = "MISMATCH"
		}
		for _, m := range []struct {
			who string
			m   *sqlbench.Measurement
		}{{"loam", q.Loam}, {"postgres", q.PG}} {
			if m.m.Err != "" {
				notes = append(notes, fmt.Sprintf("%s %s: %s", q.Name, m.who, m.m.Err))
			}
		}
		if x := sqlbench.Ratio(q.Loam, q.PG); x > 0 {
			ratios = append(ratios, x)
			if x > 1 {
				slower++
			}
		}
		cr := "-"
		if x := sqlbench.CPURatio(q.Loam, q.PG); x > 0 {
			cr = fmt.Sprintf("%.2fx", x)
			cpuRatios = append(cpuRatios, x)
		}
		rows = append(rows, []string{q.Name, sqlbench.CellText(q.Loam), sqlbench.CellText(q.PG), sqlbench.RatioText(q.Loam, q.PG),
			sqlbench.CPUText(q.Loam), sqlbench.CPUText(q.PG), cr, rss, orDash(check)})
	}
	sqlbench.PrintTable(&b, rows)
	fmt.Fprintf(&b, "\nGeometric mean Loam/PG %.2f over the %d queries both answered (CPU time: %.2f); Loam slower than PostgreSQL on %d\n",
		sqlbench.Geomean(ratios), len(ratios), sqlbench.Geomean(cpuRatios), slower)
	fmt.Fprintln(&b, "Wall times in ms from sending the query to the last row; CPU: ms of CPU the server's processes used in the same runs (both cores added up).")
	if len(notes) > 0 {
		fmt.Fprintln(&b, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(&b, "  "+n)
		}
	}
	fmt.Fprint(stdout, b.String())
	if cfg.out == "" {
		return nil
	}
	root, err := servers.RepoRoot()
	if err != nil {
		return err
	}
	base := filepath.Join(root, cfg.out, "obs-"+cfg.label)
	js, _ := json.MarshalIndent(r, "", "  ")
	if err := os.WriteFile(base+".json", append(js, '\n'), 0o644); err != nil {
		return err
	}
	logf("wrote %s.txt and .json", base)
	return os.WriteFile(base+".txt", []byte(b.String()), 0o644)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
