// Package crash runs the Loam server as a child process, kills it while
// clients write, and checks that every acknowledged statement survives
// exactly once and that every statement is all-or-nothing, both through
// Loam and through iceberg-go reading the warehouse on its own. With
// LOAM_TEST_WAREHOUSE=s3 the warehouse is on a real S3 server
// (storage/s3test); TestS3Outage always is, and kills that server too.
package crash

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"github.com/loamdb/loam/meta/pgtest"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"
)

// loamBin is the server binary every test starts: $LOAM_BIN, or one built
// by TestMain from the module root.
var loamBin string

func TestMain(m *testing.M) {
	code := runMain(m)
	pgtest.Stop()
	os.Exit(code)
}

func runMain(m *testing.M) int {
	if b := os.Getenv("LOAM_BIN"); b != "" {
		loamBin = b
		return m.Run()
	}
	tmp, err := os.MkdirTemp("", "loam-crash-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash: go env GOMOD:", err)
		return 1
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		fmt.Fprintln(os.Stderr, "crash: not inside a module")
		return 1
	}
	loamBin = filepath.Join(tmp, "loam")
	build := exec.Command("go", "build", "-o", loamBin, "./cmd/loam")
	build.Dir = filepath.Dir(gomod)
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "crash: building the server: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// server is one run of `loam serve` as a child process.
type server struct {
	t       *testing.T
	dataDir string
	logPath string
	addr    string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd.Wait returned
	waitErr error
}

// freePort returns a loopback port nobody listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer starts `loam serve` on dataDir and waits until its wire port
// accepts connections. The server is killed when the test ends.
func startServer(t *testing.T, dataDir, logDir string, linkInterval time.Duration, extra ...string) *server {
	t.Helper()
	if !slices.Contains(extra, "--warehouse") {
		// The data dir's own warehouse: on S3 a prefix of its own, the
		// same across restarts; on file:// the server's default.
		if w := warehouseOf(t, dataDir); w.s3 != nil {
			extra = append(slices.Clone(extra), w.serveArgs()...)
		}
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := tryStart(t, dataDir, logDir, linkInterval, extra...)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("server did not start: %v", lastErr)
	return nil
}

var logSeq struct {
	sync.Mutex
	n int
}

func tryStart(t *testing.T, dataDir, logDir string, linkInterval time.Duration, extra ...string) (*server, error) {
	logSeq.Lock()
	logSeq.n++
	n := logSeq.n
	logSeq.Unlock()
	s := &server{t: t, dataDir: dataDir, logPath: filepath.Join(logDir, fmt.Sprintf("loam-%03d.log", n)), exited: make(chan struct{})}
	s.addr = freePort(t)
	httpAddr := freePort(t)
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--data-dir", dataDir, "--listen", s.addr, "--http", httpAddr,
		"--link-interval", linkInterval.String()}, extra...)
	s.cmd = exec.Command(loamBin, args...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		logf.Close()
		close(s.exited)
	}()
	t.Cleanup(func() { s.kill() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("server exited at start (%v); log:\n%s", s.waitErr, s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("wire port %s not open after 30s; log:\n%s", s.addr, s.logTail())
		}
	}
}

func (s *server) url() string {
	return "postgres://loam@" + s.addr + "/loam?sslmode=disable&connect_timeout=10"
}

// kill sends SIGKILL and waits for the process to go.
func (s *server) kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// stop shuts the server down with SIGTERM and fails the test unless it
// exits cleanly within 30 s.
func (s *server) stop() {
	s.t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if s.waitErr != nil {
			s.t.Errorf("server exited with %v after SIGTERM; log:\n%s", s.waitErr, s.logTail())
		}
	case <-time.After(30 * time.Second):
		s.t.Errorf("server still running 30s after SIGTERM; killing it")
		s.kill()
	}
}

// logTail is the end of the server's log, for failure messages.
func (s *server) logTail() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	const max = 8000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

// logLines returns the server log's lines that contain substr.
func (s *server) logLines(substr string) []string {
	f, err := os.Open(s.logPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), substr) {
			out = append(out, sc.Text())
		}
	}
	return out
}

func connect(t *testing.T, ctx context.Context, s *server) *pgx.Conn {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := pgx.Connect(cctx, s.url())
	if err != nil {
		t.Fatalf("connect: %v\nlog:\n%s", err, s.logTail())
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func mustExec(t *testing.T, ctx context.Context, c *pgx.Conn, q string, args ...any) {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := c.Exec(cctx, q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// selectIDs reads every id of t through Loam.
func selectIDs(t *testing.T, ctx context.Context, c *pgx.Conn) []int64 {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	rows, err := c.Query(cctx, "SELECT id FROM t")
	if err != nil {
		t.Fatalf("SELECT id FROM t: %v", err)
	}
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			t.Fatalf("SELECT id FROM t: scan: %v", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("SELECT id FROM t: %v", err)
	}
	return out
}

// icebergIDs reads every id of public.t with iceberg-go's SQL catalog and
// scan, without Loam, and lists the data files the current snapshot uses.
func icebergIDs(t *testing.T, ctx context.Context, dataDir string) (ids []int64, files map[string]bool) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := warehouseOf(t, dataDir)
	cat := w.catalog(t, db, sqlcat.SQLite)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "t"})
	if err != nil {
		t.Fatalf("iceberg-go LoadTable: %v", err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatalf("iceberg-go PlanFiles: %v", err)
	}
	files = map[string]bool{}
	for _, task := range tasks {
		files[w.path(task.File.FilePath())] = true
		for _, d := range task.DeleteFiles {
			files[w.path(d.FilePath())] = true
		}
	}
	_, it, err := tbl.Scan(table.WithSelectedFields("id")).ToArrowRecords(ctx)
	if err != nil {
		t.Fatalf("iceberg-go scan: %v", err)
	}
	for rec, err := range it {
		if err != nil {
			t.Fatalf("iceberg-go scan: %v", err)
		}
		idx := rec.Schema().FieldIndices("id")
		if len(idx) != 1 {
			rec.Release()
			t.Fatalf("iceberg-go scan: no id column in %v", rec.Schema())
		}
		col, ok := rec.Column(idx[0]).(*array.Int64)
		if !ok {
			rec.Release()
			t.Fatalf("iceberg-go scan: id is %T, want int64", rec.Column(idx[0]))
		}
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				t.Errorf("iceberg-go scan: NULL id")
				continue
			}
			ids = append(ids, col.Value(i))
		}
		rec.Release()
	}
	return ids, files
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// killAndDrain kills srv in the middle of a round, marking it killed for
// the clients (whose errors from then on are expected), and waits for
// them to give up on the dead server.
func killAndDrain(t *testing.T, srv *server, killed *atomic.Bool, wg *sync.WaitGroup, round int, who string) {
	t.Helper()
	killed.Store(true)
	srv.kill()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		t.Fatalf("round %d: %s still busy 45s after the kill", round, who)
	}
}
