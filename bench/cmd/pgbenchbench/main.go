// Command pgbenchbench runs PostgreSQL 15's own pgbench, its built-in
// TPC-B-like script, against Loam and a throwaway PostgreSQL 15 started in
// the same run, and reports transactions per second side by side: for
// each scale, `pgbench -i -s N` on both, then `pgbench -c 8 -j 2 -T d -M
// mode` for each query mode, the two servers alternating so that a drift
// of the machine falls on both alike. Each run must finish with no failed
// transaction, and pgbench_history must then hold exactly the
// transactions processed (pgbench's opening vacuum empties it).
//
// Run it from the repository root: make bench-pgbench, or
// go run ./bench/cmd/pgbenchbench -duration 10s for a quick look.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/loamdb/loam/bench/internal/servers"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pgbenchbench:", err)
		os.Exit(1)
	}
}

type config struct {
	scales         []int
	modes          []string
	clients, jobs  int
	duration       time.Duration
	loamBin, pgBin string
	out            string
}

func env(def, name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func parse(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("pgbenchbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scales := fs.String("scales", env("1,10", "BENCH_PGBENCH_SCALES"), "pgbench scale factors, comma-separated (BENCH_PGBENCH_SCALES)")
	modes := fs.String("modes", "simple,prepared", "pgbench query modes (-M), comma-separated")
	clients := fs.Int("clients", 8, "pgbench -c")
	jobs := fs.Int("jobs", 2, "pgbench -j")
	dur := fs.Duration("duration", 30*time.Second, "pgbench -T of each run")
	loamBin := fs.String("loam-bin", "", "loam binary (default: build ./cmd/loam)")
	pgBin := fs.String("pg-bin", env("/usr/lib/postgresql/15/bin", "BENCH_PG_BIN"), "PostgreSQL binaries directory, pgbench's too (BENCH_PG_BIN)")
	out := fs.String("out", "", "also write the report to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	c := &config{modes: strings.Split(*modes, ","), clients: *clients, jobs: *jobs, duration: *dur,
		loamBin: *loamBin, pgBin: *pgBin, out: *out}
	for _, s := range strings.Split(*scales, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad scale %q", s)
		}
		c.scales = append(c.scales, n)
	}
	return c, nil
}

type target struct {
	name string
	conn string // libpq connection string
}

// result is one pgbench run.
type result struct {
	scale          int
	mode, target   string
	tps, latencyMS float64
	done, failed   int
	initSeconds    float64
	historyAgrees  bool
	historyRows    int64
	err            string
}

var (
	tpsRE       = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	processedRE = regexp.MustCompile(`number of transactions actually processed: (\d+)`)
	failedRE    = regexp.MustCompile(`number of failed transactions: (\d+)`)
	latencyRE   = regexp.MustCompile(`latency average = ([0-9.]+) ms`)
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parse(args, stderr)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
	pgbench := filepath.Join(cfg.pgBin, "pgbench")
	if _, err := os.Stat(pgbench); err != nil {
		return fmt.Errorf("pgbench: %w", err)
	}
	tmp, err := os.MkdirTemp("", "loam-pgbenchbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := cfg.loamBin
	if bin == "" {
		logf("building ./cmd/loam")
		if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
			return err
		}
	}
	loam, err := servers.StartLoam(ctx, bin, filepath.Join(tmp, "loam"))
	if err != nil {
		return err
	}
	defer loam.Stop()
	pg, err := servers.StartPostgres(ctx, cfg.pgBin, filepath.Join(tmp, "pg"))
	if err != nil {
		return err
	}
	defer pg.Stop()
	targets := []target{{"loam", loam.ConnString()}, {"postgres", pg.ConnString()}}

	var results []result
	for _, scale := range cfg.scales {
		inits := map[string]float64{}
		for _, t := range targets {
			t0 := time.Now()
			if out, err := pgbenchRun(ctx, pgbench, t.conn, "-i", "-q", "-s", strconv.Itoa(scale)); err != nil {
				return fmt.Errorf("%s: pgbench -i -s %d: %w\n%s", t.name, scale, err, out)
			}
			inits[t.name] = time.Since(t0).Seconds()
			logf("%s: pgbench -i -s %d in %.1fs", t.name, scale, inits[t.name])
		}
		for _, mode := range cfg.modes {
			for _, t := range targets {
				r := result{scale: scale, mode: mode, target: t.name, initSeconds: inits[t.name]}
				out, err := pgbenchRun(ctx, pgbench, t.conn, "-c", strconv.Itoa(cfg.clients), "-j", strconv.Itoa(cfg.jobs),
					"-T", strconv.Itoa(int(cfg.duration.Seconds())), "-M", mode)
				if err != nil {
					r.err = fmt.Sprintf("%v: %s", err, lastLine(out))
				}
				r.tps = floatOf(tpsRE, out)
				r.latencyMS = floatOf(latencyRE, out)
				r.done = int(floatOf(processedRE, out))
				r.failed = int(floatOf(failedRE, out))
				if n, err := historyRows(ctx, t.conn); err == nil {
					r.historyRows = n
					r.historyAgrees = n == int64(r.done)
				}
				logf("%-8s s=%d -M %-8s %8.1f tps  latency %7.1f ms  done %d failed %d  %s", t.name, scale, mode, r.tps, r.latencyMS, r.done, r.failed, r.err)
				results = append(results, r)
			}
		}
	}
	report := render(cfg, args, results)
	fmt.Fprint(stdout, report)
	if cfg.out != "" {
		return os.WriteFile(cfg.out, []byte(report), 0o644)
	}
	return nil
}

func pgbenchRun(ctx context.Context, bin, conn string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, append(args, conn)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func floatOf(re *regexp.Regexp, out string) float64 {
	m := re.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func historyRows(ctx context.Context, conn string) (int64, error) {
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	var n int64
	err = c.QueryRow(ctx, "SELECT count(*) FROM pgbench_history").Scan(&n)
	return n, err
}

func render(cfg *config, args []string, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pgbench (PostgreSQL 15's, built-in TPC-B-like script) on Loam and PostgreSQL 15\n")
	fmt.Fprintf(&b, "date %s, commit %s, %d CPUs\n", time.Now().UTC().Format(time.RFC3339), gitCommit(), runtime.NumCPU())
	fmt.Fprintf(&b, "command: go run ./bench/cmd/pgbenchbench %s\n", strings.Join(args, " "))
	fmt.Fprintf(&b, "each run: pgbench -c %d -j %d -T %d -M <mode>, after pgbench -i -s <scale>\n\n",
		cfg.clients, cfg.jobs, int(cfg.duration.Seconds()))
	fmt.Fprintf(&b, "%-5s %-9s %-9s %10s %12s %8s %7s %9s %8s\n", "scale", "mode", "server", "tps", "latency ms", "done", "failed", "history", "init s")
	for _, r := range rs {
		hist := "ok"
		if !r.historyAgrees {
			hist = fmt.Sprintf("%d!", r.historyRows)
		}
		fmt.Fprintf(&b, "%-5d %-9s %-9s %10.1f %12.1f %8d %7d %9s %8.1f\n", r.scale, r.mode, r.target, r.tps, r.latencyMS, r.done, r.failed, hist, r.initSeconds)
		if r.err != "" {
			fmt.Fprintf(&b, "      error: %s\n", r.err)
		}
	}
	b.WriteString("\nhistory: ok when pgbench_history holds exactly the transactions processed.\n")
	return b.String()
}

func gitCommit() string {
	root, err := servers.RepoRoot()
	if err != nil {
		return "unknown"
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
