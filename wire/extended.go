package wire

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
	"github.com/loamdb/loam/types/pgcodec"
)

// The extended query protocol: Parse, Bind, Describe, Execute, Close, Sync,
// Flush. Named statements and portals live until closed (portals also end
// with the transaction); the unnamed ones are replaced by the next Parse or
// Bind. After an error, dispatch skips messages until Sync.

const duplicateCursor = "42P03"

func stmtLabel(name string) string {
	if name == "" {
		return "unnamed prepared statement"
	}
	return fmt.Sprintf("prepared statement %q", name)
}

func (c *conn) lookupStmt(name string) (*prepStmt, error) {
	ps := c.stmts[name]
	if ps == nil {
		return nil, pgerr.New(pgerr.UndefinedPreparedStatement, "%s does not exist", stmtLabel(name))
	}
	return ps, nil
}

func (c *conn) lookupPortal(name string) (*portal, error) {
	p := c.portals[name]
	if p == nil {
		if name == "" {
			return nil, pgerr.New(pgerr.InvalidCursorName, "unnamed portal does not exist")
		}
		return nil, pgerr.New(pgerr.InvalidCursorName, "portal %q does not exist", name)
	}
	return p, nil
}

func (c *conn) closePortal(name string) {
	if p := c.portals[name]; p != nil {
		p.close()
		delete(c.portals, name)
	}
}

func (c *conn) closePortals() {
	for name := range c.portals {
		c.closePortal(name)
	}
}

func (c *conn) handleParse(m *pgproto3.Parse) error {
	if m.Name != "" && c.stmts[m.Name] != nil {
		return pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", m.Name)
	}
	ctx, done := c.stmtContext()
	defer done()
	stmts, err := c.sess.Prepare(ctx, m.Query, m.ParameterOIDs)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	ps := &prepStmt{name: m.Name}
	if len(stmts) == 1 {
		ps.st = stmts[0]
	}
	c.stmts[m.Name] = ps
	c.send(&pgproto3.ParseComplete{})
	return nil
}

func (c *conn) handleBind(m *pgproto3.Bind) error {
	ps, err := c.lookupStmt(m.PreparedStatement)
	if err != nil {
		return err
	}
	if m.DestinationPortal != "" && c.portals[m.DestinationPortal] != nil {
		return pgerr.New(duplicateCursor, "portal %q already exists", m.DestinationPortal)
	}
	var ptypes []types.T
	var cols []engine.Column
	if ps.st != nil {
		ptypes, cols = ps.st.ParamTypes, ps.st.Columns
	}
	if len(m.Parameters) != len(ptypes) {
		// PostgreSQL names even the unnamed statement here: prepared statement "".
		return pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d",
			len(m.Parameters), ps.name, len(ptypes))
	}
	pf := m.ParameterFormatCodes
	if len(pf) > 1 && len(pf) != len(m.Parameters) {
		return pgerr.New(pgerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters",
			len(pf), len(m.Parameters))
	}
	params := make([]types.Datum, len(m.Parameters))
	loc := c.sess.Location()
	for i, raw := range m.Parameters {
		f := formatAt(pf, i)
		if f != 0 && f != 1 {
			return pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
		d, err := pgcodec.Decode(ptypes[i], f, raw, loc)
		if err != nil {
			pe := *pgerr.From(err)
			if f == 1 {
				pe.Message = fmt.Sprintf("incorrect binary data format in bind parameter %d: %s", i+1, pe.Message)
			} else {
				// PostgreSQL's context line, with the value elided as its
				// default log_parameter_max_length_on_error (0) has it.
				pe.Where = fmt.Sprintf("unnamed portal parameter $%d = '...'", i+1)
				if m.DestinationPortal != "" {
					pe.Where = fmt.Sprintf("portal %q parameter $%d = '...'", m.DestinationPortal, i+1)
				}
			}
			return &pe
		}
		params[i] = d
	}
	formats, err := resultFormats(m.ResultFormatCodes, len(cols))
	if err != nil {
		return err
	}
	c.closePortal(m.DestinationPortal)
	c.portals[m.DestinationPortal] = &portal{name: m.DestinationPortal, stmt: ps, params: params, formats: formats}
	c.send(&pgproto3.BindComplete{})
	return nil
}

func formatAt(codes []int16, i int) int16 {
	switch len(codes) {
	case 0:
		return 0
	case 1:
		return codes[0]
	}
	return codes[i]
}

// resultFormats expands Bind's result format codes to one per column.
func resultFormats(codes []int16, ncols int) ([]int16, error) {
	if len(codes) > 1 && len(codes) != ncols {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(codes), ncols)
	}
	if len(codes) == 0 {
		return nil, nil
	}
	out := make([]int16, ncols)
	for i := range out {
		f := formatAt(codes, i)
		if f != 0 && f != 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
		out[i] = f
	}
	return out, nil
}

func (c *conn) handleDescribe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		ps, err := c.lookupStmt(m.Name)
		if err != nil {
			return err
		}
		var ptypes []types.T
		var cols []engine.Column
		if ps.st != nil {
			ptypes, cols = ps.st.ParamTypes, ps.st.Columns
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: paramDescription(ptypes)})
		c.describeRows(cols, nil)
	case 'P':
		p, err := c.lookupPortal(m.Name)
		if err != nil {
			// Cursors made by DECLARE share the portals' namespace in
			// PostgreSQL: psycopg 3's ServerCursor describes its cursor.
			if cs, ok := c.sess.(interface {
				CursorColumns(string) ([]engine.Column, bool)
			}); ok && m.Name != "" {
				if cols, ok := cs.CursorColumns(m.Name); ok {
					c.describeRows(cols, nil)
					return nil
				}
			}
			return err
		}
		var cols []engine.Column
		if p.stmt.st != nil {
			cols = p.stmt.st.Columns
		}
		c.describeRows(cols, p.formats)
	default:
		return protocolViolation("invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

func (c *conn) describeRows(cols []engine.Column, formats []int16) {
	if cols == nil {
		c.send(&pgproto3.NoData{})
		return
	}
	c.send(rowDescription(cols, formats))
}

func (c *conn) handleExecute(m *pgproto3.Execute) error {
	p, err := c.lookupPortal(m.Portal)
	if err != nil {
		return err
	}
	ctx, done := c.stmtContext()
	defer done()
	maxRows := int(m.MaxRows)
	if int32(m.MaxRows) < 0 {
		maxRows = 0
	}
	err = c.execPortal(ctx, p, maxRows, false)
	c.sendParameterChanges()
	if err != nil {
		c.closePortal(m.Portal)
	}
	return err
}

func (c *conn) handleClose(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		c.closePortal(m.Name)
	default:
		return protocolViolation("invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

// handleSync ends an extended-protocol batch: it clears the error state,
// drops the portals when no transaction block remains open (their
// transaction ended), and sends ReadyForQuery.
func (c *conn) handleSync() error {
	c.ignoreTillSync = false
	if c.sess.TxStatus() == 'I' {
		c.closePortals()
	}
	c.sendParameterChanges()
	return c.readyForQuery()
}
