package wire

import (
	"context"
	"encoding/binary"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

// The COPY sub-protocol, as in PostgreSQL 15. It runs inside a simple Query
// or an extended-protocol Execute of a statement whose Copy is set.
//
// COPY … FROM STDIN:
//
//	server: CopyInResponse                 (sent when the engine first reads)
//	client: CopyData* then CopyDone | CopyFail  (Flush and Sync are ignored)
//	server: CommandComplete | ErrorResponse
//
// COPY … TO STDOUT:
//
//	server: CopyOutResponse CopyData* CopyDone CommandComplete
//	   or:  [CopyOutResponse CopyData*] ErrorResponse
//
// The response messages are sent once the engine starts reading or writing
// (or finishes), so an error it finds before the data, such as an aborted
// transaction, comes as a plain ErrorResponse without entering copy mode, as
// in PostgreSQL. Once the client is in copy-in mode the server reads its
// data up to CopyDone or CopyFail before it answers, also when the engine
// stopped early, so the connection stays in step. (PostgreSQL answers an
// error at once and then ignores copy messages; to the client the result is
// the same.) Any other message during copy-in is a protocol violation and
// ends the connection.

// maxCopyDataChunk bounds the payload of one outgoing CopyData message.
const maxCopyDataChunk = 1 << 30

// copyFormat is the format part of CopyInResponse and CopyOutResponse: text
// (0) or binary (1), overall and for every column.
func copyFormat(info *engine.CopyInfo) (byte, []uint16) {
	var f byte
	if info.Binary {
		f = 1
	}
	codes := make([]uint16, info.Columns)
	for i := range codes {
		codes[i] = uint16(f)
	}
	return f, codes
}

// objectNotInPrerequisiteState is the SQLSTATE for running a finished
// COPY portal again.
const objectNotInPrerequisiteState = "55000"

// execCopy runs a COPY portal and ends with CommandComplete. A COPY portal
// runs once; executing it again is an error, as in PostgreSQL.
func (c *conn) execCopy(ctx context.Context, p *portal) error {
	if p.done {
		return pgerr.New(objectNotInPrerequisiteState, "portal %q cannot be run", p.name)
	}
	p.done = true
	var tag string
	var err error
	if p.stmt.st.Copy.In {
		tag, err = c.copyIn(ctx, p.stmt.st)
	} else {
		tag, err = c.copyOut(ctx, p.stmt.st)
	}
	c.sendNotices()
	if err != nil {
		return err
	}
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}

// copyIn runs COPY … FROM STDIN and returns its tag.
func (c *conn) copyIn(ctx context.Context, st *engine.Statement) (string, error) {
	r := &copyInReader{c: c, ctx: ctx, info: st.Copy}
	tag, err := c.sess.CopyIn(ctx, st, r)
	if r.connErr != nil {
		return "", r.connErr
	}
	if !r.started {
		if err != nil {
			// Failed before the copy began: the client never entered copy
			// mode, and whatever it sent anyway is ignored by dispatch.
			return "", err
		}
		if err := r.start(); err != nil {
			return "", err
		}
	}
	if err := r.drain(); err != nil {
		return "", err
	}
	switch {
	case r.failDelivered:
		// The engine stopped at the client's CopyFail; report that, however
		// the engine wrapped it.
		return "", r.end
	case err != nil:
		return "", err
	case r.end != io.EOF:
		// CopyFail after the engine finished without reading to the end.
		return "", r.end
	}
	return tag, nil
}

// copyInReader hands the client's CopyData payloads to the engine. It reads
// one message header at a time and streams each body straight from the
// connection's buffered reader into the caller's p, so memory stays bounded
// however large the COPY or its messages are.
type copyInReader struct {
	c    *conn
	ctx  context.Context
	info *engine.CopyInfo

	started bool
	remain  int   // unread bytes of the current CopyData body
	end     error // io.EOF after CopyDone, the 57014 error after CopyFail
	// failDelivered is set once Read returned the CopyFail error.
	failDelivered bool
	// connErr ends the connection: a lost connection or a protocol violation.
	connErr error
}

var _ io.Reader = (*copyInReader)(nil)

// start sends CopyInResponse; the client then begins sending data.
func (r *copyInReader) start() error {
	r.started = true
	f, codes := copyFormat(r.info)
	r.c.send(&pgproto3.CopyInResponse{OverallFormat: f, ColumnFormatCodes: codes})
	if err := r.c.flush(); err != nil {
		r.connErr = err
	}
	return r.connErr
}

func (r *copyInReader) Read(p []byte) (int, error) {
	if r.connErr != nil {
		return 0, r.connErr
	}
	if !r.started {
		if err := r.start(); err != nil {
			return 0, err
		}
	}
	if len(p) == 0 {
		return 0, nil
	}
	for r.remain == 0 {
		if r.end != nil {
			if r.end != io.EOF {
				r.failDelivered = true
			}
			return 0, r.end
		}
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		if err := r.next(); err != nil {
			return 0, err
		}
	}
	n := min(len(p), r.remain)
	if err := r.c.rd.readFull(p[:n]); err != nil {
		r.connErr = err
		return 0, err
	}
	r.remain -= n
	return n, nil
}

// next reads the next message header of the copy-in stream and handles
// every message but CopyData, whose body Read streams.
func (r *copyInReader) next() error {
	rd := r.c.rd
	typ, n, err := rd.readHeader()
	if err == nil {
		switch typ {
		case 'd': // CopyData
			r.remain = n
		case 'c': // CopyDone
			r.end = io.EOF
			err = rd.skip(n)
		case 'f': // CopyFail
			var body []byte
			if body, err = rd.readBody(n); err == nil {
				var m pgproto3.FrontendMessage
				if m, err = decodeFrontend(typ, body); err == nil {
					r.end = pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.(*pgproto3.CopyFail).Message)
				}
			}
		case 'H', 'S':
			// Ignored, for clients that send them without noticing that
			// their statement was a COPY (libpq does).
			err = rd.skip(n)
		default:
			// As PostgreSQL: an ERROR naming the message, then a FATAL,
			// since the message's body is not read.
			r.c.send(errorResponse(pgerr.New(pgerr.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", typ)))
			err = protocolViolation("terminating connection because protocol synchronization was lost")
		}
	}
	if err != nil {
		r.connErr = unexpectedEOF(err)
	}
	return r.connErr
}

// drain discards the client's data up to its CopyDone or CopyFail.
func (r *copyInReader) drain() error {
	for r.end == nil {
		if r.remain > 0 {
			if err := r.c.rd.skip(r.remain); err != nil {
				r.connErr = err
				return err
			}
			r.remain = 0
		}
		if err := r.next(); err != nil {
			return err
		}
	}
	return nil
}

// copyOut runs COPY … TO STDOUT and returns its tag.
func (c *conn) copyOut(ctx context.Context, st *engine.Statement) (string, error) {
	w := &copyOutWriter{c: c, info: st.Copy}
	tag, err := c.sess.CopyOut(ctx, st, w)
	if w.err != nil {
		return "", w.err
	}
	if err != nil {
		// ErrorResponse also ends copy-out mode on the client.
		return "", err
	}
	w.start()
	c.send(&pgproto3.CopyDone{})
	return tag, nil
}

// copyOutWriter sends each Write as a CopyData message, buffered and
// flushed like DataRows.
type copyOutWriter struct {
	c       *conn
	info    *engine.CopyInfo
	started bool
	err     error // a failed flush: the connection is gone
}

var _ io.Writer = (*copyOutWriter)(nil)

// start sends CopyOutResponse before the first data, once.
func (w *copyOutWriter) start() {
	if w.started {
		return
	}
	w.started = true
	f, codes := copyFormat(w.info)
	w.c.send(&pgproto3.CopyOutResponse{OverallFormat: f, ColumnFormatCodes: codes})
}

func (w *copyOutWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.start()
	c := w.c
	for rest := p; len(rest) > 0; {
		chunk := rest[:min(len(rest), maxCopyDataChunk)]
		rest = rest[len(chunk):]
		c.out = append(c.out, 'd')
		c.out = binary.BigEndian.AppendUint32(c.out, uint32(len(chunk)+4))
		c.out = append(c.out, chunk...)
		if err := c.maybeFlush(); err != nil {
			w.err = err
			return 0, err
		}
	}
	return len(p), nil
}
