// Command ingestbench compares Loam's ingest throughput with PostgreSQL's.
//
// It builds and starts a Loam server and a throwaway PostgreSQL cluster on
// loopback ports, loads the same synthetic LLM-call rows (bench/gen) into a
// fresh table of each with COPY text, COPY binary and multi-row INSERT, over
// 1 and over 8 connections, checks the row counts, and prints rows/s, MB/s
// and the Loam/PostgreSQL ratio per case. A separate case loads a large
// COPY into a fresh Loam server and reports the server's peak RSS.
//
// Run it from the repository root (make bench); see bench/README.md for the
// knobs and what each figure means.
package main

import (
	"context"
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

	"github.com/loamdb/loam/bench/gen"
	"github.com/loamdb/loam/bench/internal/servers"
)

// target is a database under test.
type target struct {
	name        string
	loam        bool
	connString  string
	createTable func(name string) string
}

// config is the harness's settings: flags, defaulting to BENCH_* variables.
type config struct {
	rows, rssRows uint64
	seed          uint64
	conns         []int
	methods       []method
	rssMethod     method
	targets       map[string]bool
	loamBin       string
	pgBin         string
	keep          bool
	timeout       time.Duration
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

func parseConfig(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("ingestbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.String("rows", env("BENCH_ROWS", "1000000"), "rows per load case (BENCH_ROWS)")
	rssRows := fs.String("rss-rows", env("BENCH_RSS_ROWS", "10000000"), "rows of the Loam peak-RSS case; 0 skips it (BENCH_RSS_ROWS)")
	rssMethod := fs.String("rss-method", env("BENCH_RSS_METHOD", "copy-text"), "load method of the peak-RSS case (BENCH_RSS_METHOD)")
	seed := fs.String("seed", env("BENCH_SEED", "1"), "data set seed (BENCH_SEED)")
	conns := fs.String("conns", env("BENCH_CONNS", "1,8"), "connection counts, comma-separated (BENCH_CONNS)")
	methodsFlag := fs.String("methods", env("BENCH_METHODS", "copy-text,copy-binary,insert"), "load methods, comma-separated (BENCH_METHODS)")
	targets := fs.String("targets", env("BENCH_TARGETS", "loam,postgres"), "targets, comma-separated (BENCH_TARGETS)")
	loamBin := fs.String("loam-bin", env("BENCH_LOAM_BIN", ""), "Loam server binary; empty builds ./cmd/loam (BENCH_LOAM_BIN)")
	pgBin := fs.String("pg-bin", env("BENCH_PG_BIN", "/usr/lib/postgresql/15/bin"), "PostgreSQL binaries directory (BENCH_PG_BIN)")
	keep := fs.Bool("keep", env("BENCH_KEEP", "") != "", "keep the temporary directory (BENCH_KEEP=1)")
	timeout := fs.Duration("timeout", 30*time.Minute, "limit of each load case")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c := &config{loamBin: *loamBin, pgBin: *pgBin, keep: *keep, timeout: *timeout, targets: map[string]bool{}}
	var err error
	if c.rows, err = strconv.ParseUint(*rows, 10, 64); err != nil || c.rows == 0 {
		return nil, fmt.Errorf("rows %q: want a positive integer", *rows)
	}
	if c.rssRows, err = strconv.ParseUint(*rssRows, 10, 64); err != nil {
		return nil, fmt.Errorf("rss-rows %q: want an integer", *rssRows)
	}
	if c.seed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
		return nil, fmt.Errorf("seed %q: want an integer", *seed)
	}
	for _, s := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 64 {
			return nil, fmt.Errorf("conns %q: want counts from 1 to 64", *conns)
		}
		c.conns = append(c.conns, n)
	}
	for _, s := range strings.Split(*methodsFlag, ",") {
		m, err := methodNamed(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		c.methods = append(c.methods, m)
	}
	if c.rssMethod, err = methodNamed(*rssMethod); err != nil {
		return nil, err
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

func methodNamed(name string) (method, error) {
	var names []string
	for _, m := range methods {
		if m.name == name {
			return m, nil
		}
		names = append(names, m.name)
	}
	return method{}, fmt.Errorf("method %q: want one of %s", name, strings.Join(names, ", "))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "ingestbench:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "ingestbench:", err)
		return 1
	}
	return 0
}

// caseResult is one row of the report.
type caseResult struct {
	method string
	conns  int
	rows   uint64
	by     map[string]loadResult // by target name
}

func bench(ctx context.Context, cfg *config, stdout, stderr io.Writer) (err error) {
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
	tmp, err := os.MkdirTemp("", "loam-ingestbench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	var targets []*target
	var loam *servers.Loam
	bin := cfg.loamBin
	if cfg.targets["loam"] {
		if bin == "" {
			logf("building ./cmd/loam")
			if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
				return err
			}
		}
		if loam, err = servers.StartLoam(ctx, bin, filepath.Join(tmp, "loam")); err != nil {
			return err
		}
		defer func() { loam.Stop() }()
		logf("loam serving on %s (pid %d, log %s)", loam.Addr, loam.PID(), loam.Log)
		targets = append(targets, &target{name: "loam", loam: true, connString: loam.ConnString(), createTable: gen.CreateTableLoam})
	}
	if cfg.targets["postgres"] {
		pg, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"))
		if err != nil {
			return err
		}
		defer pg.Stop()
		logf("postgres serving on 127.0.0.1:%d (%s)", pg.Port, cfg.pgBin)
		targets = append(targets, &target{name: "postgres", connString: pg.ConnString(), createTable: gen.CreateTablePostgres})
	}

	logf("data set: seed %d, %d rows", cfg.seed, cfg.rows)
	textBytes := gen.TextBytes(cfg.seed, 0, cfg.rows)

	var (
		results  []caseResult
		loamPeak int64 // of the Loam servers the cases ran on
		restarts int
	)
	for _, m := range cfg.methods {
		for _, n := range cfg.conns {
			cr := caseResult{method: m.name, conns: n, rows: cfg.rows, by: map[string]loadResult{}}
			for _, t := range targets {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				table := fmt.Sprintf("llm_calls_%s_c%d", strings.ReplaceAll(m.name, "-", "_"), n)
				cctx, cancel := context.WithTimeout(ctx, cfg.timeout)
				r := runLoad(cctx, t, m, table, cfg.seed, cfg.rows, n, nil)
				cancel()
				cr.by[t.name] = r
				if r.err != nil {
					logf("%-8s %-11s x%d: %s: %v", t.name, m.name, n, describe(r.err), r.err)
					if t.loam && !unsupported(r.err) && ctx.Err() == nil {
						// A failed load may leave the server busy or wedged:
						// later cases get a fresh one.
						if peak, _, err := servers.Memory(loam.PID()); err == nil {
							loamPeak = max(loamPeak, peak)
						}
						loam.Stop()
						restarts++
						if loam, err = servers.StartLoam(ctx, bin, filepath.Join(tmp, fmt.Sprintf("loam-%d", restarts))); err != nil {
							return err
						}
						t.connString = loam.ConnString()
						logf("loam restarted after the failure: %s (pid %d, log %s)", loam.Addr, loam.PID(), loam.Log)
					}
				} else {
					logf("%-8s %-11s x%d: %s, %.0f rows/s", t.name, m.name, n, r.elapsed.Round(time.Millisecond), float64(cfg.rows)/r.elapsed.Seconds())
				}
			}
			results = append(results, cr)
		}
	}

	if loam != nil {
		peak, _, err := servers.Memory(loam.PID())
		if err != nil {
			logf("loam memory: %v", err)
		}
		loamPeak = max(loamPeak, peak)
	}

	var rss *rssResult
	if cfg.targets["loam"] && cfg.rssRows > 0 && ctx.Err() == nil {
		rss = rssCase(ctx, cfg, bin, filepath.Join(tmp, "loam-rss"), logf)
	}

	if ctx.Err() != nil {
		return ctx.Err()
	}
	report(stdout, cfg, results, textBytes, loamPeak, rss)
	return nil
}

// rssResult is the outcome of the peak-RSS case.
type rssResult struct {
	rows       uint64
	load       loadResult
	baseline   int64 // VmRSS before the load
	peakLoad   int64 // VmHWM after the load
	peakCkpt   int64 // VmHWM after the CHECKPOINT
	memErr     error
	textBytes  int64
	methodName string
}

// rssCase loads cfg.rssRows rows into a fresh Loam server and reads its
// peak RSS after the load and after a CHECKPOINT.
func rssCase(ctx context.Context, cfg *config, bin, dir string, logf func(string, ...any)) *rssResult {
	res := &rssResult{rows: cfg.rssRows, methodName: cfg.rssMethod.name}
	s, err := servers.StartLoam(ctx, bin, dir)
	if err != nil {
		res.load.err = err
		return res
	}
	defer s.Stop()
	_, res.baseline, res.memErr = servers.Memory(s.PID())
	logf("peak-RSS case: %d rows by %s into a fresh loam (pid %d)", cfg.rssRows, cfg.rssMethod.name, s.PID())
	t := &target{name: "loam", loam: true, connString: s.ConnString(), createTable: gen.CreateTableLoam}

	cctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	res.load = runLoad(cctx, t, cfg.rssMethod, "llm_calls_rss", cfg.seed, cfg.rssRows, 1, func() {
		if res.memErr == nil {
			res.peakLoad, _, res.memErr = servers.Memory(s.PID())
		}
	})
	if res.load.err != nil {
		logf("peak-RSS case: %s: %v", describe(res.load.err), res.load.err)
		return res
	}
	if res.memErr == nil {
		res.peakCkpt, _, res.memErr = servers.Memory(s.PID())
	}
	res.textBytes = gen.TextBytes(cfg.seed, 0, cfg.rssRows)
	logf("peak-RSS case: %s, peak RSS %.0f MiB after the load, %.0f MiB after CHECKPOINT", res.load.elapsed.Round(time.Millisecond), mib(res.peakLoad), mib(res.peakCkpt))
	return res
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
