// Command tpchbench runs TPC-H on Loam, PostgreSQL 15 and DuckDB: it
// generates the data with dbgen's rules (internal/tpchgen), loads it
// through COPY into a Loam server (then CHECKPOINT) and a throwaway
// PostgreSQL cluster (then primary keys, foreign-key indexes and VACUUM
// ANALYZE), points an in-process DuckDB at the Parquet files Loam wrote,
// runs the 22 queries with the validation parameters on each, compares
// the answers with PostgreSQL's and reports times, their ratios and the
// COPY rates. See bench/README.md ("TPC-H benchmark").
package main

import (
	"context"
	"debug/buildinfo"
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
	sf         float64
	opts       sqlbench.Options
	only       map[int]bool
	engines    map[string]bool
	label      string
	outDir     string // "" : report on stdout only
	dataDir    string // generated tables, kept and reused; "": a temporary one
	loamBin    string
	loamArgs   []string
	pgBin      string
	pgSettings []string
	threads    int
	rssLimit   int64
	keep       bool
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

const defaultPGSettings = "shared_buffers=2GB,work_mem=64MB,effective_cache_size=8GB,max_wal_size=8GB"

func parseConfig(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("tpchbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := fs.String("sf", env("TPCH_SF", "1"), "scale factor: a whole number, or 0.1, 0.01 (TPCH_SF)")
	runs := fs.Int("runs", atoi(env("TPCH_RUNS", "3")), "timed runs of each query after the warm-up; the median is reported (TPCH_RUNS)")
	timeout := fs.Duration("timeout", dur(env("TPCH_TIMEOUT", "120s")), "limit of one run of a query on any engine (TPCH_TIMEOUT)")
	budget := fs.Duration("budget", dur(env("TPCH_BUDGET", "60s")), "time the timed runs of one query on one engine may take together (TPCH_BUDGET)")
	only := fs.String("queries", env("TPCH_QUERIES", ""), "query numbers, comma-separated; empty: all 22 (TPCH_QUERIES)")
	engines := fs.String("engines", env("TPCH_ENGINES", "loam,postgres,duckdb"), "engines (TPCH_ENGINES)")
	label := fs.String("label", env("TPCH_LABEL", "latest"), "results go to <out>/tpch-sf<SF>-<label>.txt and .json (TPCH_LABEL)")
	out := fs.String("out", env("TPCH_OUT", "bench/results"), "directory of the results, relative to the repository root; empty: stdout only (TPCH_OUT)")
	data := fs.String("data", env("TPCH_DATA", ""), "directory keeping the generated tables for later runs; empty: a temporary one (TPCH_DATA)")
	loamBin := fs.String("loam-bin", env("BENCH_LOAM_BIN", env("LOAM_BIN", "")), "Loam server binary; empty builds ./cmd/loam (BENCH_LOAM_BIN)")
	loamArgs := fs.String("loam-args", env("TPCH_LOAM_ARGS", ""), "more `loam serve` flags, space-separated (TPCH_LOAM_ARGS)")
	pgBin := fs.String("pg-bin", env("BENCH_PG_BIN", "/usr/lib/postgresql/15/bin"), "PostgreSQL binaries (BENCH_PG_BIN)")
	pgSettings := fs.String("pg-settings", env("BENCH_PG_SETTINGS", defaultPGSettings), "PostgreSQL settings, comma-separated (BENCH_PG_SETTINGS)")
	threads := fs.Int("duckdb-threads", 2, "DuckDB threads")
	rssLimit := fs.Int64("rss-limit-mb", int64(atoi(env("TPCH_RSS_LIMIT_MB", "8192"))), "kill the Loam server when its resident set passes this many MiB (TPCH_RSS_LIMIT_MB; 0: never)")
	keep := fs.Bool("keep", env("BENCH_KEEP", "") != "", "keep the temporary directory (BENCH_KEEP=1)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cfg := &config{
		opts:  sqlbench.Options{Runs: *runs, Timeout: *timeout, Budget: *budget},
		label: *label, outDir: *out, dataDir: *data, loamBin: *loamBin, loamArgs: strings.Fields(*loamArgs),
		pgBin: *pgBin, pgSettings: splitList(*pgSettings), threads: *threads, rssLimit: *rssLimit << 20, keep: *keep,
		engines: map[string]bool{}, only: map[int]bool{},
	}
	var err error
	if cfg.sf, err = strconv.ParseFloat(*sf, 64); err != nil || cfg.sf <= 0 {
		return nil, fmt.Errorf("-sf %q: want a positive number", *sf)
	}
	for _, e := range splitList(*engines) {
		if e != "loam" && e != "postgres" && e != "duckdb" {
			return nil, fmt.Errorf("-engines: unknown engine %q", e)
		}
		cfg.engines[e] = true
	}
	if cfg.engines["duckdb"] && !cfg.engines["loam"] {
		return nil, fmt.Errorf("-engines: duckdb reads Loam's files, so it needs loam")
	}
	for _, s := range splitList(*only) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 22 {
			return nil, fmt.Errorf("-queries: %q is not a query number 1..22", s)
		}
		cfg.only[n] = true
	}
	if cfg.opts.Runs < 0 || cfg.opts.Timeout <= 0 {
		return nil, fmt.Errorf("-runs must be >= 0 and -timeout positive")
	}
	return cfg, nil
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1 // rejected by the checks
	}
	return n
}

func dur(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		return -1
	}
	return d
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(stderr, "tpchbench:", err)
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "tpchbench:", err)
		return 1
	}
	return 0
}

// bench sets up the engines, loads them, runs the queries and reports.
func bench(ctx context.Context, cfg *config, stdout, stderr io.Writer) (err error) {
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, time.Now().Format("15:04:05 ")+format+"\n", a...)
	}
	tmp, err := os.MkdirTemp("", "tpchbench-")
	if err != nil {
		return err
	}
	defer func() {
		if cfg.keep {
			logf("kept %s", tmp)
			return
		}
		os.RemoveAll(tmp)
	}()
	rep := &report{SF: cfg.sf, Label: cfg.label, Started: time.Now().UTC(), Commit: loamCommit(cfg.loamBin), Options: cfg.opts}
	rep.LoadAvg[0] = loadAvg()
	dataDir := cfg.dataDir
	if dataDir == "" {
		dataDir = filepath.Join(tmp, "tables")
	}
	if rep.Generate, err = generate(dataDir, cfg.sf, logf); err != nil {
		return err
	}
	env, err := startEngines(ctx, cfg, tmp, logf)
	if err != nil {
		return err
	}
	defer env.stop()
	if rep.Load, err = env.load(ctx, cfg, dataDir, rep.Generate.Rows, logf); err != nil {
		return err
	}
	env.runQueries(ctx, cfg, rep, logf)
	rep.Finished = time.Now().UTC()
	return rep.write(cfg, stdout, logf)
}

// loamCommit names the commit the Loam binary was built from:
// TPCH_LOAM_COMMIT when set, else Go's build information (vcs.revision,
// "+dirty" when vcs.modified), else the working tree's, marked as such
// when the binary came from elsewhere.
func loamCommit(bin string) string {
	if c := os.Getenv("TPCH_LOAM_COMMIT"); c != "" {
		return c
	}
	if bin == "" {
		return commit()
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return commit() + " (the tree's; the binary has no build information)"
	}
	rev, dirty := "", ""
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 7:
			rev = s.Value[:7]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return commit() + " (the tree's; the binary has no build information)"
	}
	return rev + dirty
}

// commit names the working tree's commit, as the other benchmarks do.
func commit() string {
	root, err := servers.RepoRoot()
	if err != nil {
		return "unknown"
	}
	out, err := execOut(root, "git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(out)
	if st, err := execOut(root, "git", "status", "--porcelain", "--untracked-files=no"); err == nil && strings.TrimSpace(st) != "" {
		c += "+dirty"
	}
	return c
}
