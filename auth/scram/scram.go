// Package scram holds SCRAM-SHA-256 verifiers (RFC 5802, RFC 7677) in
// PostgreSQL's text form, SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>
// (base64), which is what a role stores instead of its password, and
// (exchange.go) the server's side of a SCRAM-SHA-256 authentication.
package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Mechanism is the SASL mechanism name.
const Mechanism = "SCRAM-SHA-256"

// Iterations and SaltLen are PostgreSQL's defaults.
const (
	Iterations = 4096
	SaltLen    = 16
)

// Verifier is what the server keeps to check a password.
type Verifier struct {
	Iterations int
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
}

// New derives a verifier for password with a fresh salt.
func New(password string) (*Verifier, error) {
	salt := make([]byte, SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, fmt.Errorf("scram: salt: %w", err)
	}
	return Derive(password, salt, Iterations)
}

// Derive is the verifier of password with the given salt and iterations.
func Derive(password string, salt []byte, iter int) (*Verifier, error) {
	salted, err := pbkdf2.Key(sha256.New, saslprep(password), salt, iter, sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("scram: deriving key: %w", err)
	}
	stored := sha256.Sum256(HMAC(salted, "Client Key"))
	return &Verifier{Iterations: iter, Salt: salt, StoredKey: stored[:], ServerKey: HMAC(salted, "Server Key")}, nil
}

// HMAC is HMAC-SHA-256 of msg under key.
func HMAC(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// String is the verifier in PostgreSQL's text form.
func (v *Verifier) String() string {
	b := base64.StdEncoding
	return fmt.Sprintf("%s$%d:%s$%s:%s", Mechanism, v.Iterations, b.EncodeToString(v.Salt),
		b.EncodeToString(v.StoredKey), b.EncodeToString(v.ServerKey))
}

var errFormat = errors.New("scram: not a SCRAM-SHA-256 verifier")

// IsVerifier reports whether s is a verifier in PostgreSQL's text form
// (as ALTER ROLE … PASSWORD takes a pre-hashed secret).
func IsVerifier(s string) bool {
	_, err := Parse(s)
	return err == nil
}

// Parse reads a verifier in PostgreSQL's text form.
func Parse(s string) (*Verifier, error) {
	rest, ok := strings.CutPrefix(s, Mechanism+"$")
	if !ok {
		return nil, errFormat
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return nil, errFormat
	}
	iterText, saltText, ok1 := strings.Cut(iterSalt, ":")
	storedText, serverText, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return nil, errFormat
	}
	iter, err := strconv.Atoi(iterText)
	if err != nil || iter <= 0 {
		return nil, errFormat
	}
	b := base64.StdEncoding
	salt, err1 := b.DecodeString(saltText)
	stored, err2 := b.DecodeString(storedText)
	server, err3 := b.DecodeString(serverText)
	if err1 != nil || err2 != nil || err3 != nil || len(salt) == 0 || len(stored) != sha256.Size || len(server) != sha256.Size {
		return nil, errFormat
	}
	return &Verifier{Iterations: iter, Salt: salt, StoredKey: stored, ServerKey: server}, nil
}

// VerifyPassword reports whether password is the one v was derived from.
func (v *Verifier) VerifyPassword(password string) bool {
	w, err := Derive(password, v.Salt, v.Iterations)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(w.StoredKey, v.StoredKey) == 1 && subtle.ConstantTimeCompare(w.ServerKey, v.ServerKey) == 1
}
