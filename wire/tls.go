package wire

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"os"
)

// startTLS answers an SSLRequest with 'S' and runs the TLS handshake;
// messages are read and written through TLS from then on. The read
// deadline of the startup phase bounds the handshake too.
func (c *conn) startTLS() error {
	if c.rd.r.Buffered() > 0 {
		// Bytes sent after the SSLRequest before the answer would be
		// read as if they had been encrypted (CVE-2021-23214).
		return protocolViolation("received unencrypted data after SSL request")
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return &ioError{err}
	}
	tc := tls.Server(c.nc, c.srv.cfg.TLS)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		c.log.Info("TLS handshake failed", "err", err)
		return &ioError{fmt.Errorf("TLS handshake: %w", err)}
	}
	c.w, c.tls = tc, true
	c.rd = newMsgReader(bufio.NewReaderSize(tc, 16<<10), c.srv.cfg.MaxMessageSize)
	return nil
}

// LoadTLS reads a PEM certificate (chain) and key for Config.TLS. Clients
// of PostgreSQL expect TLS 1.2 or later.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	if _, err := os.Stat(keyFile); err != nil {
		return nil, fmt.Errorf("TLS key: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
