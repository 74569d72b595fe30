package scram

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/loamdb/loam/pgerr"
)

// The server's side of the exchange, as PostgreSQL runs it: the user name
// in the client's message is ignored (the startup packet's counts),
// channel binding is not offered, and it goes
//
//	S: AuthenticationSASL ["SCRAM-SHA-256"]
//	C: SASLInitialResponse  client-first  = gs2-header client-first-bare
//	                        gs2-header    = ("n" | "y") "," [authzid] ","
//	                        client-first-bare = "n=" user ",r=" cnonce
//	S: AuthenticationSASLContinue server-first = "r=" cnonce snonce ",s=" salt ",i=" iter
//	C: SASLResponse client-final = "c=" b64(gs2-header) ",r=" nonce ",p=" b64(proof)
//	S: AuthenticationSASLFinal "v=" b64(ServerSignature)
const (
	nonceLen = 18
	keyLen   = sha256.Size
)

// Exchange is the server's state in one authentication.
type Exchange struct {
	v    *Verifier
	mock bool // no real verifier: the exchange runs and then fails

	gs2, bare, nonce, serverFirst string
}

// NewExchange starts an exchange that checks the client's proof against v.
func NewExchange(v *Verifier) *Exchange { return &Exchange{v: v} }

// MockExchange starts an exchange for a role that does not exist or has no
// password: like PostgreSQL, the server goes through the motions with a
// salt derived from the user name and secret (so that probing names gives
// the same answers as for a real role) and fails at the end.
func MockExchange(user string, secret []byte) *Exchange {
	h := sha256.New()
	h.Write([]byte(user))
	h.Write(secret)
	salt := h.Sum(nil)[:SaltLen]
	return &Exchange{v: &Verifier{Iterations: Iterations, Salt: salt,
		StoredKey: make([]byte, keyLen), ServerKey: make([]byte, keyLen)}, mock: true}
}

// ErrMalformed is a client message that is not SCRAM.
var ErrMalformed = protocolViolation("malformed SCRAM message")

func protocolViolation(format string, args ...any) *pgerr.Error {
	e := pgerr.New(pgerr.ProtocolViolation, format, args...)
	e.Severity = "FATAL"
	return e
}

// ServerFirst takes client-first and returns server-first.
func (e *Exchange) ServerFirst(clientFirst string) (string, error) {
	gs2, bare, cnonce, err := ParseClientFirst(clientFirst)
	if err != nil {
		return "", err
	}
	nb := make([]byte, nonceLen)
	if _, err := rand.Read(nb); err != nil {
		return "", fmt.Errorf("scram: nonce: %w", err)
	}
	e.gs2, e.bare = gs2, bare
	e.nonce = cnonce + base64.StdEncoding.EncodeToString(nb)
	e.serverFirst = fmt.Sprintf("r=%s,s=%s,i=%d", e.nonce, base64.StdEncoding.EncodeToString(e.v.Salt), e.v.Iterations)
	return e.serverFirst, nil
}

// ServerFinal takes client-final and returns server-final when the
// client's proof holds; ok is false when it does not (the password was
// wrong, or the exchange was a mock one). err is a malformed message.
func (e *Exchange) ServerFinal(clientFinal string) (serverFinal string, ok bool, err error) {
	if e.serverFirst == "" {
		return "", false, ErrMalformed
	}
	withoutProof, proof, err := ParseClientFinal(clientFinal, e.gs2, e.nonce)
	if err != nil {
		return "", false, err
	}
	auth := e.bare + "," + e.serverFirst + "," + withoutProof
	if e.mock || !e.v.VerifyProof(auth, proof) {
		return "", false, nil
	}
	return "v=" + base64.StdEncoding.EncodeToString(e.v.ServerSignature(auth)), true, nil
}

// VerifyProof checks a client proof over authMessage: the proof XOR the
// client signature must be a ClientKey whose hash is StoredKey.
func (v *Verifier) VerifyProof(authMessage string, proof []byte) bool {
	sig := HMAC(v.StoredKey, authMessage)
	if len(proof) != len(sig) {
		return false
	}
	clientKey := make([]byte, len(sig))
	for i := range sig {
		clientKey[i] = proof[i] ^ sig[i]
	}
	got := sha256.Sum256(clientKey)
	return subtle.ConstantTimeCompare(got[:], v.StoredKey) == 1
}

// ServerSignature is what the server sends to prove it knows the verifier.
func (v *Verifier) ServerSignature(authMessage string) []byte {
	return HMAC(v.ServerKey, authMessage)
}

// ParseClientFirst splits client-first into its gs2 header and bare part
// and returns the client nonce.
func ParseClientFirst(msg string) (gs2, bare, nonce string, err error) {
	switch {
	case strings.HasPrefix(msg, "p="):
		return "", "", "", protocolViolation("channel binding is not supported")
	case strings.HasPrefix(msg, "n,"), strings.HasPrefix(msg, "y,"):
	default:
		return "", "", "", ErrMalformed
	}
	i := strings.IndexByte(msg[2:], ',')
	if i < 0 {
		return "", "", "", ErrMalformed
	}
	if authz := msg[2 : 2+i]; authz != "" && !strings.HasPrefix(authz, "a=") {
		return "", "", "", ErrMalformed
	}
	gs2, bare = msg[:2+i+1], msg[2+i+1:]
	attrs := strings.Split(bare, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") {
		return "", "", "", ErrMalformed
	}
	nonce = attrs[1][2:]
	if nonce == "" || strings.ContainsFunc(nonce, func(r rune) bool { return r < 0x21 || r > 0x7e || r == ',' }) {
		return "", "", "", ErrMalformed
	}
	return gs2, bare, nonce, nil
}

// ParseClientFinal checks client-final against the exchange so far and
// returns the message without its proof, and the decoded proof.
func ParseClientFinal(msg, gs2, nonce string) (string, []byte, error) {
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return "", nil, ErrMalformed
	}
	withoutProof := msg[:i]
	proof, err := base64.StdEncoding.DecodeString(msg[i+3:])
	if err != nil || len(proof) != keyLen {
		return "", nil, ErrMalformed
	}
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return "", nil, ErrMalformed
	}
	cb, err := base64.StdEncoding.DecodeString(attrs[0][2:])
	if err != nil || string(cb) != gs2 {
		return "", nil, protocolViolation("SCRAM channel binding check failed")
	}
	if attrs[1][2:] != nonce {
		return "", nil, protocolViolation("SCRAM nonce mismatch")
	}
	return withoutProof, proof, nil
}
