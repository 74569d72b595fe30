package wire

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// prepStmt is a prepared statement: the result of Parse (or of one statement
// of a simple query). st is nil for an empty query.
type prepStmt struct {
	name string
	st   *engine.Statement
}

// portal is a bound statement ready to execute. Its cursor opens on the
// first Execute; when Execute stops at its row limit the cursor and the
// partly sent batch stay here for the next Execute.
type portal struct {
	name    string
	stmt    *prepStmt
	params  []types.Datum
	formats []int16 // result format per column (nil = text)

	cursor Cursor
	enc    *rowEncoder
	batch  arrow.RecordBatch
	row    int // next row of batch to send
	done   bool
}

func (p *portal) close() {
	if p.cursor != nil {
		p.cursor.Close()
		p.cursor = nil
	}
	p.batch = nil
}

// deallocate drops the named prepared statement, or all the named ones
// (PostgreSQL keeps the unnamed statement through DEALLOCATE ALL), as SQL's
// DEALLOCATE and DISCARD ALL do: clients such as pgx prepare the same names
// again afterwards.
func (c *conn) deallocate(name string, all bool) error {
	if all {
		for n := range c.stmts {
			if n != "" {
				delete(c.stmts, n)
			}
		}
		return nil
	}
	if c.stmts[name] == nil {
		return pgerr.New(pgerr.UndefinedPreparedStatement, "prepared statement %q does not exist", name)
	}
	delete(c.stmts, name)
	return nil
}

// execPortal runs p, sending at most maxRows rows (0 = all). describe sends
// a RowDescription first, as the simple protocol does. It ends with
// CommandComplete, EmptyQueryResponse, or PortalSuspended when maxRows
// stopped it early. A COPY runs its sub-protocol instead (maxRows does not
// apply).
func (c *conn) execPortal(ctx context.Context, p *portal, maxRows int, describe bool) error {
	if d := c.sess.StatementTimeout(); d > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeoutCause(ctx, d, pgerr.StatementTimeout())
		defer cancel()
	}
	if p.stmt.st == nil {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	if p.stmt.st.Copy != nil {
		return c.execCopy(ctx, p)
	}
	ctx, stop := c.watchClient(ctx)
	defer stop()
	if p.cursor == nil && !p.done {
		cur, err := c.sess.Execute(ctx, p.stmt.st, p.params)
		c.sendNotices()
		if err != nil {
			return err
		}
		if cur.Deallocated() {
			// DEALLOCATE dropped a statement of SQL PREPARE, the session's.
		} else if name, all, ok := p.stmt.st.Deallocates(); ok {
			if err := c.deallocate(name, all); err != nil {
				cur.Close()
				c.sess.MarkFailed()
				return err
			}
		}
		p.cursor = cur
		cols := cur.Columns()
		if describe && cols != nil {
			c.send(rowDescription(cols, p.formats))
		}
		p.enc = newRowEncoder(cols, p.formats, c.sess.Location())
	}
	if p.done {
		// Executing a finished portal again returns no rows.
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(p.cursor.Tag())})
		return nil
	}
	sent := 0
	for {
		if p.batch == nil || p.row >= int(p.batch.NumRows()) {
			b, err := p.cursor.Next(ctx)
			if err != nil {
				p.batch = nil
				return err
			}
			if b == nil {
				p.done = true
				p.batch = nil
				c.sendNotices()
				c.send(&pgproto3.CommandComplete{CommandTag: []byte(p.cursor.Tag())})
				return nil
			}
			if err := p.enc.reset(b); err != nil {
				return err
			}
			p.batch, p.row = b, 0
		}
		n := int(p.batch.NumRows()) - p.row
		if maxRows > 0 {
			n = min(n, maxRows-sent)
		}
		for end := p.row + n; p.row < end; p.row++ {
			c.out = p.enc.appendRow(c.out, p.row)
			if len(c.out) >= flushThreshold {
				if p.enc.err != nil {
					return p.enc.err
				}
				if err := c.flush(); err != nil {
					return err
				}
			}
		}
		if p.enc.err != nil {
			return p.enc.err
		}
		sent += n
		if maxRows > 0 && sent >= maxRows {
			c.send(&pgproto3.PortalSuspended{})
			return nil
		}
	}
}
