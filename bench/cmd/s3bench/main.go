// Command s3bench measures Loam with its warehouse on S3 next to file://,
// in one run on one machine: it starts one SeaweedFS S3 server on
// loopback (storage/s3test, bin/weed) and two Loam servers, one with
// --warehouse file://… and one with --warehouse s3://…, and on each
// measures
//
//   - COPY ingest: the same synthetic llm_calls rows (bench/gen), COPY
//     text over one connection, rendered in memory beforehand;
//   - CHECKPOINT: the link writes every row from the log into Iceberg
//     (the servers run with --link-interval 1h, so all of it happens
//     here: Parquet files, manifests, metadata, statistics);
//   - dashboard queries (those of bench/query), cold (the first run after
//     a restart: the column cache and the loaded-table cache are empty;
//     on file:// the OS page cache is not) and warm (the median of the
//     runs after).
//
// It prints a table with both and the s3/file ratio and writes it to
// -out. Run it from the repository root: make bench-s3.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"

	"github.com/loamdb/loam/bench/gen"
	"github.com/loamdb/loam/bench/internal/servers"
	"github.com/loamdb/loam/storage/s3test"
)

func main() {
	rows := flag.Uint64("rows", 1_000_000, "rows to ingest")
	seed := flag.Uint64("seed", 1, "data set seed")
	warmRuns := flag.Int("warm", 5, "warm runs of each query (the median is reported)")
	rounds := flag.Int("rounds", 2, "rounds of both warehouses; the best of each figure is reported")
	loamBin := flag.String("loam-bin", "", "Loam server binary; empty builds ./cmd/loam")
	out := flag.String("out", "", "also write the report to this file")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var buf bytes.Buffer
	if err := run(ctx, *rows, *seed, *warmRuns, *rounds, *loamBin, *keep, &buf); err != nil {
		fmt.Fprintln(os.Stderr, "s3bench:", err)
		os.Exit(1)
	}
	os.Stdout.Write(buf.Bytes())
	if *out != "" {
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "s3bench:", err)
			os.Exit(1)
		}
	}
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

// query is a dashboard query, as bench/query has it.
type query struct{ name, sql string }

var (
	oneDay  = "ts >= '2026-10-15 00:00:00+00' AND ts < '2026-10-16 00:00:00+00'"
	oneWeek = "ts >= '2026-10-20 00:00:00+00' AND ts < '2026-10-27 00:00:00+00'"
	queries = []query{
		{"count", `SELECT count(*) FROM llm_calls`},
		{"cost+tokens by model", `SELECT model, sum(cost_usd), sum(prompt_tokens + completion_tokens) FROM llm_calls GROUP BY model ORDER BY model`},
		{"hourly p95 latency, 1 day", `SELECT date_trunc('hour', ts), percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) FROM llm_calls WHERE ` + oneDay + ` GROUP BY 1 ORDER BY 1`},
		{"top 10 tenants by cost, 1 week", `SELECT tenant, sum(cost_usd) AS cost FROM llm_calls WHERE ` + oneWeek + ` GROUP BY tenant ORDER BY cost DESC, tenant LIMIT 10`},
		{"last 100 calls of a tenant, 1 day", `SELECT ts, model, cost_usd, latency_ms FROM llm_calls WHERE tenant = '` + gen.TenantName(19) + `' AND ` + oneDay + ` ORDER BY ts DESC, model, latency_ms LIMIT 100`},
		{"daily calls+cost, busiest tenant", `SELECT date_trunc('day', ts), count(*), sum(cost_usd) FROM llm_calls WHERE tenant = '` + gen.TenantName(0) + `' GROUP BY 1 ORDER BY 1`},
	}
)

// figures are one warehouse's measurements.
type figures struct {
	copy, checkpoint time.Duration
	cold, warm       []time.Duration
	results          [][][]any // each query's rows, to check both agree
	warehouseBytes   int64
}

func run(ctx context.Context, rows, seed uint64, warmRuns, rounds int, bin string, keep bool, w io.Writer) error {
	tmp, err := os.MkdirTemp("", "loam-s3bench-")
	if err != nil {
		return err
	}
	if keep {
		logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if bin == "" {
		logf("building ./cmd/loam")
		if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
			return err
		}
	}
	if !filepath.IsAbs(bin) {
		if bin, err = filepath.Abs(bin); err != nil {
			return err
		}
	}
	s3srv, err := s3test.Run(filepath.Join(tmp, "weed"))
	if err != nil {
		return err
	}
	defer s3srv.Stop()
	const bucket = "bench"
	if _, err := s3srv.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("create bucket: %w", err)
	}
	logf("SeaweedFS S3 on %s", s3srv.Endpoint)

	logf("rendering %d rows (seed %d)", rows, seed)
	data, err := io.ReadAll(gen.NewReader(seed, 0, rows, gen.Text))
	if err != nil {
		return err
	}

	// Rounds alternate the two warehouses, each on fresh servers, and the
	// best round of each counts: the machine is shared, and a burst of
	// other work lands on one side only.
	best := [2]*figures{}
	for round := range rounds {
		for i, name := range []string{"file", "s3"} {
			dir := filepath.Join(tmp, fmt.Sprintf("%s-%d", name, round))
			prefix := fmt.Sprintf("s3://%s/%d/warehouse", bucket, round)
			args := []string{"--link-interval", "1h"}
			if name == "s3" {
				args = append(args, "--warehouse", prefix, "--s3-endpoint", s3srv.Endpoint)
			}
			f, err := measure(ctx, bin, dir, args, data, rows, warmRuns, name)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if name == "file" {
				f.warehouseBytes = dirBytes(filepath.Join(dir, "data", "warehouse"))
			} else {
				f.warehouseBytes = bucketBytes(ctx, s3srv.Client(), bucket, fmt.Sprintf("%d/", round))
			}
			for q := range queries {
				if ref := best[0]; ref != nil && !same(ref.results[q], f.results[q]) {
					return fmt.Errorf("query %q answers differently on file://:\n%v\nand on %s:\n%v", queries[q].name, ref.results[q], name, f.results[q])
				}
			}
			best[i] = f.min(best[i])
		}
	}
	figs := best[:]
	report(w, rows, int64(len(data)), warmRuns, rounds, figs[0], figs[1])
	return nil
}

// min is f with each figure the better of f's and g's (g may be nil).
func (f *figures) min(g *figures) *figures {
	if g == nil {
		return f
	}
	out := *f
	out.copy, out.checkpoint = min(f.copy, g.copy), min(f.checkpoint, g.checkpoint)
	out.cold, out.warm = make([]time.Duration, len(f.cold)), make([]time.Duration, len(f.warm))
	for i := range f.cold {
		out.cold[i], out.warm[i] = min(f.cold[i], g.cold[i]), min(f.warm[i], g.warm[i])
	}
	return &out
}

// measure runs the ingest, the CHECKPOINT and the queries on a Loam
// server with the given flags.
func measure(ctx context.Context, bin, dir string, args []string, data []byte, rows uint64, warmRuns int, name string) (*figures, error) {
	f := &figures{}
	srv, err := servers.StartLoamArgs(ctx, bin, dir, args...)
	if err != nil {
		return nil, err
	}
	defer func() { srv.Stop() }()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, gen.CreateTableLoam("llm_calls")); err != nil {
		return nil, err
	}
	start := time.Now()
	tag, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY llm_calls FROM STDIN")
	if err != nil {
		return nil, fmt.Errorf("COPY: %w", err)
	}
	f.copy = time.Since(start)
	if uint64(tag.RowsAffected()) != rows {
		return nil, fmt.Errorf("COPY %s, want %d rows", tag, rows)
	}
	logf("%-4s COPY %d rows: %v (%.0f rows/s)", name, rows, f.copy.Round(time.Millisecond), float64(rows)/f.copy.Seconds())
	start = time.Now()
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return nil, fmt.Errorf("CHECKPOINT: %w", err)
	}
	f.checkpoint = time.Since(start)
	logf("%-4s CHECKPOINT: %v", name, f.checkpoint.Round(time.Millisecond))
	conn.Close(ctx)

	// A restart: the queries' first runs find every cache of the server
	// empty.
	srv.Stop()
	if srv, err = servers.StartLoamArgs(ctx, bin, dir, args...); err != nil {
		return nil, err
	}
	if conn, err = pgx.Connect(ctx, srv.ConnString()); err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	for _, q := range queries {
		var runs []time.Duration
		var res [][]any
		for i := 0; i <= warmRuns; i++ {
			d, r, err := timeQuery(ctx, conn, q.sql)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", q.name, err)
			}
			runs = append(runs, d)
			res = r
		}
		f.cold = append(f.cold, runs[0])
		warm := slices.Clone(runs[1:])
		slices.Sort(warm)
		f.warm = append(f.warm, warm[len(warm)/2])
		f.results = append(f.results, res)
		logf("%-4s %-34s cold %v, warm %v", name, q.name, runs[0].Round(time.Microsecond), warm[len(warm)/2].Round(time.Microsecond))
	}
	return f, nil
}

// timeQuery runs sql, reading every row, and returns the rows.
func timeQuery(ctx context.Context, conn *pgx.Conn, sql string) (time.Duration, [][]any, error) {
	start := time.Now()
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return 0, nil, err
	}
	var out [][]any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return 0, nil, err
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	return time.Since(start), out, nil
}

// same says whether two answers agree, floating-point values to a
// relative 1e-9: sums depend on the order rows meet in.
func same(a, b [][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			x, okx := a[i][j].(float64)
			y, oky := b[i][j].(float64)
			if okx && oky {
				if math.Abs(x-y) > 1e-9*max(math.Abs(x), math.Abs(y)) {
					return false
				}
			} else if fmt.Sprint(a[i][j]) != fmt.Sprint(b[i][j]) {
				return false
			}
		}
	}
	return true
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func bucketBytes(ctx context.Context, c *s3.Client, bucket, prefix string) int64 {
	var n int64
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return -1
		}
		for _, o := range page.Contents {
			n += aws.ToInt64(o.Size)
		}
	}
	return n
}

func report(w io.Writer, rows uint64, textBytes int64, warmRuns, rounds int, file, s3f *figures) {
	fmt.Fprintf(w, "Loam, warehouse on file:// and on S3 (SeaweedFS on loopback), one run\n")
	fmt.Fprintf(w, "%d llm_calls rows (bench/gen, %.0f MB as COPY text), COPY text over 1 connection;\n", rows, float64(textBytes)/1e6)
	fmt.Fprintf(w, "--link-interval 1h: CHECKPOINT writes all rows from the log to Iceberg.\n")
	fmt.Fprintf(w, "Queries: cold = first run after a server restart (Loam's caches empty; OS page cache not dropped),\n")
	fmt.Fprintf(w, "warm = median of the %d runs after. Each figure is the best of %d rounds (fresh servers,\n", warmRuns, rounds)
	fmt.Fprintf(w, "file:// and s3:// alternating): the machine is shared.\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "measure\tfile://\ts3://\ts3/file\t")
	fmt.Fprintf(tw, "COPY rows/s\t%.0f\t%.0f\t%.2f\t\n", float64(rows)/file.copy.Seconds(), float64(rows)/s3f.copy.Seconds(), file.copy.Seconds()/s3f.copy.Seconds())
	dur := func(label string, a, b time.Duration) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t\n", label, ms(a), ms(b), b.Seconds()/a.Seconds())
	}
	dur("COPY time", file.copy, s3f.copy)
	dur("CHECKPOINT time", file.checkpoint, s3f.checkpoint)
	fmt.Fprintf(tw, "warehouse MB\t%.1f\t%.1f\t\t\n", float64(file.warehouseBytes)/1e6, float64(s3f.warehouseBytes)/1e6)
	for i, q := range queries {
		dur(q.name+" (cold)", file.cold[i], s3f.cold[i])
		dur(q.name+" (warm)", file.warm[i], s3f.warm[i])
	}
	tw.Flush()
	fmt.Fprintf(w, "\n(COPY rows/s: ratio s3/file of rates; times: ratio s3/file of times, >1 is slower on S3.)\n")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
