// Command updatebench measures row-level changes on Loam against a
// throwaway PostgreSQL 15 started in the same run:
//
//   - upsert: single-row INSERT … ON CONFLICT (id) DO UPDATE on a keyed
//     table, random keys over a preloaded key range, over 1 and 8
//     connections in a closed loop: upserts/s and latency;
//   - update: one UPDATE … WHERE statement changing 1% of a table's rows
//     (every row scanned): seconds, and ns per row scanned and per row
//     updated;
//   - visible: the time from an upsert's acknowledgement until the next
//     query on another connection returns it, and, for Loam, until an
//     outside reader (iceberg-go's own scan through the catalog, no Loam
//     code) sees it, which should be within one link interval.
//
// Run it from the repository root: make bench-update, or
// go run ./bench/cmd/updatebench -duration 3s -rows 200000 for a quick look.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loamdb/loam/bench/internal/servers"
)

type config struct {
	keys             int64 // preloaded keys of the upsert table
	conns            []int
	duration, warmup time.Duration
	rows             int64 // rows of the update table
	runs             int
	samples          int
	linkInterval     time.Duration
	cases            map[string]bool
	targets          map[string]bool
	seed             uint64
	loamBin, pgBin   string
	pgSettings       []string
	out              string
	timeout          time.Duration
	keep             bool
}

// caseNames are the benchmark's parts, in the order they run.
var caseNames = []string{"upsert", "update", "visible"}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// env returns the first of the variables that is set, else def.
func env(def string, names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return def
}

func parseConfig(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("updatebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keys := fs.String("keys", env("100000", "BENCH_UPSERT_KEYS"), "keys preloaded into the upsert table; upserts pick among them (BENCH_UPSERT_KEYS)")
	conns := fs.String("conns", env("1,8", "BENCH_UPSERT_CONNS"), "connection counts of the upsert case, comma-separated (BENCH_UPSERT_CONNS)")
	duration := fs.String("duration", env("10s", "BENCH_UPSERT_DURATION"), "timed length of each upsert case (BENCH_UPSERT_DURATION)")
	warmup := fs.String("warmup", env("1s", "BENCH_UPSERT_WARMUP"), "untimed run before each upsert case (BENCH_UPSERT_WARMUP)")
	rows := fs.String("rows", env("10000000", "BENCH_UPDATE_ROWS"), "rows of the update table; 1% of them are updated a run (BENCH_UPDATE_ROWS)")
	runs := fs.String("runs", env("3", "BENCH_UPDATE_RUNS"), "UPDATE runs, each on another 1% of the rows; the median is reported (BENCH_UPDATE_RUNS)")
	samples := fs.String("samples", env("20", "BENCH_VISIBLE_SAMPLES"), "upserts whose visibility is timed (BENCH_VISIBLE_SAMPLES)")
	link := fs.String("link-interval", env("1s", "BENCH_LINK_INTERVAL"), "Loam's --link-interval for the run (BENCH_LINK_INTERVAL)")
	cases := fs.String("cases", env(strings.Join(caseNames, ","), "BENCH_UPDATE_CASES"), "cases to run, comma-separated (BENCH_UPDATE_CASES)")
	targets := fs.String("targets", env("loam,postgres", "BENCH_UPDATE_TARGETS"), "targets, comma-separated (BENCH_UPDATE_TARGETS)")
	seed := fs.String("seed", env("1", "BENCH_SEED"), "seed of the random keys (BENCH_SEED)")
	loamBin := fs.String("loam-bin", env("", "BENCH_LOAM_BIN", "LOAM_BIN"), "Loam server binary; empty builds ./cmd/loam (BENCH_LOAM_BIN, LOAM_BIN)")
	pgBin := fs.String("pg-bin", env("/usr/lib/postgresql/15/bin", "BENCH_PG_BIN"), "PostgreSQL binaries directory (BENCH_PG_BIN)")
	pgSettings := fs.String("pg-settings", env("shared_buffers=2GB,work_mem=64MB,effective_cache_size=8GB", "BENCH_PG_SETTINGS"), "PostgreSQL settings, name=value,… (BENCH_PG_SETTINGS)")
	out := fs.String("out", env("bench/results/update-latest.txt", "BENCH_UPDATE_OUT"), "also write the report here (relative to the repository root) and its JSON beside it with .json; empty: stdout only (BENCH_UPDATE_OUT)")
	timeout := fs.Duration("timeout", 30*time.Minute, "limit of each case on each target")
	keep := fs.Bool("keep", env("", "BENCH_KEEP") != "", "keep the temporary directory (BENCH_KEEP=1)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c := &config{loamBin: *loamBin, pgBin: *pgBin, out: *out, timeout: *timeout, keep: *keep,
		cases: map[string]bool{}, targets: map[string]bool{}}
	var err error
	if c.keys, err = strconv.ParseInt(*keys, 10, 64); err != nil || c.keys <= 0 {
		return nil, fmt.Errorf("keys %q: want a positive integer", *keys)
	}
	if c.rows, err = strconv.ParseInt(*rows, 10, 64); err != nil || c.rows < 100 {
		return nil, fmt.Errorf("rows %q: want an integer of at least 100", *rows)
	}
	if c.runs, err = strconv.Atoi(*runs); err != nil || c.runs < 1 || c.runs > 99 {
		return nil, fmt.Errorf("runs %q: want 1 to 99", *runs)
	}
	if c.samples, err = strconv.Atoi(*samples); err != nil || c.samples < 1 {
		return nil, fmt.Errorf("samples %q: want a positive integer", *samples)
	}
	if c.seed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
		return nil, fmt.Errorf("seed %q: want an integer", *seed)
	}
	if c.duration, err = time.ParseDuration(*duration); err != nil || c.duration <= 0 {
		return nil, fmt.Errorf("duration %q: want a positive duration", *duration)
	}
	if c.warmup, err = time.ParseDuration(*warmup); err != nil || c.warmup < 0 {
		return nil, fmt.Errorf("warmup %q: want a duration", *warmup)
	}
	if c.linkInterval, err = time.ParseDuration(*link); err != nil || c.linkInterval <= 0 {
		return nil, fmt.Errorf("link-interval %q: want a positive duration", *link)
	}
	for _, s := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 256 {
			return nil, fmt.Errorf("conns %q: want counts from 1 to 256", *conns)
		}
		c.conns = append(c.conns, n)
	}
	for _, s := range strings.Split(*cases, ",") {
		s = strings.TrimSpace(s)
		if !contains(caseNames, s) {
			return nil, fmt.Errorf("case %q: want one of %s", s, strings.Join(caseNames, ","))
		}
		c.cases[s] = true
	}
	for _, s := range strings.Split(*targets, ",") {
		s = strings.TrimSpace(s)
		if s != "loam" && s != "postgres" {
			return nil, fmt.Errorf("target %q: want loam or postgres", s)
		}
		c.targets[s] = true
	}
	for _, kv := range strings.Split(*pgSettings, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			c.pgSettings = append(c.pgSettings, kv)
		}
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(stderr, "updatebench:", err)
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "updatebench:", err)
		return 1
	}
	return 0
}

// target is one database under test.
type target struct {
	name       string
	connString string
	loam       *servers.Loam // nil for PostgreSQL
	// down is why the target's remaining cases are skipped (its server
	// died), or "".
	down string
}

func (t *target) isLoam() bool { return t.loam != nil }

func bench(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
	tmp, err := os.MkdirTemp("", "loam-updatebench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	rep := &report{
		Date:         time.Now().UTC().Format(time.RFC3339),
		Commit:       gitCommit(),
		CPUs:         runtime.NumCPU(),
		Keys:         cfg.keys,
		Duration:     cfg.duration.String(),
		Warmup:       cfg.warmup.String(),
		Rows:         cfg.rows,
		Runs:         cfg.runs,
		Samples:      cfg.samples,
		LinkInterval: cfg.linkInterval.String(),
		PGSettings:   strings.Join(cfg.pgSettings, ","),
		LoadBefore:   loadAverage(),
	}
	var targets []*target
	if cfg.targets["loam"] {
		bin := cfg.loamBin
		if bin == "" {
			logf("building ./cmd/loam")
			if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
				return err
			}
		} else {
			rep.LoamBin = bin
		}
		loam, err := servers.StartLoamArgs(ctx, bin, filepath.Join(tmp, "loam"), "--link-interval", cfg.linkInterval.String())
		if err != nil {
			return err
		}
		defer loam.Stop()
		logf("loam serving on %s (pid %d, --link-interval %v, log %s)", loam.Addr, loam.PID(), cfg.linkInterval, loam.Log)
		targets = append(targets, &target{name: "loam", connString: loam.ConnString(), loam: loam})
	}
	if cfg.targets["postgres"] {
		pg, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"), cfg.pgSettings...)
		if err != nil {
			return err
		}
		defer pg.Stop()
		logf("postgres serving on 127.0.0.1:%d (%s)", pg.Port, cfg.pgBin)
		targets = append(targets, &target{name: "postgres", connString: pg.ConnString()})
	}

	// each runs one case on one target within the case time limit, and
	// notes a Loam server that died under it so that the cases after it
	// are skipped rather than failed one by one.
	each := func(t *target, what string, f func(ctx context.Context) error) error {
		if t.down != "" {
			return fmt.Errorf("skipped: %s", t.down)
		}
		cctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
		err := f(cctx)
		if err != nil {
			logf("%s %s: %v", t.name, what, err)
			if t.isLoam() && t.loam.Exited() {
				t.down = fmt.Sprintf("the Loam server exited during %s (log: %s)", what, t.loam.Log)
			}
		}
		return err
	}

	if cfg.cases["upsert"] || cfg.cases["visible"] {
		for _, t := range targets {
			t0 := time.Now()
			err := each(t, "setup kv", func(ctx context.Context) error { return setupKV(ctx, t, cfg.keys) })
			rep.setupError(t.name, "kv", err)
			if err == nil {
				logf("%s: kv: %d keys loaded in %.1fs", t.name, cfg.keys, time.Since(t0).Seconds())
			}
		}
	}
	if cfg.cases["upsert"] {
		// Targets alternate within a case, so a drift of the machine falls
		// on both alike.
		for _, n := range cfg.conns {
			for _, t := range targets {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r := upsertResult{Conns: n, Target: t.name}
				err := each(t, fmt.Sprintf("upsert/%d", n), func(ctx context.Context) error {
					if e := rep.setupFailed(t.name, "kv"); e != "" {
						return errors.New(e)
					}
					s, err := measureUpserts(ctx, t.connString, n, cfg.keys, cfg.seed, cfg.warmup, cfg.duration)
					r.Summary = s
					return err
				})
				r.Error = errText(err)
				if err == nil {
					logf("%-8s upsert conns=%d  %9.0f upserts/s  mean %7.1f µs  p50 %7.1f µs  p99 %8.1f µs",
						t.name, n, r.QPS, r.MeanUS, r.P50US, r.P99US)
				}
				rep.Upserts = append(rep.Upserts, r)
			}
		}
	}
	if cfg.cases["update"] {
		for _, t := range targets {
			t0 := time.Now()
			err := each(t, "setup events", func(ctx context.Context) error { return setupEvents(ctx, t, cfg.rows) })
			rep.setupError(t.name, "events", err)
			if err == nil {
				logf("%s: events: %d rows loaded in %.1fs", t.name, cfg.rows, time.Since(t0).Seconds())
			}
		}
		for run := 1; run <= cfg.runs; run++ {
			for _, t := range targets {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r := updateRun{Run: run, Target: t.name}
				err := each(t, fmt.Sprintf("update run %d", run), func(ctx context.Context) error {
					if e := rep.setupFailed(t.name, "events"); e != "" {
						return errors.New(e)
					}
					return bulkUpdate(ctx, t, cfg.rows, run, &r)
				})
				r.Error = errText(err)
				if err == nil {
					logf("%-8s update run %d: %d rows in %.3fs (%.0f ns/row scanned); %s %.3fs",
						t.name, run, r.Updated, r.Seconds, r.Seconds*1e9/float64(cfg.rows), r.AfterWhat, r.AfterSeconds)
				}
				rep.Updates = append(rep.Updates, r)
			}
		}
	}
	if cfg.cases["visible"] {
		for _, t := range targets {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			v := visibleResult{Target: t.name}
			err := each(t, "visible", func(ctx context.Context) error {
				if e := rep.setupFailed(t.name, "kv"); e != "" {
					return errors.New(e)
				}
				return measureVisible(ctx, t, cfg, &v, logf)
			})
			v.Error = errText(err)
			rep.Visible = append(rep.Visible, v)
		}
	}

	rep.LoadAfter = loadAverage()
	var text strings.Builder
	rep.print(&text)
	if _, err := io.WriteString(stdout, text.String()); err != nil {
		return err
	}
	if cfg.out != "" {
		if err := rep.write(cfg.out, text.String()); err != nil {
			return err
		}
		logf("report written to %s", cfg.out)
	}
	return nil
}

// errText is how a failed case shows: "unsupported" for SQLSTATE 0A000
// (Loam does not do it yet), else the error.
func errText(err error) string {
	if err == nil {
		return ""
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "0A000" {
		return "unsupported: " + err.Error()
	}
	return err.Error()
}

// write saves the report text at path (relative to the repository root
// unless absolute) and the report as JSON beside it.
func (r *report) write(path, text string) error {
	if !filepath.IsAbs(path) {
		root, err := servers.RepoRoot()
		if err != nil {
			return err
		}
		path = filepath.Join(root, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(path, filepath.Ext(path))+".json", append(b, '\n'), 0o644)
}

// gitCommit names the commit of the working tree the benchmark runs from,
// with "+dirty" when it has changes.
func gitCommit() string {
	root, err := servers.RepoRoot()
	if err != nil {
		return "unknown"
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		commit += "+dirty"
	}
	return commit
}
