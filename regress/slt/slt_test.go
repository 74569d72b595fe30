package slt

// TestSQLLogic runs the sqllogictest corpus select1–5.test (in
// ../shared/conformance/sqllogictest/ beside the module root; skipped, with
// a subtest saying so, where there is none, unless CI is set) and every
// testdata/*.slt against Loam, as engine postgresql over the simple query
// protocol, each file on a server of its own (a new temporary data
// directory, loopback ports picked at random): testdata first, then
// select1 to select5, as many at a time as there are CPUs.
//
// Record failures do not fail the test yet: Loam does not support all of
// what the corpus needs. The test fails when the runner breaks (a file does
// not parse, the server crashes or stops answering) or when a file passes
// fewer records than baseline.txt says it did (a ratchet). Records that ran
// out of time (10s a record, 3m a file, 3m30s for all files) are failures
// but are not held against the baseline, since how many do depends on the
// machine. It prints a line per file, the most common failure causes, and
//
//	sqllogictest: N passed, N failed, N skipped (…)
//
// (go test shows a passing package's output only with -v or when run in
// the package's directory.)
//
//	go test -v ./regress/slt/                      build cmd/loam, run every file
//	go test -v ./regress/slt/ -run 'TestSQLLogic/files/basics$'   one file
//	LOAM_BIN=/abs/path/loam go test ./regress/slt/    use that binary
//	go test ./regress/slt/ -run TestSQLLogic -update-baseline   rewrite baseline.txt
//	SLT_UPDATE_BASELINE=1 go test ./regress/slt/      the same
//	SLT_VERBOSE=1 go test -v ./regress/slt/           log the first 20 failures
//	                                                  of each file, not 2
//	SLT_POSTGRES=1 go test ./regress/slt/ -run Postgres
//	    dev only: run the same files on a throwaway PostgreSQL 15
//	    (meta/pgtest), where every record must pass, and check that the
//	    runner fails what it should

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/loamdb/loam/storage/s3test"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
)

var updateBaseline = flag.Bool("update-baseline", false, "rewrite regress/slt/baseline.txt with the passed counts of this run")

const (
	startTimeout  = 30 * time.Second // for the server to accept connections
	stopTimeout   = 10 * time.Second // from SIGTERM to SIGKILL
	recordTimeout = 10 * time.Second
	fileTimeout   = 3 * time.Minute
	// runBudget bounds the runs of all files together (they run in
	// parallel, as many at a time as there are CPUs): a file still
	// running then stops, its records left counted as out of time.
	runBudget    = 3*time.Minute + 30*time.Second
	baselineFile = "baseline.txt"
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	pgtest.Stop() // only started by TestPostgres
	os.Exit(code)
}

// file is one script to run.
type file struct {
	name string // base name, the key in baseline.txt
	path string
}

// scripts lists testdata/*.slt and the corpus files. A clone without the
// corpus beside it (a user's clone: it lives in the project's shared
// directory, not in the repository) runs testdata alone and skips the
// corpus with a subtest saying so; under CI (CI set) its absence is an
// error, after which testdata still runs. corpusSkipped is true when it was left out.
func scripts(t *testing.T) (files []file, corpusSkipped bool) {
	root := moduleRoot(t)
	corpus := filepath.Join(root, "..", "shared", "conformance", "sqllogictest")
	own, err := filepath.Glob(filepath.Join("testdata", "*.slt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range own {
		files = append(files, file{filepath.Base(p), p})
	}
	if _, err := os.Stat(corpus); errors.Is(err, fs.ErrNotExist) {
		msg := fmt.Sprintf("sqllogictest corpus not found at %s (it lives in the project's shared/conformance/sqllogictest beside the clone, not in the repository): running testdata/*.slt only", corpus)
		if os.Getenv("CI") != "" {
			// Still run testdata: its failures are worth seeing too.
			t.Errorf("%s; CI is set, where the corpus must run", msg)
		} else {
			t.Run("corpus", func(t *testing.T) { t.Skip(msg) })
		}
		corpusSkipped = true
	} else {
		for i := 1; i <= 5; i++ {
			p := filepath.Join(corpus, fmt.Sprintf("select%d.test", i))
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("sqllogictest corpus file missing: %v (the corpus lives in shared/conformance/sqllogictest beside the clone)", err)
			}
			files = append(files, file{filepath.Base(p), p})
		}
	}
	// SLT_FILES=cte.slt,window.slt runs only those files (while working on
	// them; the baseline check then covers only those).
	if only := os.Getenv("SLT_FILES"); only != "" {
		keep := map[string]bool{}
		for _, n := range strings.Split(only, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		var some []file
		for _, f := range files {
			if keep[f.name] {
				some = append(some, f)
			}
		}
		files = some
	}
	return files, corpusSkipped
}

func moduleRoot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("go env GOMOD: not in a module")
	}
	return filepath.Dir(gomod)
}

func TestSQLLogic(t *testing.T) {
	files, corpusSkipped := scripts(t)
	if corpusSkipped && updating() {
		t.Fatalf("not updating %s without the sqllogictest corpus: its lines for select1–5 would be lost", baselineFile)
	}
	bin := loamBinary(t)
	baseline, err := readBaseline(baselineFile)
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu      sync.Mutex
		results = map[string]*Result{}
	)
	start := time.Now()
	deadline := start.Add(runBudget)
	// Files run in the order scripts lists them, as many at a time as
	// there are CPUs (SLT_PARALLEL overrides): the cheap ones first, so
	// that those the budget cuts short are the slow ones.
	workers := runtime.GOMAXPROCS(0)
	if n, err := strconv.Atoi(os.Getenv("SLT_PARALLEL")); err == nil && n > 0 {
		workers = n
	}
	queue := make(chan file, len(files))
	for _, f := range files {
		queue <- f
	}
	close(queue)
	t.Run("files", func(t *testing.T) {
		var wg sync.WaitGroup
		for range min(workers, len(files)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for f := range queue {
					t.Run(strings.TrimSuffix(f.name, filepath.Ext(f.name)), func(t *testing.T) {
						records, err := ParseFile(f.path)
						if err != nil {
							t.Fatalf("parse: %v", err)
						}
						srv := startServer(t, bin)
						connString := fmt.Sprintf("postgres://loam@127.0.0.1:%s/loam?sslmode=disable", srv.port)
						res := runScript(t, f.name, records, connString, deadline)
						if exited := srv.exited(); exited != "" {
							t.Errorf("%s: the server exited during the run%s", f.name, exited)
						}
						mu.Lock()
						results[f.name] = res
						mu.Unlock()
					})
				}
			}()
		}
		wg.Wait()
	})
	elapsed := time.Since(start)

	var tot Result
	causes := map[string]int{}
	for _, f := range files {
		res := results[f.name]
		if res == nil {
			continue // the subtest failed before it ran the file
		}
		tot.Records += res.Records
		tot.Passed += res.Passed
		tot.Failed += res.Failed
		tot.Skipped += res.Skipped
		for c, n := range res.Causes {
			causes[c] += n
		}
		fmt.Printf("sqllogictest: %s: %d passed, %d failed, %d skipped of %d records in %.1fs\n",
			f.name, res.Passed, res.Failed, res.Skipped, res.Records, res.Elapsed.Seconds())
		if res.TimedOut > 0 {
			fmt.Printf("sqllogictest: %s: %d of the failed records ran out of time (%v a record, %v a file, %v in all)\n",
				f.name, res.TimedOut, recordTimeout, fileTimeout, runBudget)
		}
		// Records that ran out of time do not count against the baseline:
		// how many do depends on the machine. Wrong results and errors do.
		if want, ok := baseline[f.name]; ok && res.Passed+res.TimedOut < want && !updating() {
			t.Errorf("%s: %d records passed (and %d ran out of time); baseline.txt says %d passed before: a regression (or rerun with -update-baseline if it is intended)",
				f.name, res.Passed, res.TimedOut, want)
		}
	}
	if len(causes) > 0 {
		fmt.Printf("sqllogictest: most common failure causes:\n%s", topCauses(causes, 10))
	}
	fmt.Printf("sqllogictest: %d passed, %d failed, %d skipped (%d records, %d files, %.1fs)\n",
		tot.Passed, tot.Failed, tot.Skipped, tot.Records, len(results), elapsed.Seconds())

	if updating() {
		if t.Failed() || len(results) != len(files) {
			t.Fatalf("not updating %s: the run did not complete", baselineFile)
		}
		if err := writeBaseline(baselineFile, files, results); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote regress/slt/%s", baselineFile)
	}
}

func updating() bool { return *updateBaseline || os.Getenv("SLT_UPDATE_BASELINE") == "1" }

// runScript runs records on a fresh database at connString, logs what the
// run came to and fails t when the runner could not finish.
func runScript(t *testing.T, name string, records []Record, connString string, deadline time.Time) *Result {
	cfg, err := ConnConfig(connString)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{
		RecordTimeout: recordTimeout,
		MaxFailures:   20,
		Connect:       func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, cfg.Copy()) },
	}
	if d := time.Now().Add(fileTimeout); d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	res := r.Run(ctx, name, records)

	t.Logf("%s: %d passed, %d failed, %d skipped of %d records in %.1fs (statements %.1fs, queries %.1fs)",
		name, res.Passed, res.Failed, res.Skipped, res.Records, res.Elapsed.Seconds(),
		res.StatementTime.Seconds(), res.QueryTime.Seconds())
	if len(res.Slow) > 0 {
		var b strings.Builder
		for _, s := range res.Slow {
			fmt.Fprintf(&b, " %d (%.1fs)", s.Line, s.Elapsed.Seconds())
		}
		t.Logf("%s: records that took %v or longer, by line:%s", name, SlowRecord, b.String())
	}
	show := 2
	if os.Getenv("SLT_VERBOSE") == "1" {
		show = len(res.Failures)
	}
	for i, f := range res.Failures {
		if i == show {
			break
		}
		t.Logf("%s:%s", name, f)
	}
	if len(res.Causes) > 0 {
		t.Logf("%s: failure causes:\n%s", name, topCauses(res.Causes, 5))
	}
	if res.Aborted != nil {
		t.Errorf("%s: the run was aborted: %v", name, res.Aborted)
	}
	return res
}

// topCauses formats the n most frequent causes, one per line.
func topCauses(causes map[string]int, n int) string {
	type kv struct {
		cause string
		n     int
	}
	var all []kv
	for c, k := range causes {
		all = append(all, kv{c, k})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].cause < all[j].cause
	})
	var b strings.Builder
	for i, c := range all {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "  %6d  %s\n", c.n, c.cause)
	}
	return b.String()
}

// readBaseline reads lines "NAME PASSED"; # starts a comment. A missing
// file is an empty baseline.
func readBaseline(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]int{}, nil
	} else if err != nil {
		return nil, err
	}
	m := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want `FILE PASSED`, have %q", path, n, line)
		}
		k, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		m[f[0]] = k
	}
	return m, nil
}

func writeBaseline(path string, files []file, results map[string]*Result) error {
	var b strings.Builder
	b.WriteString("# Records of each sqllogictest file that pass on Loam: TestSQLLogic fails when a\n")
	b.WriteString("# file passes fewer (records that ran out of time excepted). Rewrite with\n")
	b.WriteString("# `go test ./regress/slt/ -run TestSQLLogic -update-baseline`.\n")
	for _, f := range files {
		res := results[f.name]
		fmt.Fprintf(&b, "%s %d\n", f.name, res.Passed)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// loamBinary returns $LOAM_BIN, or builds cmd/loam once into a temporary
// directory.
func loamBinary(t *testing.T) string {
	if bin := os.Getenv("LOAM_BIN"); bin != "" {
		if !filepath.IsAbs(bin) {
			t.Fatalf("LOAM_BIN=%s must be an absolute path (go test runs in regress/slt/)", bin)
		}
		return bin
	}
	bin := filepath.Join(t.TempDir(), "loam")
	build := exec.Command("go", "build", "-o", bin, "./cmd/loam")
	build.Dir = moduleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/loam: %v\n%s", err, out)
	}
	return bin
}

type server struct {
	port    string
	logPath string
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, once done is closed
}

// startServer starts `loam serve` on a new data directory and free loopback
// ports, waits until it accepts connections, and stops it when the test
// ends.
func startServer(t *testing.T, bin string) *server {
	// freePorts' ports are free when it returns, but another test process
	// may bind one before the server does: try again on new ports.
	for attempt := 1; ; attempt++ {
		s, lost := tryStartServer(t, bin, attempt == 3)
		if !lost {
			return s
		}
		t.Logf("loam serve lost its port to another process; retrying on new ports%s", s.logTail())
	}
}

// tryStartServer is one attempt of startServer; it reports lost when the
// server exited because its address was taken, unless last is set.
func tryStartServer(t *testing.T, bin string, last bool) (_ *server, lost bool) {
	ports := freePorts(t, 2)
	dir := t.TempDir()
	s := &server{port: ports[0], logPath: filepath.Join(dir, "server.log"), done: make(chan struct{})}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })

	addr := net.JoinHostPort("127.0.0.1", s.port)
	cmd := exec.Command(bin, append([]string{"serve",
		"--data-dir", filepath.Join(dir, "data"),
		"--listen", addr,
		"--http", net.JoinHostPort("127.0.0.1", ports[1]),
		"--log-level", "warn"}, s3test.ServeArgs(t)...)...)
	cmd.Env = environWithout(func(k string) bool { return strings.HasPrefix(k, "LOAM_") })
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s serve: %v", bin, err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t, cmd.Process) })

	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return s, false
		}
		select {
		case <-s.done:
			if !last && strings.Contains(s.logTail(), "address already in use") {
				return s, true
			}
			t.Fatalf("loam serve exited before accepting connections on %s: %v%s", addr, s.err, s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("loam serve did not accept connections on %s within %v%s", addr, startTimeout, s.logTail())
		}
	}
}

// stop sends SIGTERM, and SIGKILL if the server has not exited 10s later.
func (s *server) stop(t *testing.T, p *os.Process) {
	select {
	case <-s.done:
		return // exited() has reported it
	default:
	}
	p.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		p.Kill()
		<-s.done
		t.Errorf("loam serve was still running %v after SIGTERM; killed it%s", stopTimeout, s.logTail())
	}
}

// exited is "" while the server runs, else its exit status and log tail.
func (s *server) exited() string {
	select {
	case <-s.done:
		return fmt.Sprintf(": %v%s", s.err, s.logTail())
	default:
		return ""
	}
}

func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	const max = 4000
	if len(b) > max {
		b = append([]byte("..."), b[len(b)-max:]...)
	}
	return fmt.Sprintf("\n--- server log ---\n%s", bytes.TrimRight(b, "\n"))
}

func environWithout(drop func(name string) bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop(k) {
			env = append(env, kv)
		}
	}
	return env
}

// freePorts returns n distinct loopback TCP ports that were free a moment ago.
func freePorts(t *testing.T, n int) []string {
	var ports []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		_, port, _ := net.SplitHostPort(l.Addr().String())
		ports = append(ports, port)
	}
	return ports
}

// TestPostgres runs the same files on a throwaway PostgreSQL 15, a new
// database per file, where every record must pass: it checks the runner
// and the expected results of testdata/*.slt. Dev only (SLT_POSTGRES=1);
// the runner itself needs no PostgreSQL.
func TestPostgres(t *testing.T) {
	if os.Getenv("SLT_POSTGRES") != "1" {
		t.Skip("set SLT_POSTGRES=1 to run the files on a throwaway PostgreSQL (meta/pgtest)")
	}
	files, _ := scripts(t)
	for _, f := range files {
		t.Run(strings.TrimSuffix(f.name, filepath.Ext(f.name)), func(t *testing.T) {
			records, err := ParseFile(f.path)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			res := runScript(t, f.name, records, pgtest.Database(t), time.Now().Add(fileTimeout))
			fmt.Printf("postgresql: %s: %d passed, %d failed, %d skipped of %d records in %.1fs\n",
				f.name, res.Passed, res.Failed, res.Skipped, res.Records, res.Elapsed.Seconds())
			for _, fl := range res.Failures {
				t.Errorf("%s:%s", f.name, fl)
			}
		})
	}
}
