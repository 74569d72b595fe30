package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/wire"
)

// serve runs the server until SIGINT/SIGTERM; it returns the exit code.
func serve(args []string, stderr io.Writer) int {
	cfg, err := parseConfig(args, defaultGetenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "loam serve: %v\n", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		fmt.Fprintf(stderr, "loam serve: --log-level: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runServer(ctx, cfg, log, nil); err != nil {
		log.Error("loam stopped", "err", err)
		return 1
	}
	return 0
}

// runServer opens the engine and serves the wire and HTTP ports until ctx
// ends. ready, when not nil, receives the wire address once it accepts.
func runServer(ctx context.Context, cfg *config, log *slog.Logger, ready chan<- net.Addr) error {
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("creating data dir: %w", err)
	}
	eng, err := engine.Open(ctx, engine.Config{MetastoreURL: cfg.Metastore, WarehouseURL: cfg.Warehouse,
		WarehouseIO: cfg.WarehouseIO,
		DataDir:     cfg.DataDir, LinkInterval: cfg.LinkInterval, Logger: log,
		Address: cfg.Listen, ScanCacheBytes: cfg.ScanCache, ParallelWorkers: cfg.ParallelWorkers,
		CompactInterval: cfg.CompactInterval, QueryMemory: cfg.QueryMemory,
		Authorizer: newAuthorizer(cfg.Authorizer)})
	if err != nil {
		return fmt.Errorf("opening engine: %w", err)
	}
	defer eng.Close()

	wcfg, err := wireConfig(ctx, cfg, eng, log)
	if err != nil {
		return err
	}
	srv, err := wire.NewServer(wcfg)
	if err != nil {
		return err
	}

	var hs *http.Server
	hdone := make(chan error, 1)
	if cfg.HTTP != "" {
		catalog := restCatalog(eng.Meta(), eng.Authorizer(), cfg, log)
		hln, err := net.Listen("tcp", cfg.HTTP)
		if err != nil {
			return fmt.Errorf("http listen: %w", err)
		}
		hs = &http.Server{Handler: httpHandler(catalog), ReadHeaderTimeout: 10 * time.Second}
		go func() { hdone <- hs.Serve(hln) }()
		log.Info("http listening", "addr", hln.Addr().String())
	}

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		if hs != nil {
			hs.Close()
		}
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("loam ready", "addr", ln.Addr().String(), "data_dir", cfg.DataDir,
		"auth", authName(cfg), "tls", cfg.TLSCert != "", "authorizer", cfg.Authorizer, "version", versionString())
	if ready != nil {
		ready <- ln.Addr()
	}
	serveErr := srv.Serve(ctx, ln)
	if hs != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = hs.Shutdown(sctx)
		cancel()
		if err := <-hdone; err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("http server", "err", err)
		}
	}
	if serveErr != nil {
		return serveErr
	}
	log.Info("loam stopped")
	return nil
}

func authName(cfg *config) string {
	switch {
	case cfg.HBAFile != "":
		return "hba " + cfg.HBAFile
	case cfg.Password == "":
		return "trust on loopback, else " + string(wire.AuthSCRAM)
	}
	return string(cfg.AuthMethod)
}

// httpHandler serves /health, pprof and, when catalog is not nil, the
// Iceberg REST catalog under /v1/.
func httpHandler(catalog http.Handler) http.Handler {
	mux := http.NewServeMux()
	if catalog != nil {
		mux.Handle("/v1/", catalog)
	}
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok")
	})
	// Profiles for finding where time goes; the HTTP port is loopback by
	// default, like the wire port.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// tuneGC trades memory for CPU: scans and aggregations allocate Arrow
// buffers at a high rate, and the default GOGC=100 spends a third of a
// full-table aggregation in the collector. A soft limit at half the
// machine's memory keeps the heap in check. GOGC and GOMEMLIMIT from the
// environment win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := engine.MachineMemory(); total > 0 {
			debug.SetMemoryLimit(total / 2)
		}
	}
}
