package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
)

// handleQuery runs a simple-protocol Query: every statement in the string
// in order, stopping at the first error, then ReadyForQuery.
func (c *conn) handleQuery(q *pgproto3.Query) error {
	// A simple query replaces the unnamed statement and portal.
	delete(c.stmts, "")
	c.closePortal("")

	ctx, done := c.stmtContext()
	defer done()
	stmts, err := c.sess.PrepareSimple(ctx, q.String)
	if err != nil {
		return err
	}
	if len(stmts) == 0 {
		c.send(&pgproto3.EmptyQueryResponse{})
	}
	for _, st := range stmts {
		p := &portal{stmt: &prepStmt{st: st}}
		err := c.execPortal(ctx, p, 0, true)
		p.close()
		c.sendParameterChanges()
		if err != nil {
			return err
		}
		if err := c.maybeFlush(); err != nil {
			return err
		}
	}
	return c.readyForQuery()
}
