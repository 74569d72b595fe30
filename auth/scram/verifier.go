// Package scram holds SCRAM-SHA-256 verifiers (RFC 5802, RFC 7677) in
// PostgreSQL's text form, and the server's side of the exchange. A role's
// password is stored only as a verifier: what the server needs to check a
// client's proof (StoredKey) and prove itself (ServerKey), never the
// password or anything a client could log in with.
//
// The text form is PostgreSQL's pg_authid.rolpassword:
//
//	SCRAM-SHA-256$<iterations>:<base64 salt>$<base64 StoredKey>:<base64 ServerKey>
//
// so verifiers move between PostgreSQL and Loam as they are (ALTER ROLE …
// PASSWORD 'SCRAM-SHA-256$…' takes one pre-hashed).
package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

const (
	// Mechanism is the SASL mechanism name.
	Mechanism = "SCRAM-SHA-256"
	// Iterations is PostgreSQL's scram_iterations default.
	Iterations = 4096
	// SaltLen is PostgreSQL's SCRAM_DEFAULT_SALT_LEN.
	SaltLen = 16
	keyLen  = sha256.Size
)

// Verifier is a SCRAM-SHA-256 secret derived from a password.
type Verifier struct {
	Iterations int
	Salt       []byte
	StoredKey  []byte // H(ClientKey)
	ServerKey  []byte // HMAC(SaltedPassword, "Server Key")
}

// New derives a verifier for password with a random salt and the default
// iteration count.
func New(password string) (*Verifier, error) {
	salt := make([]byte, SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, fmt.Errorf("scram: salt: %w", err)
	}
	return Derive(password, salt, Iterations)
}

// Derive derives the verifier for password with the given salt and
// iteration count.
func Derive(password string, salt []byte, iterations int) (*Verifier, error) {
	salted, err := saltedPassword(password, salt, iterations)
	if err != nil {
		return nil, err
	}
	stored := sha256.Sum256(hmacSHA256(salted, "Client Key"))
	return &Verifier{Iterations: iterations, Salt: salt, StoredKey: stored[:],
		ServerKey: hmacSHA256(salted, "Server Key")}, nil
}

func saltedPassword(password string, salt []byte, iterations int) ([]byte, error) {
	if iterations <= 0 {
		return nil, fmt.Errorf("scram: iteration count %d must be positive", iterations)
	}
	k, err := pbkdf2.Key(sha256.New, password, salt, iterations, keyLen)
	if err != nil {
		return nil, fmt.Errorf("scram: deriving the salted password: %w", err)
	}
	return k, nil
}

// String is PostgreSQL's text form.
func (v *Verifier) String() string {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("%s$%d:%s$%s:%s", Mechanism, v.Iterations, b64(v.Salt), b64(v.StoredKey), b64(v.ServerKey))
}

// Parse reads PostgreSQL's text form.
func Parse(text string) (*Verifier, error) {
	rest, ok := strings.CutPrefix(text, Mechanism+"$")
	if !ok {
		return nil, fmt.Errorf("scram: not a %s verifier", Mechanism)
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return nil, fmt.Errorf("scram: verifier lacks its keys")
	}
	iterText, saltText, ok1 := strings.Cut(iterSalt, ":")
	storedText, serverText, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("scram: malformed verifier")
	}
	iter, err := strconv.Atoi(iterText)
	if err != nil || iter <= 0 {
		return nil, fmt.Errorf("scram: invalid iteration count %q", iterText)
	}
	dec := base64.StdEncoding.DecodeString
	salt, err := dec(saltText)
	if err != nil || len(salt) == 0 {
		return nil, fmt.Errorf("scram: invalid salt")
	}
	stored, err := dec(storedText)
	if err != nil || len(stored) != keyLen {
		return nil, fmt.Errorf("scram: invalid StoredKey")
	}
	server, err := dec(serverText)
	if err != nil || len(server) != keyLen {
		return nil, fmt.Errorf("scram: invalid ServerKey")
	}
	return &Verifier{Iterations: iter, Salt: salt, StoredKey: stored, ServerKey: server}, nil
}

// IsVerifier reports whether text is a SCRAM-SHA-256 verifier in
// PostgreSQL's form, as PostgreSQL decides whether ALTER ROLE … PASSWORD
// was given a password or a pre-hashed secret.
func IsVerifier(text string) bool {
	_, err := Parse(text)
	return err == nil
}

// VerifyPassword reports whether password is the one v was derived from:
// the check of the cleartext "password" method.
func (v *Verifier) VerifyPassword(password string) bool {
	salted, err := saltedPassword(password, v.Salt, v.Iterations)
	if err != nil {
		return false
	}
	stored := sha256.Sum256(hmacSHA256(salted, "Client Key"))
	server := hmacSHA256(salted, "Server Key")
	return subtle.ConstantTimeCompare(stored[:], v.StoredKey) == 1 &&
		subtle.ConstantTimeCompare(server, v.ServerKey) == 1
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
