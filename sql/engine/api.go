// Package engine runs SQL statements for a session: it parses, plans and
// executes them against the catalog and storage, and keeps the session's
// settings and transaction state. The wire layer drives it.
package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// Column describes one result column as RowDescription reports it.
type Column struct {
	Name      string
	Type      types.T
	TableOID  uint32 // 0 when the column is not a plain table column
	ColumnNum int16
}

// Statement is one parsed and planned statement, ready to execute with
// parameters. Its ParamTypes and Columns are what Describe reports.
type Statement struct {
	Query      string    // the statement's own text
	ParamTypes []types.T // $1..$n, inferred where the client left them unspecified
	Columns    []Column  // nil for statements that return no rows
	// Copy is set for COPY … FROM STDIN and COPY … TO STDOUT: the wire
	// layer runs those with CopyIn and CopyOut instead of Execute.
	Copy *CopyInfo
	prep prepared
	// simple: from a simple-protocol Query, so it takes no parameters.
	simple bool
	// multi: one of several statements of a Query, which PostgreSQL runs
	// as an implicit transaction block (see refuseInBlock).
	multi bool
	// kept is the statement's plan, made once and reused by its
	// executions while valid (plancache.go).
	kept *keptPlan
}

// CopyInfo describes a COPY statement's data stream.
type CopyInfo struct {
	In      bool // FROM STDIN (else TO STDOUT)
	Binary  bool // FORMAT binary (else text or CSV, both sent as text)
	Columns int  // number of columns in each row
}

// Cursor streams a statement's result. Commands did their work in Execute
// and return no batches; queries produce batches as Next is called.
type Cursor struct {
	columns []Column
	next    func(ctx context.Context) (arrow.RecordBatch, error)
	close   func()
	tag     string
	rows    int64
	tagFn   func(rows int64) string
	sess    *Session
	done    bool
	// deallocated: a DEALLOCATE that dropped a PREPAREd statement, so the
	// wire layer has none of that name to drop.
	deallocated bool
}

// Deallocated says whether the statement was a DEALLOCATE of a statement
// made by SQL PREPARE, which the session held (see Statement.Deallocates).
func (c *Cursor) Deallocated() bool { return c.deallocated }

// Columns is the result's row shape, nil for commands.
func (c *Cursor) Columns() []Column { return c.columns }

// Next returns the next batch, or nil at the end (and on every call after).
// The batch is the caller's until the next call to Next.
func (c *Cursor) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if c.done || c.next == nil {
		c.done = true
		return nil, nil
	}
	rec, err := c.next(ctx)
	if err != nil {
		c.done = true
		c.sess.markFailed()
		return nil, err
	}
	if rec == nil {
		c.done = true
		return nil, nil
	}
	c.rows += rec.NumRows()
	return rec, nil
}

// Tag is the CommandComplete tag ("SELECT 3", "INSERT 0 2"), complete once
// Next has returned nil.
func (c *Cursor) Tag() string {
	if c.tagFn != nil {
		return c.tagFn(c.rows)
	}
	return c.tag
}

// Close releases the cursor's resources; safe to call more than once.
func (c *Cursor) Close() {
	if c.close != nil {
		c.close()
		c.close = nil
	}
}
