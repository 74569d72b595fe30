// Command querybench times dashboard queries on Loam, DuckDB and
// PostgreSQL 15 over the same synthetic LLM-call rows (bench/gen).
//
// It starts a Loam server and a throwaway PostgreSQL cluster on loopback
// ports, COPYs the same rows into both (Loam: then CHECKPOINT, so every row
// is in Iceberg data files; PostgreSQL: then indexes and VACUUM ANALYZE),
// points an in-process DuckDB at the Parquet files Loam wrote, runs each
// query once to warm up and compare the engines' answers, then times it,
// and prints the median times and their ratios.
//
// It is a module of its own so that the Loam server never links DuckDB;
// run it with `make bench-query` (see bench/README.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/loamdb/loam/bench/gen"
	"github.com/loamdb/loam/bench/internal/servers"
	"github.com/loamdb/loam/bench/query/internal/sqlbench"
)

// config is the harness's settings: flags, defaulting to BENCH_* variables.
type config struct {
	rows       uint64
	runs       int
	seed       uint64
	engines    map[string]bool
	only       map[int]bool // query numbers to run; empty: all
	loamBin    string
	pgBin      string
	pgSettings []string
	threads    int
	keep       bool
	timeout    time.Duration // of one query run
	settle     time.Duration // pause before each engine's runs of a query
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// defaultPGSettings give PostgreSQL the memory a dashboard database would
// be configured with on this machine, rather than initdb's 128MB of shared
// buffers and 4MB sorts.
const defaultPGSettings = "shared_buffers=2GB,work_mem=64MB,effective_cache_size=8GB"

func parseConfig(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("querybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.String("rows", env("BENCH_QUERY_ROWS", "10000000"), "rows loaded (BENCH_QUERY_ROWS)")
	runs := fs.String("runs", env("BENCH_QUERY_RUNS", "5"), "timed runs of each query after the warm-up (BENCH_QUERY_RUNS)")
	seed := fs.String("seed", env("BENCH_SEED", "1"), "data set seed (BENCH_SEED)")
	engines := fs.String("engines", env("BENCH_QUERY_ENGINES", "loam,duckdb,postgres"), "engines, comma-separated (BENCH_QUERY_ENGINES)")
	only := fs.String("queries", env("BENCH_QUERIES", ""), "query numbers to run, comma-separated; empty: all (BENCH_QUERIES)")
	loamBin := fs.String("loam-bin", env("BENCH_LOAM_BIN", ""), "Loam server binary; empty builds ./cmd/loam (BENCH_LOAM_BIN)")
	pgBin := fs.String("pg-bin", env("BENCH_PG_BIN", "/usr/lib/postgresql/15/bin"), "PostgreSQL binaries directory (BENCH_PG_BIN)")
	pgSettings := fs.String("pg-settings", env("BENCH_PG_SETTINGS", defaultPGSettings), "PostgreSQL settings name=value, comma-separated (BENCH_PG_SETTINGS)")
	threads := fs.Int("duckdb-threads", 2, "DuckDB threads")
	keep := fs.Bool("keep", env("BENCH_KEEP", "") != "", "keep the temporary directory (BENCH_KEEP=1)")
	timeout := fs.Duration("timeout", 10*time.Minute, "limit of one query run (BENCH_QUERY_TIMEOUT)")
	settle := fs.Duration("settle", time.Second, "pause before each engine's runs of a query, so the one before has gone quiet (BENCH_QUERY_SETTLE)")
	if v := os.Getenv("BENCH_QUERY_SETTLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("BENCH_QUERY_SETTLE %q: %w", v, err)
		}
		*settle = d
	}
	if v := os.Getenv("BENCH_QUERY_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("BENCH_QUERY_TIMEOUT %q: %w", v, err)
		}
		*timeout = d
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c := &config{loamBin: *loamBin, pgBin: *pgBin, threads: *threads, keep: *keep, timeout: *timeout, settle: *settle,
		engines: map[string]bool{}, only: map[int]bool{}}
	var err error
	if c.rows, err = strconv.ParseUint(*rows, 10, 64); err != nil || c.rows == 0 {
		return nil, fmt.Errorf("rows %q: want a positive integer", *rows)
	}
	if c.runs, err = strconv.Atoi(*runs); err != nil || c.runs < 1 {
		return nil, fmt.Errorf("runs %q: want a positive integer", *runs)
	}
	if c.seed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
		return nil, fmt.Errorf("seed %q: want an integer", *seed)
	}
	for _, s := range strings.Split(*engines, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(engineNames, s) {
			return nil, fmt.Errorf("engine %q: want loam, duckdb or postgres", s)
		}
		c.engines[s] = true
	}
	if c.engines["duckdb"] && !c.engines["loam"] {
		return nil, fmt.Errorf("engine duckdb reads the files Loam writes: it needs loam too")
	}
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > len(queries) {
				return nil, fmt.Errorf("queries %q: want numbers from 1 to %d", *only, len(queries))
			}
			c.only[n] = true
		}
	}
	for _, s := range strings.Split(*pgSettings, ",") {
		if s = strings.TrimSpace(s); s != "" {
			if !strings.Contains(s, "=") || strings.ContainsAny(s, " '\"") {
				return nil, fmt.Errorf("pg-settings %q: want name=value items", s)
			}
			c.pgSettings = append(c.pgSettings, s)
		}
	}
	if c.threads < 1 {
		return nil, fmt.Errorf("duckdb-threads %d: want at least 1", c.threads)
	}
	return c, nil
}

// engineNames are the engines in the order they run and are reported.
var engineNames = []string{"loam", "duckdb", "postgres"}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "querybench:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "querybench:", err)
		return 1
	}
	return 0
}

// table is the name of the benchmark table in every engine.
const table = "llm_calls"

// loamDDL is gen's Loam table without its retention clause: the data set's
// fixed dates must not age out of a table queried months later.
var loamDDL = strings.Replace(gen.CreateTableLoam(table), "\nWITH (retention = '180 days' ON ts)", "", 1)

func bench(ctx context.Context, cfg *config, stdout, stderr io.Writer) (err error) {
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
	tmp, err := os.MkdirTemp("", "loam-querybench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	var (
		engines []engine
		loamE   *wireEngine
		pgE     *wireEngine
		loam    *servers.Loam
		pgConn  string
	)
	defer func() {
		for _, e := range engines {
			e.close()
		}
	}()
	if cfg.engines["loam"] {
		bin := cfg.loamBin
		if bin == "" {
			logf("building ./cmd/loam")
			if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
				return err
			}
		}
		dir := filepath.Join(tmp, "loam")
		if loam, err = servers.StartLoam(ctx, bin, dir); err != nil {
			return err
		}
		defer func() { loam.Stop() }()
		logf("loam serving on %s (pid %d, log %s)", loam.Addr, loam.PID(), loam.Log)
		loamRSS = sqlbench.WatchRSS(loam.PID(), 0)
		defer func() { loamRSS.Stop() }()
		loamE = &wireEngine{label: "loam", connect: func(ctx context.Context) (string, error) {
			if loam.Exited() {
				// Crashed on an earlier query: a new server on the same
				// data directory serves the same table.
				logf("loam has exited (see %s): restarting it", loam.Log)
				s, err := servers.StartLoam(ctx, bin, dir)
				if err != nil {
					return "", err
				}
				loam = s
				loamRSS.Stop()
				loamRSS = sqlbench.WatchRSS(loam.PID(), 0)
			}
			return loam.ConnString(), nil
		}}
	}
	if cfg.engines["postgres"] {
		pg, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"), cfg.pgSettings...)
		if err != nil {
			return err
		}
		defer pg.Stop()
		logf("postgres serving on 127.0.0.1:%d (%s; %s)", pg.Port, cfg.pgBin, strings.Join(cfg.pgSettings, ", "))
		pgConn = pg.ConnString()
		pgE = &wireEngine{label: "postgres", connect: func(context.Context) (string, error) { return pgConn, nil }}
	}

	// Load both servers at once: the load is not what is measured.
	logf("loading %d rows (seed %d)", cfg.rows, cfg.seed)
	var wg sync.WaitGroup
	var loamErr, pgErr error
	if loamE != nil {
		wg.Go(func() { loamErr = loadLoam(ctx, loamE, loam.ConnString(), cfg, logf) })
	}
	if pgE != nil {
		wg.Go(func() { pgErr = loadPostgres(ctx, pgE, pgConn, cfg, logf) })
	}
	wg.Wait()
	if loamErr != nil {
		return loamErr
	}
	if pgErr != nil {
		return pgErr
	}

	var mem loamMemory
	if loamE != nil {
		engines = append(engines, loamE)
		mem.load = resetPeak(loam.PID(), logf)
	}
	if cfg.engines["duckdb"] {
		duck, err := openDuckDB(ctx, cfg.threads)
		if err != nil {
			return err
		}
		engines = append(engines, duck)
		var version, threads string
		if err := duck.db.QueryRowContext(ctx, "SELECT version(), current_setting('threads')").Scan(&version, &threads); err != nil {
			return fmt.Errorf("duckdb: %w", err)
		}
		logf("duckdb %s in process, threads = %s", version, threads)
		dataDir := filepath.Join(loam.DataDir, "warehouse", "public.db", table, "data")
		files, bytes, err := parquetFiles(dataDir)
		if err != nil {
			return err
		}
		logf("duckdb reads %d Parquet files (%.1f MB) under %s", files, float64(bytes)/1e6, dataDir)
		if err := duck.exec(ctx, duckView(dataDir), modelsTable, modelsInsert()); err != nil {
			return err
		}
		// Every file in the directory must be in the table's current
		// snapshot (true while Loam only appends): otherwise DuckDB's
		// answers cannot match and every check would fail.
		var n uint64
		if err := duck.db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			return fmt.Errorf("duckdb: count: %w", err)
		}
		if n != cfg.rows {
			logf("WARNING: duckdb sees %d rows in the Parquet files, %d were loaded: the data directory holds files outside the current snapshot, or misses some", n, cfg.rows)
		}
	}
	if pgE != nil {
		engines = append(engines, pgE)
	}

	var results []queryResult
	for i, q := range queries {
		if len(cfg.only) > 0 && !cfg.only[i+1] {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		results = append(results, runQuery(ctx, cfg, i+1, q, engines, logf))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if loamE != nil && !loam.Exited() {
		mem.queries, _, _ = servers.Memory(loam.PID())
	}
	report(stdout, cfg, results, mem)
	return nil
}

// loamRSS samples the Loam server's resident set while a query runs.
var loamRSS *sqlbench.RSSWatch

// loamMemory is the Loam server's peak resident set (VmHWM) over the load
// and over the queries.
type loamMemory struct{ load, queries int64 }

// resetPeak reads a process's VmHWM and resets it (Linux: writing 5 to
// /proc/<pid>/clear_refs), so that the next reading is the queries' peak
// alone; a kernel that refuses leaves the load's peak in it, as logged.
func resetPeak(pid int, logf func(string, ...any)) int64 {
	peak, _, err := servers.Memory(pid)
	if err != nil {
		logf("loam memory: %v", err)
		return 0
	}
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		logf("loam memory: resetting VmHWM: %v (the queries' peak includes the load's)", err)
	}
	return peak
}

// copyRows COPYs the data set into table over its own connection.
func copyRows(ctx context.Context, connString string, cfg *config) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	tag, err := conn.PgConn().CopyFrom(ctx, gen.NewReader(cfg.seed, 0, cfg.rows, gen.Text), "COPY "+table+" FROM STDIN")
	if err != nil {
		return fmt.Errorf("COPY: %w", err)
	}
	if n := uint64(tag.RowsAffected()); n != cfg.rows {
		return fmt.Errorf("COPY reported %d rows (%q), sent %d", n, tag.String(), cfg.rows)
	}
	return nil
}

// loadLoam creates and fills the table and the models table, then
// CHECKPOINTs, so that every row is in Iceberg data files.
func loadLoam(ctx context.Context, e *wireEngine, connString string, cfg *config, logf func(string, ...any)) error {
	start := time.Now()
	if err := e.exec(ctx, loamDDL); err != nil {
		return err
	}
	if err := copyRows(ctx, connString, cfg); err != nil {
		return fmt.Errorf("loam: %w", err)
	}
	copied := time.Since(start)
	if err := e.exec(ctx, modelsTable, modelsInsert(), "CHECKPOINT"); err != nil {
		return err
	}
	logf("loam: loaded in %s, CHECKPOINT %s", copied.Round(time.Millisecond), (time.Since(start) - copied).Round(time.Millisecond))
	return nil
}

// pgIndexes are the indexes a dashboard's PostgreSQL would have: one
// tenant's calls over a time range, and any time range.
var pgIndexes = []string{
	"CREATE INDEX llm_calls_tenant_ts ON " + table + " (tenant, ts)",
	"CREATE INDEX llm_calls_ts ON " + table + " (ts)",
}

// loadPostgres creates and fills the table, indexes it and VACUUM ANALYZEs
// it (statistics for the planner, and the visibility map that
// autovacuum would have set by the time a dashboard queries).
func loadPostgres(ctx context.Context, e *wireEngine, connString string, cfg *config, logf func(string, ...any)) error {
	start := time.Now()
	if err := e.exec(ctx, gen.CreateTablePostgres(table)); err != nil {
		return err
	}
	if err := copyRows(ctx, connString, cfg); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	copied := time.Since(start)
	// CHECKPOINT last: PostgreSQL's writes of the load are then done, not
	// going on in the background while the other engines are timed.
	stmts := append(slices.Clone(pgIndexes), modelsTable, modelsInsert(), "VACUUM ANALYZE "+table, "VACUUM ANALYZE models", "CHECKPOINT")
	if err := e.exec(ctx, stmts...); err != nil {
		return err
	}
	logf("postgres: loaded in %s, indexes and VACUUM ANALYZE %s", copied.Round(time.Millisecond), (time.Since(start) - copied).Round(time.Millisecond))
	return nil
}

// providers maps gen's models to their providers.
var providers = map[string]string{
	"gpt-4o": "openai", "gpt-4o-mini": "openai", "o3-mini": "openai",
	"claude-3-5-sonnet": "anthropic", "claude-3-5-haiku": "anthropic",
	"gemini-1.5-pro": "google", "gemini-1.5-flash": "google",
	"llama-3.1-70b": "meta",
}

// modelsInsert fills the models table from gen's price list.
func modelsInsert() string {
	var b strings.Builder
	b.WriteString("INSERT INTO models VALUES ")
	for i, m := range gen.Models {
		if i > 0 {
			b.WriteString(", ")
		}
		p := providers[m.Name]
		if p == "" {
			p = "other"
		}
		fmt.Fprintf(&b, "('%s', '%s', %s, %s)", m.Name, p,
			strconv.FormatFloat(m.PromptPrice, 'f', -1, 64), strconv.FormatFloat(m.CompletionPrice, 'f', -1, 64))
	}
	return b.String()
}

// duckView is DuckDB's view of the table: the Parquet files under Loam's
// data directory of the table, read in place. hive_partitioning is off so
// the partition directories (ts_day=…) add no column.
func duckView(dataDir string) string {
	glob := filepath.Join(dataDir, "**", "*.parquet")
	return fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet(['%s'], hive_partitioning = false)", table, strings.ReplaceAll(glob, "'", "''"))
}

// parquetFiles counts the Parquet files under dir and their bytes.
func parquetFiles(dir string) (n int, bytes int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".parquet") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n++
		bytes += info.Size()
		return nil
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("no Parquet files under %s: did CHECKPOINT write the table?", dir)
	}
	return n, bytes, err
}

// engineResult is how one engine did on one query.
type engineResult struct {
	median   time.Duration
	times    []time.Duration
	rows     result
	err      error
	mismatch string // difference from the reference result, if any
	peakRSS  int64  // Loam's highest resident set sampled while the query ran
}

// queryResult is one row of the report.
type queryResult struct {
	num int
	q   query
	by  map[string]*engineResult
	ref string // the engine whose answer the others were compared with
}

// runQuery runs q on every engine: a warm-up whose answer is compared,
// then cfg.runs timed runs.
func runQuery(ctx context.Context, cfg *config, num int, q query, engines []engine, logf func(string, ...any)) queryResult {
	qr := queryResult{num: num, q: q, by: map[string]*engineResult{}}
	for _, e := range engines {
		// The engine before may still be busy (DuckDB's workers, the
		// PostgreSQL processes): the machine's two cores are shared.
		time.Sleep(cfg.settle)
		r := &engineResult{}
		qr.by[e.name()] = r
		text := q.text(e.name())
		once := func() (result, time.Duration, error) {
			cctx, cancel := context.WithTimeout(ctx, cfg.timeout)
			defer cancel()
			start := time.Now()
			res, err := e.run(cctx, text)
			d := time.Since(start)
			if err != nil && cctx.Err() != nil && ctx.Err() == nil {
				err = fmt.Errorf("%w (gave up after %s)", err, cfg.timeout)
			}
			return res, d, err
		}
		var d time.Duration
		if e.name() == "loam" {
			loamRSS.Reset()
		}
		r.rows, d, r.err = timeRuns(cfg, r, once)
		if e.name() == "loam" {
			r.peakRSS, _ = loamRSS.Reset()
		}
		if r.err != nil {
			logf("Q%d %-8s error: %v", num, e.name(), r.err)
			continue
		}
		r.median = median(r.times)
		logf("Q%d %-8s warm-up %s, median %s of %d, %d rows", num, e.name(), d.Round(time.Microsecond), r.median.Round(time.Microsecond), len(r.times), len(r.rows))
	}
	// PostgreSQL's answer is the reference; without one, DuckDB's.
	for _, name := range []string{"postgres", "duckdb", "loam"} {
		if r, ok := qr.by[name]; ok && r.err == nil {
			qr.ref = name
			break
		}
	}
	for name, r := range qr.by {
		if name == qr.ref || r.err != nil {
			continue
		}
		if d := diff(r.rows, qr.by[qr.ref].rows); d != "" {
			r.mismatch = d
			logf("Q%d MISMATCH %s vs %s: %s", num, name, qr.ref, d)
		}
	}
	return qr
}

// timeRuns runs the warm-up, keeping its rows, then cfg.runs timed runs
// into r.times; it returns the warm-up's rows and time, or the first error.
func timeRuns(cfg *config, r *engineResult, once func() (result, time.Duration, error)) (result, time.Duration, error) {
	rows, d, err := once()
	if err != nil {
		return nil, d, err
	}
	for range cfg.runs {
		_, t, err := once()
		if err != nil {
			return rows, d, fmt.Errorf("timed run: %w", err)
		}
		r.times = append(r.times, t)
	}
	return rows, d, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
