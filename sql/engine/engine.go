package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
)

// Config is what an Engine needs to open its catalog and warehouse.
type Config struct {
	MetastoreURL string // sqlite://PATH or postgres://…
	WarehouseURL string // file://DIR
	Logger       *slog.Logger
}

// Engine is the shared state of a server: catalog and storage.
type Engine struct {
	cfg   Config
	log   *slog.Logger
	meta  *meta.Store
	store *icetable.Store
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
	m, err := meta.Open(ctx, cfg.MetastoreURL, cfg.WarehouseURL)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, meta: m, store: icetable.New(m.Catalog())}
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
	return e, nil
}

// Close releases the catalog and storage.
func (e *Engine) Close() error { return e.meta.Close() }

// Store is the table store, for the planner.
func (e *Engine) Store() *icetable.Store { return e.store }

// catalog resolves names for one session (its search_path).
type catalog struct {
	e *Engine
	s *Session
}

func (c catalog) Store() *icetable.Store { return c.e.store }

func (c catalog) Table(ctx context.Context, schema, name string) (*plan.TableInfo, error) {
	var search []string
	if schema != "" {
		search = []string{schema}
	} else {
		search = c.s.searchPath()
	}
	for _, ns := range search {
		t, err := c.e.store.Load(ctx, ns, name)
		if errors.Is(err, icetable.ErrNoSuchTable) || errors.Is(err, icetable.ErrNoSuchNamespace) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load table %s.%s: %w", ns, name, err)
		}
		return tableInfo(ns, name, t)
	}
	if schema != "" {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

func tableInfo(ns, name string, t *table.Table) (*plan.TableInfo, error) {
	sc := t.Schema()
	ts, err := ice.ColumnTypes(sc, t.Properties())
	if err != nil {
		return nil, err
	}
	ti := &plan.TableInfo{Namespace: ns, Name: name, Table: t, Types: ts}
	for _, f := range sc.Fields() {
		ti.Columns = append(ti.Columns, f.Name)
		ti.Required = append(ti.Required, f.Required)
	}
	return ti, nil
}

// searchPath lists the schemas unqualified names are looked up in.
func (s *Session) searchPath() []string {
	var out []string
	for _, p := range strings.Split(s.settings["search_path"], ",") {
		p = strings.Trim(strings.TrimSpace(p), `"`)
		if p == "$user" {
			p = s.user
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// createSchema is the first schema of the search path that exists, where
// CREATE TABLE puts an unqualified table.
func (s *Session) createSchema(ctx context.Context) (string, error) {
	for _, ns := range s.searchPath() {
		ok, err := s.eng.store.NamespaceExists(ctx, ns)
		if err != nil {
			return "", err
		}
		if ok {
			return ns, nil
		}
	}
	return "", pgerr.New(pgerr.UndefinedSchema, "no schema has been selected to create in")
}
