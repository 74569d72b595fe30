package wire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// SCRAM-SHA-256 server side (RFC 5802, RFC 7677), as PostgreSQL does it:
// the user name in the client's message is ignored (the startup packet's
// user counts), channel binding is not offered, and the exchange is
//
//	S: AuthenticationSASL ["SCRAM-SHA-256"]
//	C: SASLInitialResponse  client-first  = gs2-header client-first-bare
//	                        gs2-header    = ("n" | "y") "," [authzid] ","
//	                        client-first-bare = "n=" user ",r=" cnonce
//	S: AuthenticationSASLContinue server-first = "r=" cnonce snonce ",s=" salt ",i=" iter
//	C: SASLResponse client-final = "c=" b64(gs2-header) ",r=" nonce ",p=" b64(proof)
//	S: AuthenticationSASLFinal "v=" b64(ServerSignature), then AuthenticationOk
const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 4096
	scramSaltLen    = 16
	scramNonceLen   = 18
)

// scramSecret is the stored verifier, derived once from the password.
type scramSecret struct {
	salt      []byte
	iter      int
	storedKey []byte
	serverKey []byte
}

func newSCRAMSecret(password string) (*scramSecret, error) {
	salt := make([]byte, scramSaltLen)
	_, _ = rand.Read(salt)
	return deriveSCRAMSecret(password, salt, scramIterations)
}

func deriveSCRAMSecret(password string, salt []byte, iter int) (*scramSecret, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("wire: deriving SCRAM key: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return &scramSecret{salt: salt, iter: iter, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key")}, nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

var errMalformedSCRAM = protocolViolation("malformed SCRAM message")

func (c *conn) authSCRAM(user string) error {
	sec := c.srv.scram
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	body, err := c.readPasswordMessage()
	if err != nil {
		return err
	}
	var first pgproto3.SASLInitialResponse
	if err := first.Decode(body); err != nil {
		return errMalformedSCRAM
	}
	if first.AuthMechanism != scramMechanism {
		return protocolViolation("client selected an invalid SASL authentication mechanism")
	}
	gs2, bare, cnonce, err := parseClientFirst(string(first.Data))
	if err != nil {
		return err
	}
	nb := make([]byte, scramNonceLen)
	_, _ = rand.Read(nb)
	nonce := cnonce + base64.StdEncoding.EncodeToString(nb)
	serverFirst := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(sec.salt), sec.iter)
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})

	body, err = c.readPasswordMessage()
	if err != nil {
		return err
	}
	var final pgproto3.SASLResponse
	if err := final.Decode(body); err != nil {
		return errMalformedSCRAM
	}
	withoutProof, proof, err := parseClientFinal(string(final.Data), gs2, nonce)
	if err != nil {
		return err
	}
	authMessage := bare + "," + serverFirst + "," + withoutProof
	sig := hmacSHA256(sec.storedKey, authMessage)
	clientKey := make([]byte, len(sig))
	for i := range sig {
		clientKey[i] = proof[i] ^ sig[i]
	}
	got := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(got[:], sec.storedKey) != 1 {
		c.log.Info("password authentication failed", "user", user, "method", "scram-sha-256")
		return authFailed(user)
	}
	serverSig := hmacSHA256(sec.serverKey, authMessage)
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(serverSig))})
	return nil
}

// parseClientFirst splits client-first into its gs2 header and bare part
// and returns the client nonce.
func parseClientFirst(msg string) (gs2, bare, nonce string, err error) {
	switch {
	case strings.HasPrefix(msg, "p="):
		return "", "", "", protocolViolation("channel binding is not supported")
	case strings.HasPrefix(msg, "n,"), strings.HasPrefix(msg, "y,"):
	default:
		return "", "", "", errMalformedSCRAM
	}
	i := strings.IndexByte(msg[2:], ',')
	if i < 0 {
		return "", "", "", errMalformedSCRAM
	}
	if authz := msg[2 : 2+i]; authz != "" && !strings.HasPrefix(authz, "a=") {
		return "", "", "", errMalformedSCRAM
	}
	gs2, bare = msg[:2+i+1], msg[2+i+1:]
	attrs := strings.Split(bare, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") {
		return "", "", "", errMalformedSCRAM
	}
	nonce = attrs[1][2:]
	if nonce == "" || strings.ContainsFunc(nonce, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return "", "", "", errMalformedSCRAM
	}
	return gs2, bare, nonce, nil
}

// parseClientFinal checks client-final against the exchange so far and
// returns the message without its proof, and the decoded proof.
func parseClientFinal(msg, gs2, nonce string) (string, []byte, error) {
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return "", nil, errMalformedSCRAM
	}
	withoutProof := msg[:i]
	proof, err := base64.StdEncoding.DecodeString(msg[i+3:])
	if err != nil || len(proof) != sha256.Size {
		return "", nil, errMalformedSCRAM
	}
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return "", nil, errMalformedSCRAM
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
