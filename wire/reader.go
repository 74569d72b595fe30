package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"

	"github.com/loamdb/loam/pgerr"
)

// Framing of frontend messages (protocol 3.0):
//
//	startup phase:  int32 length | body              (length counts itself, not the rest)
//	afterwards:     byte type | int32 length | body  (length counts itself, not the type byte)
//
// Lengths below 4 are malformed. A startup packet may be at most
// maxStartupPacket bytes (as in PostgreSQL); other messages at most the
// reader's max (DefaultMaxMessageSize unless configured).
const (
	// DefaultMaxMessageSize is PostgreSQL's PQ_LARGE_MESSAGE_LIMIT: 1 GiB.
	DefaultMaxMessageSize = 1 << 30
	maxStartupPacket      = 10000
	// bodies up to reuseLimit are read into a buffer the reader keeps;
	// bigger ones are allocated for the one message.
	reuseLimit = 64 << 10
	// readChunk caps how much is allocated ahead of bytes actually received,
	// so a forged length cannot make the server allocate 1 GiB up front.
	readChunk = 1 << 20
)

// msgReader reads frontend messages from a byte stream. The body a read
// returns is valid until the next read.
type msgReader struct {
	r   *bufio.Reader // buffered, so skipping a body discards in place
	hdr [5]byte
	buf []byte
	max int
}

func newMsgReader(r io.Reader, max int) *msgReader {
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	// The connection's reader is buffered already, and then used as is.
	return &msgReader{r: bufio.NewReaderSize(r, 16<<10), max: max}
}

// protocolViolation is the connection-ending error for malformed input.
func protocolViolation(format string, args ...any) *pgerr.Error {
	e := pgerr.New(pgerr.ProtocolViolation, format, args...)
	e.Severity = severityFatal
	return e
}

// readStartup reads one length-prefixed startup-phase packet.
func (m *msgReader) readStartup() ([]byte, error) {
	if _, err := io.ReadFull(m.r, m.hdr[:4]); err != nil {
		return nil, err
	}
	n := int64(int32(binary.BigEndian.Uint32(m.hdr[:4])))
	if n < 8 || n > maxStartupPacket {
		return nil, protocolViolation("invalid length of startup packet")
	}
	return m.readBody(int(n - 4))
}

// readMessage reads one typed message.
func (m *msgReader) readMessage() (byte, []byte, error) {
	typ, n, err := m.readHeader()
	if err != nil {
		return typ, nil, err
	}
	body, err := m.readBody(n)
	return typ, body, err
}

// readHeader reads a typed message's header and checks its length. It
// returns the body's length; the caller must consume exactly that many
// bytes next, with readBody, readFull or skip. COPY streams CopyData bodies
// this way rather than holding them in memory.
func (m *msgReader) readHeader() (typ byte, bodyLen int, err error) {
	if _, err := io.ReadFull(m.r, m.hdr[:5]); err != nil {
		return 0, 0, err
	}
	typ = m.hdr[0]
	n := int64(int32(binary.BigEndian.Uint32(m.hdr[1:5])))
	if n < 4 {
		return typ, 0, protocolViolation("invalid message length %d for message type %q", n, typ)
	}
	if n-4 > int64(m.max) {
		return typ, 0, protocolViolation("message of type %q is too large (%d bytes, limit %d)", typ, n, m.max)
	}
	return typ, int(n - 4), nil
}

// readFull reads len(p) bytes of a body whose header readHeader returned.
func (m *msgReader) readFull(p []byte) error {
	if _, err := io.ReadFull(m.r, p); err != nil {
		return unexpectedEOF(err)
	}
	return nil
}

// skip discards n bytes of a body whose header readHeader returned.
func (m *msgReader) skip(n int) error {
	_, err := m.r.Discard(n)
	return unexpectedEOF(err)
}

func (m *msgReader) readBody(n int) ([]byte, error) {
	if n <= reuseLimit {
		if cap(m.buf) < n {
			m.buf = make([]byte, n, reuseLimit)
		}
		b := m.buf[:n]
		if _, err := io.ReadFull(m.r, b); err != nil {
			return nil, unexpectedEOF(err)
		}
		return b, nil
	}
	// Large message: grow as bytes arrive.
	var b []byte
	for len(b) < n {
		step := min(n-len(b), max(len(b), readChunk))
		start := len(b)
		b = append(b, make([]byte, step)...)
		if _, err := io.ReadFull(m.r, b[start:]); err != nil {
			return nil, unexpectedEOF(err)
		}
	}
	return b, nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
