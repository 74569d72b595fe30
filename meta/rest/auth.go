package rest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loamdb/loam/meta"
)

// ClientID is the OAuth2 client id of the bootstrap superuser; any role
// with LOGIN and a password is a client too (client_id the role's name,
// client_secret its password), and a token acts as that role.
const ClientID = meta.BootstrapRole

// tokenExchange is RFC 8693's grant type.
const tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"

// tokens are the bearer tokens issued, random and held in memory until
// they expire (a restart forgets them; clients fetch new ones on 401).
type tokens struct {
	mu sync.Mutex
	m  map[string]issued
}

// issued is a live token: the role it acts as, until when.
type issued struct {
	role string
	exp  time.Time
}

func newTokens() *tokens { return &tokens{m: map[string]issued{}} }

func (t *tokens) issue(role string, ttl time.Duration) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, it := range t.m { // forget the expired ones
		if now.After(it.exp) {
			delete(t.m, k)
		}
	}
	t.m[tok] = issued{role: role, exp: now.Add(ttl)}
	return tok, nil
}

// check accepts an Authorization header carrying a live token and
// returns the role it acts as.
func (t *tokens) check(header string) (string, error) {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", errorf(http.StatusUnauthorized, typeNotAuthorized,
			"a bearer token is required: POST /v1/oauth/tokens with client_id a role with LOGIN and client_secret its password")
	}
	t.mu.Lock()
	it, found := t.m[strings.TrimSpace(tok)]
	t.mu.Unlock()
	if !found || time.Now().After(it.exp) {
		return "", errorf(http.StatusUnauthorized, typeNotAuthorized, "the bearer token is unknown or expired")
	}
	return it.role, nil
}

// issueToken is POST /v1/oauth/tokens, the client-credentials grant: form
// fields grant_type=client_credentials, client_id (a role), client_secret
// (its password) or HTTP Basic auth, scope; or a token exchange of a live
// token (subject_token) for a fresh one of the same role. Errors are
// OAuth2's ({"error", "error_description"}), which OAuth2 clients parse.
func (s *Server) issueToken(w http.ResponseWriter, r *http.Request) {
	oauthErr := func(code int, kind, desc string) {
		_ = writeJSON(w, code, map[string]string{"error": kind, "error_description": desc})
	}
	if err := r.ParseForm(); err != nil {
		oauthErr(http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	// Form, not PostForm: ClickHouse sends the fields as URL query
	// parameters unless told the token endpoint.
	var role string
	switch gt := r.Form.Get("grant_type"); gt {
	case "client_credentials":
		var err error
		id, secret := r.Form.Get("client_id"), r.Form.Get("client_secret")
		if bid, bsecret, ok := r.BasicAuth(); ok {
			id, secret = bid, bsecret
		}
		if role, err = s.login(r, id, secret); errors.Is(err, errLogin) {
			oauthErr(http.StatusUnauthorized, "invalid_client", err.Error())
			return
		} else if err != nil {
			oauthErr(http.StatusInternalServerError, "server_error", err.Error())
			return
		}
	case tokenExchange:
		// Iceberg's Java client refreshes a token by exchanging it for a
		// new one: a live token buys another for its role. Trusted
		// clients (loopback, no --password) get the bootstrap role's.
		var err error
		if role, err = s.tokens.check("Bearer " + r.Form.Get("subject_token")); err != nil {
			if !s.trusted(r) {
				oauthErr(http.StatusUnauthorized, "invalid_grant", "the subject_token is unknown or expired")
				return
			}
			role = meta.BootstrapRole
		}
	default:
		oauthErr(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be client_credentials or token exchange, not "+gt)
		return
	}
	tok, err := s.tokens.issue(role, s.opts.TokenTTL)
	if err != nil {
		oauthErr(http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	_ = writeJSON(w, http.StatusOK, map[string]any{
		"access_token":      tok,
		"token_type":        "bearer",
		"expires_in":        int(s.opts.TokenTTL / time.Second),
		"issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
	})
}
