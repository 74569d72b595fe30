package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/storage/maint"
)

// Config is what an Engine needs to open its catalog and warehouse.
type Config struct {
	MetastoreURL string // sqlite://PATH or postgres://…
	WarehouseURL string // file://DIR or s3://BUCKET/PREFIX
	// WarehouseIO configures the warehouse's file IO (meta.WarehouseIO);
	// nil for file://.
	WarehouseIO  map[string]string
	DataDir      string // the write log lives in DataDir/wal
	LinkInterval time.Duration
	Logger       *slog.Logger
	// Address is where clients reach this server; a refused write to a
	// table another server writes names that server's Address.
	Address string
	// ScanCacheBytes bounds the decoded data file columns kept in memory
	// for scans: 0 means a quarter of the machine's memory, < 0 none.
	ScanCacheBytes int64
	// ParallelWorkers is max_parallel_workers_per_gather's default
	// (parallelsetting.go); 0: the machine's cores.
	ParallelWorkers int
	// CompactInterval is how often background upkeep (compaction,
	// expiry) looks after the tables this server writes; 0: every 30s.
	CompactInterval time.Duration
	// QueryMemory bounds the memory running queries hold in hash tables,
	// sort buffers and window partitions, together; beyond it they spill
	// to DataDir/tmp/spill. 0 means DefaultQueryMemory, < 0 unlimited.
	QueryMemory int64
	// Authorizer makes the authorizer every privilege check goes
	// through, over the engine's metastore; nil: meta.NewAuthorizer.
	Authorizer func(ctx context.Context, st meta.Store) (meta.Authorizer, error)
}

// Engine is the shared state of a server: catalog and storage.
type Engine struct {
	cfg  Config
	log  *slog.Logger
	meta meta.Store
	// authz decides privilege checks (privileges.go); roles reads the
	// roles and owners it needs from a snapshot current per statement.
	authz meta.Authorizer
	roles *meta.AuthzCache
	store *icetable.Store
	link  *link.Manager
	// upkeep compacts and expires the tables this server writes, in the
	// background and for VACUUM.
	upkeep *maint.Runner
	// missing caches failed table lookups (see missingTables).
	missing missingTables
	// rowWaits finds sessions waiting for each other's row locks (dml.go).
	rowWaits rowWaitGraph
	// infos memoizes the TableInfo of loaded tables (tableinfos.go).
	infos tableInfos
	// missingViews likewise for views, looked up where no table is.
	missingViews missingTables
	// plannings counts the SELECTs and INSERTs planned (plancache.go).
	plannings atomic.Int64
	// queryMem is the memory every running query draws from (mem.Pool).
	queryMem *mem.Pool
}

// prepared is what Execute needs to run a statement again.
type prepared struct {
	stmt  parse.Statement
	query string // the whole query string, which node locations index
}

// Open opens the metastore and warehouse, creating them on first start,
// with the schema public.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m, err := meta.Open(ctx, cfg.MetastoreURL, cfg.WarehouseURL, cfg.WarehouseIO)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, meta: m, store: icetable.NewWithPointers(m.Catalog(), m)}
	e.roles = meta.NewAuthzCache(m)
	if cfg.Authorizer == nil {
		e.authz = meta.NewCachedAuthorizer(e.roles)
	} else if e.authz, err = cfg.Authorizer(ctx, m); err != nil {
		m.Close()
		return nil, fmt.Errorf("authorizer: %w", err)
	}
	if cfg.ParallelWorkers > 0 {
		defaultWorkers.Store(int64(cfg.ParallelWorkers))
	}
	switch {
	case cfg.ScanCacheBytes > 0:
		e.store.SetScanCache(cfg.ScanCacheBytes)
	case cfg.ScanCacheBytes == 0:
		e.store.SetScanCache(defaultScanCache())
	}
	ok, err := e.store.NamespaceExists(ctx, "public")
	if err == nil && !ok {
		err = e.store.CreateNamespace(ctx, "public")
		if errors.Is(err, icetable.ErrNamespaceExists) {
			err = nil
		}
	}
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("create schema public: %w", err)
	}
	if cfg.DataDir == "" {
		m.Close()
		return nil, errors.New("engine: no data directory for the write log")
	}
	// The lease holder is the data directory, not the process: a server
	// restarted after a crash takes its tables' leases straight back and
	// commits the write log it replays.
	qm := cfg.QueryMemory
	if qm == 0 {
		qm = DefaultQueryMemory()
	}
	// Spill files of queries a crash interrupted are removed here.
	if e.queryMem, err = mem.NewPool(qm, filepath.Join(cfg.DataDir, "tmp", "spill")); err != nil {
		m.Close()
		return nil, err
	}
	id, err := serverID(cfg.DataDir)
	if err != nil {
		m.Close()
		return nil, err
	}
	e.link, err = link.Open(ctx, e.store, link.Options{Dir: filepath.Join(cfg.DataDir, "wal"), LinkInterval: cfg.LinkInterval, Logger: cfg.Logger,
		Leases: m, Holder: meta.Holder{ID: id, Address: cfg.Address}, Settings: m})
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("open write log: %w", err)
	}
	e.link.Run()
	e.upkeep = maint.NewRunner(e.link, cfg.Logger.With("component", "upkeep"), cfg.CompactInterval)
	e.upkeep.Start()
	e.reportAside(ctx)
	return e, nil
}

// Close releases the catalog and storage.
func (e *Engine) Close() error {
	e.upkeep.Stop()
	err := e.link.Close()
	if c, ok := e.authz.(io.Closer); ok { // an OpenFGA server's goroutines
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	if merr := e.meta.Close(); err == nil {
		err = merr
	}
	return err
}

// Checkpoint commits every row in the write log into Iceberg.
func (e *Engine) Checkpoint(ctx context.Context) error { return e.link.Checkpoint(ctx) }

// Store is the table store, for the planner.
func (e *Engine) Store() *icetable.Store { return e.store }

// Meta is the engine's metastore, for what serves the same catalog
// beside the wire (the REST catalog).
func (e *Engine) Meta() meta.Store { return e.meta }

// Authorizer is the engine's privilege checker, for the REST catalog.
func (e *Engine) Authorizer() meta.Authorizer { return e.authz }

// catalog resolves names for one statement of a session (its
// search_path), pinning each table it resolves until release.
type catalog struct {
	e     *Engine
	s     *Session
	views []*link.View
	// deps, when set, records each Table lookup, and current the tables
	// found, for a kept plan (plancache.go).
	deps    *[]tableDep
	current map[link.Key]*plan.TableInfo
}

func (s *Session) catalog() *catalog { return &catalog{e: s.eng, s: s} }

func (c *catalog) Store() *icetable.Store { return c.e.store }

// release unpins the tables the statement read.
func (c *catalog) release() {
	for _, v := range c.views {
		v.Release()
	}
	c.views = nil
}

func (c *catalog) Table(ctx context.Context, schema, name string) (ti *plan.TableInfo, err error) {
	if c.deps != nil {
		defer func() { c.note(schema, name, ti, err) }()
	}
	var search []string
	if schema != "" {
		search = []string{schema}
	} else {
		search = c.s.searchPath()
	}
	for _, ns := range search {
		key := link.Key{NS: ns, Name: name}
		if c.s.hidden(key) {
			continue // the session's open transaction dropped it
		}
		if !c.e.missing.has(key) {
			ti, err := c.table(ctx, key)
			if ti != nil || err != nil {
				return ti, err
			}
			c.e.missing.add(key)
		}
		if ti, err := c.view(ctx, ns, name); ti != nil || err != nil {
			return ti, err
		}
	}
	// Sequences last: a metastore read only when nothing else matched.
	if ti, err := c.sequenceRelation(ctx, search, name); ti != nil || err != nil {
		return ti, err
	}
	// "t@branch", "t@tag": a table's reference (timetravel.go).
	if ti, err := c.refName(ctx, schema, name); ti != nil || err != nil {
		return ti, err
	}
	if schema != "" {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// table pins the table key names, or is nil when there is none.
func (c *catalog) table(ctx context.Context, key link.Key) (*plan.TableInfo, error) {
	ns, name := key.NS, key.Name
	v, err := c.e.link.View(ctx, ns, name)
	if errors.Is(err, icetable.ErrNoSuchTable) || errors.Is(err, icetable.ErrNoSuchNamespace) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load table %s.%s: %w", ns, name, err)
	}
	c.views = append(c.views, v)
	ti, err := c.e.infos.get(ns, name, v.Table)
	if err != nil {
		return nil, err
	}
	ti.Log = v.Read(c.s.ownWrites(key)...)
	ti.External = v.External()
	return ti, nil
}

func tableInfo(ns, name string, t *table.Table) (*plan.TableInfo, error) {
	sc := t.Schema()
	ts, err := ice.ColumnTypes(sc, t.Properties())
	if err != nil {
		// A table an outside engine created may hold Iceberg types Loam
		// has no SQL type for yet (struct, map…).
		return nil, pgerr.Wrap(pgerr.FeatureNotSupported, err, "table %s.%s", ns, name)
	}
	ti := &plan.TableInfo{Namespace: ns, Name: name, Table: t, Types: ts}
	var ids []int
	notNull := notNullIDs(t.Properties())
	for _, f := range sc.Fields() {
		ti.Columns = append(ti.Columns, f.Name)
		ti.Required = append(ti.Required, f.Required || notNull[f.ID])
		ids = append(ids, f.ID)
	}
	if ti.Defaults, err = plan.DecodeDefaults(t.Properties()[plan.PropDefaults], ids); err != nil {
		return nil, fmt.Errorf("table %s.%s: %w", ns, name, err)
	}
	if ti.Identity, err = plan.DecodeDefaults(t.Properties()[plan.PropIdentity], ids); err != nil {
		return nil, fmt.Errorf("table %s.%s: %w", ns, name, err)
	}
	return ti, nil
}

// serverID reads the data directory's server ID, creating it on first
// start.
func serverID(dir string) (string, error) {
	path := filepath.Join(dir, "server-id")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	id := host + "-" + hex.EncodeToString(b[:])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("server id: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("server id: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("server id: %w", err)
	}
	return id, nil
}

// defaultScanCache is a quarter of the machine's memory, or 1 GiB where
// that is unknown.
func defaultScanCache() int64 {
	if m := MachineMemory(); m > 0 {
		return m / 4
	}
	return 1 << 30
}

// DefaultQueryMemory is a quarter of the machine's memory (the scan cache
// takes another quarter), or 1 GiB where that is unknown.
func DefaultQueryMemory() int64 { return defaultScanCache() }

// QueryMemory is the query memory pool, for tests and metrics.
func (e *Engine) QueryMemory() *mem.Pool { return e.queryMem }

// MachineMemory is MemTotal from /proc/meminfo in bytes; 0 when unknown.
func MachineMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// The catalog answers pg_catalog and information_schema queries
// (plan.CatalogInfo).
var (
	_ plan.Catalog     = (*catalog)(nil)
	_ plan.CatalogInfo = (*catalog)(nil)
)

func (c *catalog) User() string                { return c.s.currentRole() }
func (c *catalog) Database() string            { return c.s.database }
func (c *catalog) SearchPath() []string        { return c.s.searchPath() }
func (c *catalog) Settings() map[string]string { return c.s.settings }

func (c *catalog) Namespaces(ctx context.Context) ([]string, error) {
	nss, err := c.e.meta.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(nss, c.s.schemaHidden), nil
}

func (c *catalog) Tables(ctx context.Context, ns string) ([]*plan.TableInfo, error) {
	names, err := c.e.store.ListTables(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("list tables of %s: %w", ns, err)
	}
	views, err := c.e.meta.ListViews(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("list views of %s: %w", ns, err)
	}
	names = append(names, views...)
	slices.Sort(names)
	var out []*plan.TableInfo
	for _, n := range names {
		if isAside(n) {
			continue // a table an open block dropped, kept for its rollback
		}
		ti, err := c.Table(ctx, ns, n)
		if err != nil {
			// Dropped between listing and loading: not there any more.
			continue
		}
		out = append(out, ti)
	}
	return out, nil
}
