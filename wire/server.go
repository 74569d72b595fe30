// Package wire serves Loam over the PostgreSQL frontend/backend protocol 3.0:
// startup and authentication, the simple and extended query protocols,
// cancellation and graceful shutdown. It decodes frontend messages, drives an
// engine Session, and encodes result batches as DataRows.
//
// One goroutine serves each connection. Message framing is in reader.go,
// the startup phase in startup.go (TLS in tls.go), authentication in
// auth.go and auth_scram.go (the rules of hba.go decide the method, the
// Roles of roles.go the passwords; login.go reports logins, limits.go caps
// failed ones), idle timeouts in idle.go, queries in simple.go and extended.go, result encoding in
// datarow.go and encode_*.go, parameter decoding in decode_binary.go, and
// the mapping of errors to ErrorResponse in errors.go.
package wire

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// AuthMethod selects how clients prove they know the password.
type AuthMethod string

const (
	// AuthTrust lets the client in as the role it names.
	AuthTrust AuthMethod = "trust"
	// AuthSCRAM is SCRAM-SHA-256 (RFC 5802/7677, no channel binding).
	AuthSCRAM AuthMethod = "scram-sha-256"
	// AuthPassword is a cleartext password message.
	AuthPassword AuthMethod = "password"
)

// ErrServerClosed is returned by Serve after Shutdown has begun.
var ErrServerClosed = errors.New("wire: server closed")

// Config configures a Server.
type Config struct {
	Engine Engine // required
	// Roles says who may log in and with which password verifier. Nil:
	// every user name may, with Password as its password (tests, and
	// servers without a role store).
	Roles Roles
	// Password is every user's password when Roles is nil.
	Password string
	// AuthMethod, when set (or when Password is), is the method of every
	// connection without an HBA file (default AuthSCRAM once a password
	// is set). Unset: loopback clients are trusted, others use SCRAM.
	AuthMethod AuthMethod
	// HBA, when set, decides each connection's method (pg_hba.conf).
	HBA *HBA
	// TLS, when set, answers SSLRequest with 'S' and encrypts the
	// connection; nil answers 'N'.
	TLS *tls.Config
	// MaxConnections bounds concurrent clients (53300 beyond); default
	// 100, negative: no bound.
	MaxConnections int
	// MaxFailedLogins is how many failed logins one client address may
	// have within FailedLoginWindow before it is refused for as long;
	// default 10, negative: no cap.
	MaxFailedLogins   int
	FailedLoginWindow time.Duration // default 1 minute
	// OnLogin, when set, is told of every login that succeeds or fails
	// after the startup packet (for the audit log). It runs on the
	// connection's goroutine, before the session starts.
	OnLogin func(LoginEvent)
	Logger  *slog.Logger
	// clock replaces time.Now for VALID UNTIL and the failed-login
	// window, in tests.
	clock func() time.Time
	// MaxMessageSize bounds a frontend message; default 1 GiB.
	MaxMessageSize int
	// AuthTimeout bounds the startup phase; default 60s.
	AuthTimeout time.Duration
	// ShutdownGrace is how long Serve waits, once its context is done, for
	// connections to finish before closing them; default 10s.
	ShutdownGrace time.Duration
}

// Server accepts PostgreSQL connections and serves each in its own goroutine.
type Server struct {
	cfg        Config
	log        *slog.Logger
	roles      Roles
	hba        *HBA
	mockSecret []byte // salts mock SCRAM exchanges (see auth_scram.go)
	now        func() time.Time
	failed     *loginLimiter
	clients    int // connections past their startup packet; under mu

	base     context.Context
	stopBase context.CancelCauseFunc

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	keys      map[uint32]*conn
	wg        sync.WaitGroup
}

// NewServer checks cfg and returns a server ready to Serve.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("wire: Config.Engine is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = DefaultMaxMessageSize
	}
	if cfg.AuthTimeout <= 0 {
		cfg.AuthTimeout = 60 * time.Second
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 10 * time.Second
	}
	if cfg.MaxConnections == 0 {
		cfg.MaxConnections = 100
	}
	if cfg.MaxFailedLogins == 0 {
		cfg.MaxFailedLogins = 10
	}
	if cfg.FailedLoginWindow <= 0 {
		cfg.FailedLoginWindow = time.Minute
	}
	s := &Server{
		cfg:        cfg,
		log:        cfg.Logger,
		roles:      cfg.Roles,
		hba:        cfg.HBA,
		mockSecret: make([]byte, 32),
		now:        cfg.clock,
		listeners:  map[net.Listener]struct{}{},
		conns:      map[*conn]struct{}{},
		keys:       map[uint32]*conn{},
	}
	_, _ = rand.Read(s.mockSecret)
	if s.now == nil {
		s.now = time.Now
	}
	s.failed = newLoginLimiter(cfg.MaxFailedLogins, cfg.FailedLoginWindow, s.now)
	switch {
	case cfg.AuthMethod == "" || cfg.AuthMethod == AuthSCRAM || cfg.AuthMethod == AuthPassword:
	case cfg.AuthMethod == AuthTrust:
		if cfg.Password != "" {
			return nil, errors.New("wire: a password is set but the auth method is trust")
		}
	default:
		return nil, fmt.Errorf("wire: unknown auth method %q (want %s or %s)", cfg.AuthMethod, AuthSCRAM, AuthPassword)
	}
	if s.roles == nil {
		pr, err := newPasswordRoles(cfg.Password)
		if err != nil {
			return nil, err
		}
		s.roles = pr
	}
	if s.hba == nil {
		method := cfg.AuthMethod
		if method == "" && cfg.Password != "" {
			method = AuthSCRAM
		}
		s.hba = defaultHBA(method)
	}
	s.base, s.stopBase = context.WithCancelCause(context.Background())
	return s, nil
}

// Serve accepts connections on ln until ctx is done or Shutdown is called,
// then shuts down gracefully: it stops accepting, cancels running
// statements, sends FATAL 57P01 to open connections, and waits for their
// goroutines (closing what is left after ShutdownGrace). It returns nil
// after a shutdown, the accept error otherwise.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, s.beginShutdown)
	defer stop()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				s.waitConns(s.cfg.ShutdownGrace)
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("accept failed; retrying", "err", err, "delay", backoff)
				time.Sleep(backoff)
				continue
			}
			s.mu.Lock()
			delete(s.listeners, ln)
			s.mu.Unlock()
			return fmt.Errorf("wire: accept: %w", err)
		}
		backoff = 0
		c := newConn(s, nc)
		if !s.track(c) {
			nc.Close()
			continue
		}
		go func() {
			defer s.wg.Done()
			c.serve()
		}()
	}
}

// Shutdown stops the server as Serve does when its context ends, waiting
// until ctx is done for connections to finish; then it closes them.
func (s *Server) Shutdown(ctx context.Context) error {
	s.beginShutdown()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.forceClose()
		<-done
		return ctx.Err()
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	if c.counted {
		s.clients--
	}
	if s.keys[c.pid] == c {
		delete(s.keys, c.pid)
	}
}

func (s *Server) beginShutdown() {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	s.listeners = nil
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.log.Info("shutting down", "connections", len(conns))
	s.stopBase(errShutdown)
	for _, c := range conns {
		c.interrupt()
	}
}

func (s *Server) waitConns(grace time.Duration) {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.forceClose()
		<-done
	}
}

func (s *Server) forceClose() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.nc.Close()
	}
}
