package rest

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ClientID is the OAuth2 client id of the token endpoint; the secret is the
// server's password.
//
// Tokens are not tied to roles yet: any holder may do anything, as the
// password's holder may on the wire. Once Loam has roles (issue 17) the
// client id will name a role and a token will carry its grants.
const ClientID = "loam"

// tokenExchange is RFC 8693's grant type.
const tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"

// tokens are the bearer tokens issued, random and held in memory until
// they expire (a restart forgets them; clients fetch new ones on 401).
type tokens struct {
	mu sync.Mutex
	m  map[string]time.Time // token → expiry
}

func newTokens() *tokens { return &tokens{m: map[string]time.Time{}} }

func (t *tokens) issue(ttl time.Duration) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, exp := range t.m { // forget the expired ones
		if now.After(exp) {
			delete(t.m, k)
		}
	}
	t.m[tok] = now.Add(ttl)
	return tok, nil
}

// check accepts an Authorization header carrying a live token.
func (t *tokens) check(header string) error {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return errorf(http.StatusUnauthorized, typeNotAuthorized, "a bearer token is required: POST /v1/oauth/tokens with client_id %q and the server's password", ClientID)
	}
	t.mu.Lock()
	exp, found := t.m[strings.TrimSpace(tok)]
	t.mu.Unlock()
	if !found || time.Now().After(exp) {
		return errorf(http.StatusUnauthorized, typeNotAuthorized, "the bearer token is unknown or expired")
	}
	return nil
}

// issueToken is POST /v1/oauth/tokens, the client-credentials grant: form
// fields grant_type=client_credentials, client_id, client_secret (or HTTP
// Basic auth), scope; or a token exchange of a live token (subject_token)
// for a fresh one. Errors are OAuth2's ({"error", "error_description"}),
// which OAuth2 clients parse.
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
	switch gt := r.Form.Get("grant_type"); gt {
	case "client_credentials":
		id, secret := r.Form.Get("client_id"), r.Form.Get("client_secret")
		if bid, bsecret, ok := r.BasicAuth(); ok {
			id, secret = bid, bsecret
		}
		if s.opts.Password != "" && (id != ClientID ||
			subtle.ConstantTimeCompare([]byte(secret), []byte(s.opts.Password)) != 1) {
			oauthErr(http.StatusUnauthorized, "invalid_client", "client_id must be "+ClientID+" and client_secret the server's password")
			return
		}
	case tokenExchange:
		// Iceberg's Java client refreshes a token by exchanging it for a
		// new one: a live token buys another.
		if s.opts.Password != "" {
			if err := s.tokens.check("Bearer " + r.Form.Get("subject_token")); err != nil {
				oauthErr(http.StatusUnauthorized, "invalid_grant", "the subject_token is unknown or expired")
				return
			}
		}
	default:
		oauthErr(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be client_credentials or token exchange, not "+gt)
		return
	}
	tok, err := s.tokens.issue(s.opts.TokenTTL)
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
