// Command upkeepbench measures whether table upkeep keeps a table healthy
// under a steady trickle of writes: it starts the real server with the
// link committing every second, has an application insert single-row
// transactions at a fixed rate into a day(ts)-partitioned table, and
// reports every interval the data files of the current snapshot (per
// partition, read with iceberg-go as an outside engine would), the bytes
// of the table's metadata/ directory, and the time of a full-scan
// aggregate (best of 3). At the end it compares the last interval with
// the first.
//
// Run it from the repository root: make bench-upkeep (30 minutes), or
// go run ./bench/cmd/upkeepbench -duration 3m for a quick look.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/bench/internal/servers"
	_ "modernc.org/sqlite"
)

type config struct {
	duration, every         time.Duration
	rate                    int
	linkInterval, compactIv time.Duration
	loamBin                 string
	keep                    bool
	snapshotRetention       string
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

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fl := flag.NewFlagSet("upkeepbench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var c config
	dur, _ := time.ParseDuration(env("UPKEEP_DURATION", "3m"))
	fl.DurationVar(&c.duration, "duration", dur, "how long the application inserts (UPKEEP_DURATION)")
	fl.DurationVar(&c.every, "every", time.Minute, "how often the figures are taken")
	fl.IntVar(&c.rate, "rate", 50, "single-row INSERT transactions a second")
	fl.DurationVar(&c.linkInterval, "link-interval", time.Second, "the server's --link-interval")
	fl.DurationVar(&c.compactIv, "compact-interval", 30*time.Second, "the server's --compact-interval")
	fl.StringVar(&c.snapshotRetention, "snapshot-retention", "10 minutes", "the table's WITH (snapshot_retention = …); empty: the default")
	fl.StringVar(&c.loamBin, "loam-bin", os.Getenv("LOAM_BIN"), "a built loam binary (default: build ./cmd/loam)")
	fl.BoolVar(&c.keep, "keep", false, "keep the temporary directory")
	if err := fl.Parse(args); err != nil {
		return c, err
	}
	if c.duration <= 0 || c.every <= 0 || c.rate <= 0 {
		return c, fmt.Errorf("-duration, -every and -rate must be positive")
	}
	return c, nil
}

// sample is one interval's figures.
type sample struct {
	at        time.Duration
	inserted  int64
	files     map[string]int // data files of the current snapshot, by partition
	metaBytes int64
	scan      time.Duration // best of 3
	count     int64
	manifests int // manifests the current snapshot lists
	// The most files, manifests and metadata bytes seen since the
	// sample before.
	peakFiles, peakManifests int
	peakMeta                 int64
}

func (s sample) totalFiles() int {
	n := 0
	for _, f := range s.files {
		n += f
	}
	return n
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, cfg, stdout); err != nil {
		fmt.Fprintln(stderr, "upkeepbench:", err)
		return 1
	}
	return 0
}

func bench(ctx context.Context, cfg config, out io.Writer) error {
	tmp, err := os.MkdirTemp("", "loam-upkeepbench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		fmt.Fprintln(out, "keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := cfg.loamBin
	if bin == "" {
		if bin, err = servers.BuildLoam(ctx, tmp); err != nil {
			return err
		}
	}
	srv, err := servers.StartLoamArgs(ctx, bin, filepath.Join(tmp, "loam"),
		"--link-interval", cfg.linkInterval.String(), "--compact-interval", cfg.compactIv.String())
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Fprintf(out, "upkeepbench: %d single-row INSERTs/s for %v; --link-interval %v --compact-interval %v; snapshot_retention %q; figures every %v\n",
		cfg.rate, cfg.duration, cfg.linkInterval, cfg.compactIv, cfg.snapshotRetention, cfg.every)

	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	create := `CREATE TABLE t (id bigint NOT NULL, ts timestamptz NOT NULL, x bigint) PARTITIONED BY (day(ts))`
	if cfg.snapshotRetention != "" {
		create += fmt.Sprintf(" WITH (snapshot_retention = '%s')", cfg.snapshotRetention)
	}
	if _, err := conn.Exec(ctx, create); err != nil {
		// A server without snapshot expiry knows no snapshot_retention.
		if cfg.snapshotRetention == "" || !strings.Contains(err.Error(), "22023") {
			return err
		}
		fmt.Fprintf(out, "snapshot_retention refused (%v): the table keeps every snapshot\n", err)
		create, _, _ = strings.Cut(create, " WITH")
		if _, err := conn.Exec(ctx, create); err != nil {
			return err
		}
	}

	var inserted atomic.Int64
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	ierr := make(chan error, 1)
	go func() { ierr <- insert(ictx, srv.ConnString(), cfg.rate, &inserted) }()

	fmt.Fprintf(out, "%8s %10s %7s %9s %-24s %13s %14s %14s %12s\n", "minute", "rows", "files", "max files", "files by partition", "max manifests", "metadata bytes", "max meta bytes", "scan best/3")
	var samples []sample
	start := time.Now()
	tick := time.NewTicker(cfg.every)
	defer tick.Stop()
	// Between samples the file count and metadata size are peeked at
	// often: compaction every interval makes both saw-toothed, and a
	// sample may fall just after it.
	peek := time.NewTicker(min(cfg.every, 5*time.Second))
	defer peek.Stop()
	var peakFiles, peakManifests int
	var peakMeta int64
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ierr:
			return fmt.Errorf("inserting: %w", err)
		case <-peek.C:
			files, manifests, err := snapshotFiles(ctx, srv.DataDir)
			if err != nil {
				return err
			}
			peakManifests = max(peakManifests, manifests)
			meta, err := dirBytes(srv.DataDir)
			if err != nil {
				return err
			}
			peakFiles, peakMeta = max(peakFiles, sample{files: files}.totalFiles()), max(peakMeta, meta)
			continue
		case <-tick.C:
		}
		el := time.Since(start)
		done = el >= cfg.duration-time.Second
		s, err := measure(ctx, conn, srv.DataDir)
		if err != nil {
			return err
		}
		s.at, s.inserted = el, inserted.Load()
		s.peakFiles, s.peakMeta = max(peakFiles, s.totalFiles()), max(peakMeta, s.metaBytes)
		s.peakManifests = max(peakManifests, s.manifests)
		peakFiles, peakMeta, peakManifests = 0, 0, 0
		samples = append(samples, s)
		fmt.Fprintf(out, "%8.1f %10d %7d %9d %-24s %13d %14d %14d %12v\n", el.Minutes(), s.inserted, s.totalFiles(), s.peakFiles,
			byPartition(s.files), s.peakManifests, s.metaBytes, s.peakMeta, s.scan.Round(time.Microsecond))
	}
	cancel()
	if err := <-ierr; err != nil && ctx.Err() == nil && err != context.Canceled {
		return fmt.Errorf("inserting: %w", err)
	}
	first, last := samples[0], samples[len(samples)-1]
	maxFiles, maxManifests, maxMeta := 0, 0, int64(0)
	for _, s := range samples {
		maxFiles, maxManifests, maxMeta = max(maxFiles, s.peakFiles), max(maxManifests, s.peakManifests), max(maxMeta, s.peakMeta)
	}
	fmt.Fprintf(out, "\nrows inserted: %d (%.1f/s)\n", last.inserted, float64(last.inserted)/last.at.Seconds())
	fmt.Fprintf(out, "data files in the current snapshot: first %d, last %d, max %d\n", first.totalFiles(), last.totalFiles(), maxFiles)
	fmt.Fprintf(out, "manifests of the current snapshot: max %d\n", maxManifests)
	fmt.Fprintf(out, "metadata/ bytes: first %d, last %d, max %d\n", first.metaBytes, last.metaBytes, maxMeta)
	fmt.Fprintf(out, "full-scan aggregate: first %v, last %v, last/first %.2f\n",
		first.scan.Round(time.Microsecond), last.scan.Round(time.Microsecond), float64(last.scan)/float64(first.scan))
	return nil
}

// insert runs rate single-row INSERT transactions a second over a few
// connections (one would cap the rate at 1/latency) until ctx ends.
func insert(ctx context.Context, connString string, rate int, n *atomic.Int64) error {
	const conns = 4
	ids := make(chan int64, rate)
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i := 0; i < conns; i++ {
		c, err := pgx.Connect(ctx, connString)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close(context.Background())
			for id := range ids {
				if _, err := c.Exec(ctx, "INSERT INTO t VALUES ($1, now(), $2)", id, id%1000); err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				n.Add(1)
			}
		}()
	}
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var err error
loop:
	for id := int64(0); ; id++ {
		select {
		case <-ctx.Done():
			break loop
		case err = <-errs:
			break loop
		case <-tick.C:
		}
		select {
		case ids <- id:
		default: // the connections are behind: this tick's row is skipped, and the rate shows it
		}
	}
	close(ids)
	wg.Wait()
	if err != nil {
		return err
	}
	return ctx.Err()
}

// measure takes one interval's figures.
func measure(ctx context.Context, conn *pgx.Conn, dataDir string) (sample, error) {
	var s sample
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		var sum *int64
		if err := conn.QueryRow(ctx, "SELECT count(*), sum(x) FROM t").Scan(&s.count, &sum); err != nil {
			return s, fmt.Errorf("aggregate: %w", err)
		}
		if d := time.Since(t0); i == 0 || d < s.scan {
			s.scan = d
		}
	}
	files, manifests, err := snapshotFiles(ctx, dataDir)
	if err != nil {
		return s, err
	}
	s.files, s.manifests = files, manifests
	s.metaBytes, err = dirBytes(dataDir)
	return s, err
}

// dirBytes is the size of the table's metadata/ directory.
func dirBytes(dataDir string) (int64, error) {
	var n int64
	root := filepath.Join(dataDir, "warehouse", "public.db", "t", "metadata")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted under the walk by a commit
			}
			return err
		}
		if !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

// snapshotFiles counts the current snapshot's data files by partition, as
// iceberg-go reading the catalog sees them. A read racing a commit that
// deleted an old metadata file is tried again.
func snapshotFiles(ctx context.Context, dataDir string) (m map[string]int, manifests int, err error) {
	for attempt := 0; attempt < 3; attempt++ {
		if m, manifests, err = snapshotFilesOnce(ctx, dataDir); err == nil {
			return m, manifests, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, 0, err
}

func snapshotFilesOnce(ctx context.Context, dataDir string) (map[string]int, int, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "meta.db"))
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	cat, err := sqlcat.NewCatalog("loam", db, sqlcat.SQLite, iceberg.Properties{"warehouse": "file://" + filepath.Join(dataDir, "warehouse")})
	if err != nil {
		return nil, 0, err
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "t"})
	if err != nil {
		return nil, 0, err
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, 0, err
	}
	manifests := 0
	if snap := tbl.CurrentSnapshot(); snap != nil {
		fs, err := tbl.FS(ctx)
		if err != nil {
			return nil, 0, err
		}
		mfs, err := snap.Manifests(fs)
		if err != nil {
			return nil, 0, err
		}
		manifests = len(mfs)
	}
	out := map[string]int{}
	for _, t := range tasks {
		var vals []string
		for _, v := range t.File.Partition() {
			if d, ok := v.(iceberg.Date); ok { // day(ts): days since the epoch
				vals = append(vals, time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02"))
				continue
			}
			vals = append(vals, fmt.Sprint(v))
		}
		out[strings.Join(vals, ",")]++
	}
	return out, manifests, nil
}

func byPartition(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s:%d", k, m[k])
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}
