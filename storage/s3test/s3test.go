// Package s3test runs a real S3 server for tests: SeaweedFS's `weed
// server -s3` as its own process on 127.0.0.1, with one identity whose
// signatures it checks, data under a temporary directory, and a fresh
// bucket per test.
//
// Tests that take a warehouse from Warehouse (or a server's flags from
// ServeArgs) run on file:// by default and on the S3 server when
// LOAM_TEST_WAREHOUSE=s3, which `make test` sets for a second pass of the
// storage, link, crash and outside-reader tests (`make test-s3` runs the
// whole suite so). LOAM_TEST_S3_ENDPOINT names a server already running
// (make starts one for the run); otherwise the first test that needs one
// starts it and it dies with the test process.
//
// The weed binary is LOAM_WEED_BIN, else bin/weed at the module root
// (`make weed` builds it), else weed on PATH. Without one a test fails
// under CI and is skipped outside it.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The identity the test server knows; tests put it in AWS_* so Loam and
// every client sign with it (and the SDK never looks for an instance
// role).
const (
	AccessKey = "loamtest"
	SecretKey = "loamtest-secret"
	Region    = "us-east-1"
)

// ErrNoWeed says no weed binary was found.
var ErrNoWeed = errors.New("no weed binary (make weed builds bin/weed; or set LOAM_WEED_BIN)")

// Enabled says whether tests should put their warehouse on S3.
func Enabled() bool { return os.Getenv("LOAM_TEST_WAREHOUSE") == "s3" }

// Server is a running S3 server.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	dir      string
	ports    ports
	bin      string

	mu     sync.Mutex
	cmd    *exec.Cmd
	probed *string // the object the last readiness probe wrote

	bucketOnce sync.Once
	bucketErr  error
}

type ports struct{ s3, master, volume, filer int }

var (
	sharedMu  sync.Mutex
	shared    *Server
	sharedErr error
)

// Shared returns the process's S3 server, starting it on first use.
func Shared(t testing.TB) *Server {
	t.Helper()
	SetCredentials()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		if ep := os.Getenv("LOAM_TEST_S3_ENDPOINT"); ep != "" {
			shared = &Server{Endpoint: ep}
		} else {
			sweepShared(time.Now().Add(-time.Hour))
			dir, err := os.MkdirTemp("", sharedPrefix)
			if err == nil {
				shared, err = start(dir)
			}
			sharedErr = err
		}
	}
	if sharedErr != nil {
		fail(t, sharedErr)
	}
	return shared
}

// sharedPrefix names the directories of Shared servers under the system's
// temporary directory.
const sharedPrefix = "loam-s3-"

// sweepShared removes the directories earlier test processes' Shared
// servers left (nothing removes them when a process ends): those made
// before cutoff whose weed is no longer running.
func sweepShared(cutoff time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), sharedPrefix+"*"))
	for _, d := range dirs {
		fi, err := os.Stat(filepath.Join(d, "weed.log"))
		if err != nil || !fi.ModTime().Before(cutoff) {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, "weed.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && syscall.Kill(pid, 0) == nil {
				continue
			}
		}
		os.RemoveAll(d)
	}
}

// Start starts a server of the test's own, stopped at its end: for tests
// that stop and restart it.
func Start(t testing.TB) *Server {
	t.Helper()
	SetCredentials()
	s, err := start(t.TempDir())
	if err != nil {
		fail(t, err)
	}
	t.Cleanup(s.Stop)
	return s
}

func fail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoWeed) && os.Getenv("CI") == "" {
		t.Skipf("s3test: %v", err)
	}
	t.Fatalf("s3test: %v", err)
}

// SetCredentials puts the test identity in the process's AWS_*
// environment (children inherit it).
func SetCredentials() {
	os.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	os.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	os.Setenv("AWS_REGION", Region)
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// Env is the environment a child process (a Loam server) needs to reach
// the test server.
func Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey,
		"AWS_REGION=" + Region, "AWS_EC2_METADATA_DISABLED=true"}
}

// IOProps are iceberg-go's file IO properties for the server, credentials
// included, as an outside reader would set them.
func (s *Server) IOProps() map[string]string {
	return map[string]string{
		"s3.endpoint": s.Endpoint, "s3.region": Region,
		"s3.access-key-id": AccessKey, "s3.secret-access-key": SecretKey,
		"s3.force-virtual-addressing": "false",
	}
}

// Client is an S3 client of the server, for tests that look at objects.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
}

// Bucket creates a new empty bucket for the test.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "t-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("s3test: create bucket %s: %v", name, err)
	}
	return name
}

// TestBucket holds the warehouses of Warehouse and ServeArgs, each under a
// prefix of its own: SeaweedFS grows volumes for every new bucket, which
// takes seconds, so tests share one.
const TestBucket = "loam-tests"

// NewWarehouse returns a fresh warehouse URL in TestBucket,
// s3://loam-tests/<random>/warehouse.
func (s *Server) NewWarehouse(t testing.TB) string {
	t.Helper()
	s.bucketOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c := s.Client()
		if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(TestBucket)}); err == nil {
			return
		}
		_, s.bucketErr = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(TestBucket)})
	})
	if s.bucketErr != nil {
		t.Fatalf("s3test: create bucket %s: %v", TestBucket, s.bucketErr)
	}
	var b [6]byte
	rand.Read(b[:])
	return "s3://" + TestBucket + "/" + hex.EncodeToString(b[:]) + "/warehouse"
}

// Warehouse returns the warehouse URL and file IO properties a test's
// engine should use: under dir on file://, or a new prefix of TestBucket
// when Enabled, the same one again for the same dir.
func Warehouse(t testing.TB, dir string) (string, map[string]string) {
	t.Helper()
	if !Enabled() {
		return "file://" + filepath.Join(dir, "warehouse"), nil
	}
	s := Shared(t)
	// The same dir is the same warehouse, as on file://: tests reopen an
	// engine or metastore on a directory and must find its tables.
	warehousesMu.Lock()
	defer warehousesMu.Unlock()
	if warehouses == nil {
		warehouses = map[string]string{}
	}
	w, ok := warehouses[dir]
	if !ok {
		w = s.NewWarehouse(t)
		warehouses[dir] = w
	}
	return w, s.IOProps()
}

var (
	warehousesMu sync.Mutex
	warehouses   map[string]string // dir → warehouse URL, for Warehouse
)

// ServeArgs are the `loam serve` flags that put a server's warehouse in a
// new prefix of TestBucket when Enabled, and nothing otherwise. The child
// needs Env too (SetCredentials has put it in this process's environment).
func ServeArgs(t testing.TB) []string {
	t.Helper()
	if !Enabled() {
		return nil
	}
	s := Shared(t)
	return []string{"--warehouse", s.NewWarehouse(t), "--s3-endpoint", s.Endpoint}
}

// Objects lists the keys of every object under an s3:// URL (a
// warehouse, a table location), for tests that look for files.
func (s *Server) Objects(t testing.TB, under string) []string {
	t.Helper()
	u, err := url.Parse(under)
	if err != nil || u.Scheme != "s3" {
		t.Fatalf("s3test: %q is not an s3:// URL", under)
	}
	prefix := strings.TrimPrefix(u.Path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	var keys []string
	p := s3.NewListObjectsV2Paginator(s.Client(), &s3.ListObjectsV2Input{Bucket: aws.String(u.Host), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("s3test: list %s: %v", under, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// Bin finds the weed binary.
func Bin() (string, error) {
	if b := os.Getenv("LOAM_WEED_BIN"); b != "" {
		return b, nil
	}
	if dir, err := os.Getwd(); err == nil {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				if b := filepath.Join(d, "bin", "weed"); fileExists(b) {
					return b, nil
				}
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if b, err := exec.LookPath("weed"); err == nil {
		return b, nil
	}
	return "", ErrNoWeed
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// start runs a server with its data in dir on free ports.
func start(dir string) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	p, err := freePorts()
	if err != nil {
		return nil, err
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(p.s3), dir: dir, ports: p, bin: bin}
	if err := s.Restart(); err != nil {
		return nil, err
	}
	return s, nil
}

const s3Config = `{"identities":[{"name":"loam","credentials":[{"accessKey":"` + AccessKey +
	`","secretKey":"` + SecretKey + `"}],"actions":["Admin","Read","Write","List","Tagging"]}]}`

const masterConfig = `[master.volume_growth]
copy_1 = 1
copy_2 = 2
copy_3 = 3
copy_other = 1
`

// Restart starts the server again (after Stop) on the same directory and
// ports, and waits until it answers S3 requests.
func (s *Server) Restart() error {
	if s.bin == "" {
		return errors.New("s3test: a server named by LOAM_TEST_S3_ENDPOINT cannot be restarted")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("s3test: server already running")
	}
	cfg := filepath.Join(s.dir, "s3.json")
	if err := os.WriteFile(cfg, []byte(s3Config), 0o600); err != nil {
		return err
	}
	// weed reads master.toml from its working directory. Every bucket is
	// a collection of its own, and a collection's first write grows 7
	// volumes by default, out of a count derived from the free disk at
	// start: tests that make buckets of their own (Bucket) ran the server
	// out of volumes after a few dozen (500 "No writable volumes and no
	// free volumes left"). One volume per growth and a fixed count
	// (volumes are not preallocated) hold thousands of buckets.
	if err := os.WriteFile(filepath.Join(s.dir, "master.toml"), []byte(masterConfig), 0o600); err != nil {
		return err
	}
	data := filepath.Join(s.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "weed.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	p := s.ports
	cmd := exec.Command(s.bin, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-dir="+data, "-s3", "-s3.config="+cfg,
		"-master.port="+strconv.Itoa(p.master), "-volume.port="+strconv.Itoa(p.volume),
		"-filer.port="+strconv.Itoa(p.filer), "-s3.port="+strconv.Itoa(p.s3),
		// No outside traffic, and none of weed's other listeners.
		"-master.telemetry=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.iam=false",
		"-volume.max=20000", "-master.volumeSizeLimitMB=64", "-master.electionTimeout=1s", "-s3.localSocket="+filepath.Join(s.dir, "s3.sock"))
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("s3test: start weed: %w", err)
	}
	s.cmd = cmd
	_ = os.WriteFile(filepath.Join(s.dir, "weed.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			s.cmd = nil
			log, _ := os.ReadFile(filepath.Join(s.dir, "weed.log"))
			return fmt.Errorf("s3test: weed exited: %v\n%s", err, tail(log, 3000))
		default:
		}
		if s.ready() {
			go func() { <-exited }()
			return nil
		}
		if time.Now().After(deadline) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			s.cmd = nil
			log, _ := os.ReadFile(filepath.Join(s.dir, "weed.log"))
			return fmt.Errorf("s3test: weed did not answer within 60s\n%s", tail(log, 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ready says whether the server stores and returns an object: the S3
// gateway answers before the volume server has registered with the
// master, and the first write waits for volumes to be grown.
func (s *Server) ready() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := s.Client()
	if _, err := c.ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		return false
	}
	const probe = "s3test-ready"
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(probe)}); err != nil {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(probe)}); err != nil {
			return false
		}
	}
	key := aws.String(strconv.FormatInt(time.Now().UnixNano(), 10))
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(probe), Key: key, Body: strings.NewReader("ready")}); err != nil {
		return false
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(probe), Key: key})
	if err != nil {
		return false
	}
	out.Body.Close()
	// An object written before a restart must be readable too.
	if s.probed != nil {
		old, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(probe), Key: s.probed})
		if err != nil {
			return false
		}
		old.Body.Close()
	}
	s.probed = key
	return true
}

// Stop kills the server (as a crash would) and waits until its port is
// closed.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	s.cmd = nil
	for i := 0; i < 100; i++ {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.ports.s3), 100*time.Millisecond)
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(50 * time.Millisecond)
	}
}

// freePorts picks ports for the four listeners; weed adds 10000 to each
// for its gRPC port, so both must be free.
func freePorts() (ports, error) {
	var got []int
	seen := map[int]bool{}
	for tries := 0; len(got) < 4 && tries < 200; tries++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return ports{}, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if p > 55000 || seen[p] || seen[p+10000] {
			continue
		}
		if g, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+10000)); err == nil {
			g.Close()
			seen[p], seen[p+10000] = true, true
			got = append(got, p)
		}
	}
	if len(got) < 4 {
		return ports{}, errors.New("s3test: no free ports")
	}
	return ports{s3: got[0], master: got[1], volume: got[2], filer: got[3]}, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
