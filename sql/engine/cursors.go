package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// cursorOptHold is CURSOR_OPT_HOLD in DeclareCursorStmt.Options.
const cursorOptHold = 0x20

// sqlCursor is a cursor made by DECLARE: its query's rows, read forward by
// FETCH. psycopg2's named cursors and psycopg 3's ServerCursor use them to
// read a large result in pieces.
type sqlCursor struct {
	cur  *Cursor
	hold bool              // WITH HOLD: survives the end of its transaction
	rec  arrow.RecordBatch // the batch being read (the query's), or nil
	row  int               // the next row of rec
	done bool
}

// next returns up to n rows as a slice of the query's current batch (the
// caller releases it), or nil at the end.
func (c *sqlCursor) next(ctx context.Context, n int64) (arrow.RecordBatch, error) {
	for !c.done && (c.rec == nil || c.row >= int(c.rec.NumRows())) {
		rec, err := c.cur.Next(ctx)
		if err != nil {
			c.done = true
			return nil, err
		}
		if rec == nil {
			c.done = true
			c.rec = nil
			return nil, nil
		}
		c.rec, c.row = rec, 0
	}
	if c.done {
		return nil, nil
	}
	k := min(n, c.rec.NumRows()-int64(c.row))
	out := c.rec.NewSlice(int64(c.row), int64(c.row)+k)
	c.row += int(k)
	return out, nil
}

func (s *Session) declareCursor(ctx context.Context, p *plan.Planner, d *pg.DeclareCursorStmt, release func()) (*Cursor, error) {
	if d.Options&cursorOptHold == 0 && s.tx == 'I' {
		release()
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.cursors[d.Portalname]; ok {
		release()
		return nil, pgerr.New(pgerr.DuplicateCursor, "cursor %q already exists", d.Portalname)
	}
	sel := d.Query.GetSelectStmt()
	if sel == nil {
		release()
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR supports SELECT queries only")
	}
	q, err := p.Select(sel)
	if err == nil {
		err = s.checkAccess(ctx, p.Access())
	}
	if err != nil {
		release()
		return nil, err
	}
	root, err := q.Build(ctx)
	if err != nil {
		release()
		return nil, err
	}
	cur, err := s.queryCursor(ctx, columns(q), root, release)
	if err != nil {
		return nil, err
	}
	if s.cursors == nil {
		s.cursors = map[string]*sqlCursor{}
	}
	s.cursors[d.Portalname] = &sqlCursor{cur: cur, hold: d.Options&cursorOptHold != 0}
	return &Cursor{tag: "DECLARE CURSOR", sess: s}, nil
}

func (s *Session) lookupCursor(name string) (*sqlCursor, error) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", name)
	}
	return c, nil
}

// CursorColumns is the row shape of the cursor DECLARE made, for a
// protocol-level Describe of it (psycopg 3's ServerCursor sends one).
func (s *Session) CursorColumns(name string) ([]Column, bool) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, false
	}
	return c.cur.Columns(), true
}

// fetch runs FETCH or MOVE: forward only, as Loam's cursors cannot scroll.
func (s *Session) fetch(f *pg.FetchStmt) (*Cursor, error) {
	c, err := s.lookupCursor(f.Portalname)
	if err != nil {
		return nil, err
	}
	// FETCH, NEXT and FORWARD n|ALL (ALL is LONG_MAX) read forward; the
	// rest would move back or refetch a row (FORWARD 0).
	n := f.HowMany
	if f.Direction != pg.FetchDirection_FETCH_FORWARD || n <= 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cursor can only scan forward")
	}
	verb := "FETCH"
	if f.Ismove {
		verb = "MOVE"
	}
	left := n
	var prev arrow.RecordBatch
	out := &Cursor{sess: s, tagFn: func(rows int64) string { return fmt.Sprintf("%s %d", verb, rows) }}
	if !f.Ismove {
		out.columns = c.cur.Columns()
	}
	var moved int64
	out.next = func(ctx context.Context) (arrow.RecordBatch, error) {
		if prev != nil {
			prev.Release()
			prev = nil
		}
		for left > 0 {
			rec, err := c.next(ctx, left)
			if err != nil || rec == nil {
				return nil, err
			}
			left -= rec.NumRows()
			if f.Ismove {
				moved += rec.NumRows()
				rec.Release()
				continue
			}
			prev = rec
			return rec, nil
		}
		return nil, nil
	}
	if f.Ismove {
		out.tagFn = func(int64) string { return fmt.Sprintf("MOVE %d", moved) }
	}
	out.close = func() {
		if prev != nil {
			prev.Release()
			prev = nil
		}
	}
	return out, nil
}

func (s *Session) closeCursor(name string) (*Cursor, error) {
	if name == "" { // CLOSE ALL
		s.closeCursors(true)
		return &Cursor{tag: "CLOSE CURSOR ALL", sess: s}, nil
	}
	c, err := s.lookupCursor(name)
	if err != nil {
		return nil, err
	}
	c.cur.Close()
	delete(s.cursors, name)
	return &Cursor{tag: "CLOSE CURSOR", sess: s}, nil
}

// closeCursors closes the session's cursors: all of them, or those without
// HOLD (at the end of their transaction).
func (s *Session) closeCursors(all bool) {
	for name, c := range s.cursors {
		if all || !c.hold {
			c.cur.Close()
			delete(s.cursors, name)
		}
	}
}
