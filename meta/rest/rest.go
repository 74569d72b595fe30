// Package rest serves the Iceberg REST catalog API (apache/iceberg's
// open-api/rest-catalog-open-api.yaml) over a meta.Store, so that Spark,
// Trino, DuckDB, PyIceberg or iceberg-go find, read and (for external
// tables) commit Loam's tables with nothing but a URI and, for an s3://
// warehouse, the storage settings the load-table result vends.
//
// Routes have no prefix: the catalog URI is the HTTP listener's address
// and every route is under /v1/. Namespaces are one level deep, as in the
// Store; a nested namespace in a path or body is answered 404 or 400.
//
// One writer per table: a table Loam writes (its settings say writer ""
// or "loam") takes no commits from outside; a table created WITH (writer
// = 'external') or through this API (settings writer "external", or no
// settings row at all) takes them, and Loam only reads it.
package rest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/loamdb/loam/meta"
)

// Options configure a Server.
type Options struct {
	// Password, when set (the server's --password), makes every /v1
	// route but the token endpoint require a bearer token from POST
	// /v1/oauth/tokens: client_id a role with LOGIN, client_secret its
	// password. It is the bootstrap role's password while the Store
	// holds no verifier for it. Empty: loopback clients are trusted
	// (without a token they act as the bootstrap superuser) and others
	// need a token, as on the wire port.
	Password string
	// NoLoopbackTrust trusts loopback clients without --password no
	// more (the server's connection rules are a pg_hba file, which the
	// catalog does not read): every request needs a token.
	NoLoopbackTrust bool
	// Authorizer decides each request's privileges (authz.go); nil: the
	// built-in one over the Store. Pass the engine's, so SQL and the
	// catalog share one.
	Authorizer meta.Authorizer
	// TableConfig is vended in every load-table result's config (the S3
	// endpoint, region and credentials of an s3:// warehouse, as
	// iceberg-go names them), so a reader needs nothing else; the server
	// writes metadata files with it too. Empty for a file:// warehouse.
	TableConfig map[string]string
	// Warehouse is the warehouse URL: a staged create (stage-create)
	// places a table without a location under it, as a plain create does.
	Warehouse string
	// TokenTTL is how long an issued token is good for; 0: one hour.
	TokenTTL time.Duration
	Logger   *slog.Logger
}

// Server is the REST catalog, an http.Handler for /v1/.
type Server struct {
	st     meta.Store
	authz  meta.Authorizer
	opts   Options
	log    *slog.Logger
	tokens *tokens
	mux    *http.ServeMux
	mds    metadataCache
}

// New builds the catalog over st.
func New(st meta.Store, opts Options) *Server {
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = time.Hour
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Authorizer == nil {
		opts.Authorizer = meta.NewAuthorizer(st)
	}
	s := &Server{st: st, authz: opts.Authorizer, opts: opts, log: opts.Logger, tokens: newTokens(), mux: http.NewServeMux()}
	s.routes()
	return s
}

// endpoint is one route: the method and path template as the spec (and
// GET /v1/config's endpoints list) names it, and its handler.
type endpoint struct {
	method, path string
	h            func(http.ResponseWriter, *http.Request) error
}

func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{"GET", "/v1/{prefix}/namespaces", s.listNamespaces},
		{"POST", "/v1/{prefix}/namespaces", s.createNamespace},
		{"GET", "/v1/{prefix}/namespaces/{namespace}", s.loadNamespace},
		{"HEAD", "/v1/{prefix}/namespaces/{namespace}", s.namespaceExists},
		{"DELETE", "/v1/{prefix}/namespaces/{namespace}", s.dropNamespace},
		{"POST", "/v1/{prefix}/namespaces/{namespace}/properties", s.updateNamespaceProperties},
		{"GET", "/v1/{prefix}/namespaces/{namespace}/tables", s.listTables},
		{"POST", "/v1/{prefix}/namespaces/{namespace}/tables", s.createTable},
		{"GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", s.loadTable},
		{"HEAD", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", s.tableExists},
		{"POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", s.commitTable},
		{"DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", s.dropTable},
		{"POST", "/v1/{prefix}/tables/rename", s.renameTable},
		{"POST", "/v1/{prefix}/transactions/commit", s.commitTransaction},
		{"GET", "/v1/{prefix}/namespaces/{namespace}/views", s.listViews},
		{"POST", "/v1/{prefix}/namespaces/{namespace}/views", s.createView},
		{"GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}", s.loadView},
		{"HEAD", "/v1/{prefix}/namespaces/{namespace}/views/{view}", s.viewExists},
		{"POST", "/v1/{prefix}/namespaces/{namespace}/views/{view}", s.replaceView},
		{"DELETE", "/v1/{prefix}/namespaces/{namespace}/views/{view}", s.dropView},
		{"POST", "/v1/{prefix}/views/rename", s.renameView},
	}
}

// routes mounts the endpoints without the {prefix} segment: Loam serves one
// catalog, and GET /v1/config names no prefix.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /v1/config", s.wrap(s.config))
	s.mux.HandleFunc("POST /v1/oauth/tokens", s.issueToken)
	allow := map[string][]string{}
	for _, e := range s.endpoints() {
		p := stripPrefix(e.path)
		s.mux.HandleFunc(e.method+" "+p, s.wrap(e.h))
		allow[p] = append(allow[p], e.method)
	}
	// Another method on a known path is a 405 in the error model.
	for p, methods := range allow {
		s.mux.HandleFunc(p, s.wrap(func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Allow", strings.Join(methods, ", "))
			return errorf(http.StatusMethodNotAllowed, typeBadRequest, "%s is not served on %s", r.Method, r.URL.Path)
		}))
	}
	s.mux.HandleFunc("/v1/", s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusNotFound, "NotFoundException", "no route %s %s", r.Method, r.URL.Path)
	}))
}

func stripPrefix(p string) string {
	const pre = "/v1/{prefix}"
	return "/v1" + p[len(pre):]
}

// ServeHTTP finds the role the request acts as (authz.go), then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// One snapshot of roles and privileges serves the request's checks.
	r = r.WithContext(meta.WithAuthzScope(r.Context()))
	if r.URL.Path != "/v1/oauth/tokens" {
		role, err := s.authenticate(r)
		if err != nil {
			writeError(w, err)
			return
		}
		r = withRole(r, role)
	}
	s.mux.ServeHTTP(w, r)
}

// wrap turns a handler's error into the error model.
func (s *Server) wrap(h func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			if e := asAPIError(err); e.Code >= 500 {
				s.log.Warn("rest catalog", "method", r.Method, "path", r.URL.Path, "err", err)
			}
			writeError(w, err)
		}
	}
}

// config answers GET /v1/config: no defaults or overrides a client must
// take (no prefix), and the endpoints served. A warehouse the client names
// is ignored: the server has one.
func (s *Server) config(w http.ResponseWriter, r *http.Request) error {
	eps := []string{}
	for _, e := range s.endpoints() {
		eps = append(eps, e.method+" "+e.path)
	}
	return writeJSON(w, http.StatusOK, map[string]any{
		"defaults":  map[string]string{},
		"overrides": map[string]string{},
		"endpoints": eps,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	return nil
}

// decode reads a JSON request body into v; a malformed body is a 400.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 64<<20))
	if err := dec.Decode(v); err != nil {
		return errorf(http.StatusBadRequest, "BadRequestException", "malformed request body: %v", err)
	}
	return nil
}

// ctx is the request's context (a name for readability at call sites).
func ctx(r *http.Request) context.Context { return r.Context() }
