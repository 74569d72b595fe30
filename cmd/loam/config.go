package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/loamdb/loam/meta"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loamdb/loam/wire"
)

// config is the resolved serve configuration.
type config struct {
	DataDir   string
	Listen    string
	HTTP      string
	Metastore string
	Warehouse string
	// WarehouseIO configures an s3:// warehouse's file IO.
	WarehouseIO  map[string]string
	LinkInterval time.Duration
	Password     string
	AuthMethod   wire.AuthMethod
	LogLevel     string
	ScanCache    int64
	// ParallelWorkers is max_parallel_workers_per_gather's default.
	ParallelWorkers int
	// QueryMemory is the memory running queries share before they spill.
	QueryMemory int64
	// CompactInterval is how often background upkeep runs.
	CompactInterval time.Duration
	// Authorizer names the privilege checker: builtin or openfga.
	Authorizer string
	// Connections (connflags.go).
	TLSCert, TLSKey string
	HBAFile         string
	HBA             *wire.HBA // HBAFile parsed; nil without one
	MaxConnections  int
	AuthTimeout     time.Duration
	MaxFailedLogins int
}

// parseConfig reads flags, then fills every flag not given on the command
// line from LOAM_<NAME> (dashes become underscores), then derives defaults
// that depend on the data directory.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("loam serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "./loam-data", "everything local: write log, SQLite metastore, warehouse, caches")
	listen := fs.String("listen", "127.0.0.1:5433", "Postgres wire protocol address")
	httpAddr := fs.String("http", "127.0.0.1:8181", "HTTP address (health, metrics, Iceberg REST catalog); empty disables")
	metastore := fs.String("metastore", "", "metastore URL: sqlite://PATH or postgres://… (default sqlite://<data-dir>/meta.db)")
	warehouse := fs.String("warehouse", "", "where Iceberg tables live (default file://<data-dir>/warehouse)")
	linkInterval := fs.Duration("link-interval", 10*time.Second, "how often the write log is committed into Iceberg")
	password := fs.String("password", "", "the loam superuser's password; once set, every client gives its role's password (a non-loopback --listen needs this or --hba-file)")
	authMethod := fs.String("auth-method", string(wire.AuthSCRAM), "with --password and no --hba-file, how passwords are checked: scram-sha-256 or password (cleartext)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	compactInterval := fs.Duration("compact-interval", 30*time.Second, "how often tables this server writes are compacted and their old snapshots expired")
	scanCache := fs.Int64("scan-cache-bytes", 0, "decoded data file columns kept in memory for scans; 0: a quarter of the machine's memory, -1: none")
	parallelWorkers := fs.Int("max-parallel-workers", 0, "default of max_parallel_workers_per_gather, the workers a parallel query plans; 0: the machine's cores, 1: none")
	s3Endpoint := fs.String("s3-endpoint", "", "for an s3:// warehouse: the S3 endpoint, e.g. http://127.0.0.1:8333 (path-style addressing); default AWS")
	s3Region := fs.String("s3-region", "", "for an s3:// warehouse: the bucket's region (default AWS_REGION, else us-east-1); credentials come from AWS_*")
	queryMemory := fs.String("query-memory", "", "memory all running queries share for hash tables, sorts and windows before they spill to disk, in bytes or with kB, MB, GB (default a quarter of the machine's memory); a query that cannot fit fails with 53200")
	authorizer := fs.String("authorizer", authorizerBuiltin, "what decides privilege checks: builtin, or openfga (an in-process OpenFGA server kept in step with the metastore's roles and grants)")
	conn := connFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loam serve [flags]\n\nEach flag can also be set with LOAM_<NAME>, e.g. LOAM_DATA_DIR; flags win.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		env := "LOAM_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(env); v != "" {
			if err := f.Value.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s: %w", env, err)
			}
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	cfg := &config{
		DataDir: *dataDir, Listen: *listen, HTTP: *httpAddr, Metastore: *metastore,
		Warehouse: *warehouse, LinkInterval: *linkInterval, Password: *password,
		AuthMethod: wire.AuthMethod(*authMethod), LogLevel: *logLevel, ScanCache: *scanCache,
		CompactInterval: *compactInterval, ParallelWorkers: *parallelWorkers,
		Authorizer: *authorizer,
	}
	if err := checkAuthorizer(cfg.Authorizer); err != nil {
		return nil, err
	}
	if *queryMemory != "" {
		n, err := parseBytes(*queryMemory)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--query-memory %q: want a positive size such as 4GB", *queryMemory)
		}
		cfg.QueryMemory = n
	}
	abs, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if cfg.Metastore == "" {
		cfg.Metastore = "sqlite://" + filepath.Join(abs, "meta.db")
	}
	if cfg.Warehouse == "" {
		cfg.Warehouse = "file://" + filepath.Join(abs, "warehouse")
	}
	if cfg.WarehouseIO, err = meta.WarehouseIO(cfg.Warehouse, meta.S3{Endpoint: *s3Endpoint, Region: *s3Region}); err != nil {
		return nil, err
	}
	switch cfg.AuthMethod {
	case wire.AuthSCRAM, wire.AuthPassword:
	default:
		return nil, fmt.Errorf("--auth-method %q: want %s or %s", cfg.AuthMethod, wire.AuthSCRAM, wire.AuthPassword)
	}
	if cfg.LinkInterval <= 0 {
		return nil, errors.New("--link-interval must be positive")
	}
	if cfg.ParallelWorkers < 0 || cfg.ParallelWorkers > 1024 {
		return nil, errors.New("--max-parallel-workers must be between 0 and 1024")
	}
	if cfg.CompactInterval <= 0 {
		return nil, errors.New("--compact-interval must be positive")
	}
	if err := conn.apply(cfg); err != nil {
		return nil, err
	}
	if cfg.Password == "" && cfg.HBAFile == "" {
		loop, err := isLoopback(cfg.Listen)
		if err != nil {
			return nil, err
		}
		if !loop {
			return nil, fmt.Errorf("refusing to listen on non-loopback address %s without a password or an hba file (set --password or LOAM_PASSWORD, or --hba-file)", cfg.Listen)
		}
	}
	return cfg, nil
}

// isLoopback reports whether every address host:port can bind to is a
// loopback address. An empty host or a wildcard address is not.
func isLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("--listen %q: %w", addr, err)
	}
	if host == "" {
		return false, nil
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback(), nil
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return false, fmt.Errorf("--listen %q: %w", addr, err)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false, nil
		}
	}
	return len(ips) > 0, nil
}

func defaultGetenv(name string) string { return os.Getenv(name) }

// parseBytes reads a size as PostgreSQL's memory settings write it: a
// number of bytes, or with a unit kB, MB, GB or TB (powers of 1024).
func parseBytes(v string) (int64, error) {
	v = strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%s is too large", v)
	}
	return n * mult, nil
}
