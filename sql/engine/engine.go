package engine

import (
	"context"
	"log/slog"

	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
)

// Config is what an Engine needs to open its catalog and warehouse.
type Config struct {
	MetastoreURL string // sqlite://PATH or postgres://…
	WarehouseURL string // file://DIR
	Logger       *slog.Logger
}

// Engine is the shared state of a server: catalog and storage.
type Engine struct {
	cfg Config
	log *slog.Logger
}

// prepared is the planned form of a statement (filled in by the planner).
type prepared interface{}

// Open opens the metastore and warehouse, creating them on first start.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Engine{cfg: cfg, log: cfg.Logger}, nil
}

// Close releases the catalog and storage.
func (e *Engine) Close() error { return nil }

// Prepare parses and plans the statements in query. The simple protocol
// passes a whole query string (zero or more statements); the extended
// protocol passes one statement with the parameter type OIDs the client
// named (0 = infer). An empty query yields no statements.
func (s *Session) Prepare(ctx context.Context, query string, paramOIDs []uint32) ([]*Statement, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "not yet")
}

// Execute runs a prepared statement with its parameters (one Datum per
// ParamTypes entry, already decoded by the caller).
func (s *Session) Execute(ctx context.Context, st *Statement, params []types.Datum) (*Cursor, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "not yet")
}
