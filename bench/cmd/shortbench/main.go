// Command shortbench measures short queries, the kind an OLTP-style
// application sends one at a time: pgbench-style point selects by primary
// key and single-row INSERTs in autocommit, through pgx, on Loam and on a
// throwaway PostgreSQL 15 started in the same run. It reports queries/s
// and latency for each, so that a change in Loam's per-statement cost
// (parsing, planning, building operators, committing) shows as a figure
// next to PostgreSQL's on the same machine.
//
// Run it from the repository root: make bench-short, or
// go run ./bench/cmd/shortbench -duration 3s for a quick look.
package main

import (
	"context"
	"encoding/json"
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

	"github.com/loamdb/loam/bench/internal/servers"
)

type config struct {
	rows             int64
	conns            []int
	workloads        []workload
	targets          map[string]bool
	duration, warmup time.Duration
	seed             uint64
	loamBin, pgBin   string
	jsonPath         string
	keep             bool
}

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
	fs := flag.NewFlagSet("shortbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.String("rows", env("100000", "BENCH_SHORT_ROWS"), "rows of the accounts table (BENCH_SHORT_ROWS)")
	conns := fs.String("conns", env("1,2", "BENCH_SHORT_CONNS"), "connection counts, comma-separated (BENCH_SHORT_CONNS)")
	cases := fs.String("cases", env(workloadNames(), "BENCH_SHORT_CASES"), "cases, comma-separated (BENCH_SHORT_CASES)")
	targets := fs.String("targets", env("loam,postgres", "BENCH_SHORT_TARGETS"), "targets, comma-separated (BENCH_SHORT_TARGETS)")
	duration := fs.String("duration", env("10s", "BENCH_SHORT_DURATION"), "timed length of each case (BENCH_SHORT_DURATION)")
	warmup := fs.String("warmup", env("1s", "BENCH_SHORT_WARMUP"), "untimed run before each case: connections prepared, caches warm (BENCH_SHORT_WARMUP)")
	seed := fs.String("seed", env("1", "BENCH_SEED"), "seed of the random keys (BENCH_SEED)")
	loamBin := fs.String("loam-bin", env("", "BENCH_LOAM_BIN", "LOAM_BIN"), "Loam server binary; empty builds ./cmd/loam (BENCH_LOAM_BIN, LOAM_BIN)")
	pgBin := fs.String("pg-bin", env("/usr/lib/postgresql/15/bin", "BENCH_PG_BIN"), "PostgreSQL binaries directory (BENCH_PG_BIN)")
	jsonPath := fs.String("json", env("", "BENCH_SHORT_JSON"), "also write the results as JSON to this file, - for stdout (BENCH_SHORT_JSON)")
	keep := fs.Bool("keep", env("", "BENCH_KEEP") != "", "keep the temporary directory (BENCH_KEEP=1)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c := &config{loamBin: *loamBin, pgBin: *pgBin, jsonPath: *jsonPath, keep: *keep, targets: map[string]bool{}}
	var err error
	if c.rows, err = strconv.ParseInt(*rows, 10, 64); err != nil || c.rows <= 0 {
		return nil, fmt.Errorf("rows %q: want a positive integer", *rows)
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
	for _, s := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 256 {
			return nil, fmt.Errorf("conns %q: want counts from 1 to 256", *conns)
		}
		c.conns = append(c.conns, n)
	}
	for _, s := range strings.Split(*cases, ",") {
		w, ok := workloadNamed(strings.TrimSpace(s))
		if !ok {
			return nil, fmt.Errorf("case %q: want one of %s", s, workloadNames())
		}
		c.workloads = append(c.workloads, w)
	}
	for _, s := range strings.Split(*targets, ",") {
		s = strings.TrimSpace(s)
		if s != "loam" && s != "postgres" {
			return nil, fmt.Errorf("target %q: want loam or postgres", s)
		}
		c.targets[s] = true
	}
	return c, nil
}

func workloadNamed(name string) (workload, bool) {
	for _, w := range workloads {
		if w.name == name {
			return w, true
		}
	}
	return workload{}, false
}

func workloadNames() string {
	var names []string
	for _, w := range workloads {
		names = append(names, w.name)
	}
	return strings.Join(names, ",")
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(stderr, "shortbench:", err)
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "shortbench:", err)
		return 1
	}
	return 0
}

// target is one database under test.
type target struct {
	name       string
	loam       bool
	connString string
}

func bench(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
	tmp, err := os.MkdirTemp("", "loam-shortbench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	rep := &report{
		Date:     time.Now().UTC().Format(time.RFC3339),
		Commit:   gitCommit(),
		Rows:     cfg.rows,
		Duration: cfg.duration.String(),
		Warmup:   cfg.warmup.String(),
		CPUs:     runtime.NumCPU(),
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
		loam, err := servers.StartLoam(ctx, bin, filepath.Join(tmp, "loam"))
		if err != nil {
			return err
		}
		defer loam.Stop()
		logf("loam serving on %s (pid %d, log %s)", loam.Addr, loam.PID(), loam.Log)
		targets = append(targets, &target{name: "loam", loam: true, connString: loam.ConnString()})
	}
	if cfg.targets["postgres"] {
		pg, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"))
		if err != nil {
			return err
		}
		defer pg.Stop()
		logf("postgres serving on 127.0.0.1:%d (%s)", pg.Port, cfg.pgBin)
		targets = append(targets, &target{name: "postgres", connString: pg.ConnString()})
	}

	for _, t := range targets {
		t0 := time.Now()
		if err := setup(ctx, t, cfg.rows); err != nil {
			return fmt.Errorf("%s: setup: %w", t.name, err)
		}
		logf("%s: %d accounts loaded in %.1fs", t.name, cfg.rows, time.Since(t0).Seconds())
	}

	// Targets alternate within a case rather than running one after the
	// other, so a slow drift of the machine (another process, the page
	// cache, thermal limits) falls on both alike.
	for _, w := range cfg.workloads {
		for _, n := range cfg.conns {
			for _, t := range targets {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r := result{Case: w.name, Conns: n, Target: t.name}
				s, err := measure(ctx, t.connString, w, n, cfg.rows, cfg.seed, cfg.warmup, cfg.duration)
				if err != nil {
					r.Error = err.Error()
					logf("%s %s/%d: %v", t.name, w.name, n, err)
				} else {
					r.Summary = s
					logf("%-8s %-16s conns=%d  %9.0f q/s  mean %7.1f µs  p50 %7.1f µs  p99 %8.1f µs",
						t.name, w.name, n, s.QPS, s.MeanUS, s.P50US, s.P99US)
				}
				rep.Results = append(rep.Results, r)
			}
		}
	}

	rep.print(stdout, cfg.workloads)
	if cfg.jsonPath != "" {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if cfg.jsonPath == "-" {
			_, err = stdout.Write(b)
		} else {
			err = os.WriteFile(cfg.jsonPath, b, 0o644)
		}
		if err != nil {
			return fmt.Errorf("json: %w", err)
		}
	}
	return nil
}

// gitCommit names the commit of the working tree the benchmark runs from,
// with "+dirty" when it has changes: the figures are only comparable
// before and after a change when the report says what was measured.
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
