package plan

import (
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Travel names the snapshot a FROM item reads (FOR … AS OF): exactly one
// of Snapshot, Ref and At is set.
type Travel struct {
	Snapshot *int64    // FOR VERSION AS OF n
	Ref      string    // FOR VERSION AS OF 'branch-or-tag', or "t@ref"
	At       time.Time // FOR TIMESTAMP AS OF expr, evaluated once
	// Pos is the clause's position, for errors.
	Pos int
}

// asOf is the time-travel clause after the table name at loc, if any. The
// clauses are found again in the query text (parse.TimeTravel) by each
// planner that resolves a table, since child planners share only the
// text; Parse has already rejected malformed ones.
func (p *Planner) asOf(loc int32) (parse.AsOf, bool) {
	if !p.travelScanned {
		p.travel = parse.TimeTravel(p.query)
		p.travelScanned = true
	}
	a, ok := p.travel[int(loc)]
	return a, ok
}

// refuseAsOf fails a time-travel clause on a FROM item that is not a
// table (a WITH query, a view, a system relation).
func (p *Planner) refuseAsOf(rv *pg.RangeVar, what string) error {
	a, ok := p.asOf(rv.Location)
	if !ok {
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported, "time travel is only possible on tables: %q is %s", rv.Relname, what).WithPosition(a.Pos)
}

// fromTable resolves a FROM item's table, as of the snapshot its
// time-travel clause names if it has one.
func (p *Planner) fromTable(rv *pg.RangeVar) (*TableInfo, error) {
	if err := p.useSchema(rv); err != nil {
		return nil, err
	}
	ti, err := p.cat.Table(p.ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, pgerr.From(err).WithPosition(pos(p.query, rv.Location))
	}
	if err := p.searchable(rv, ti); err != nil {
		return nil, err
	}
	p.need(ti, "SELECT", rv.Location)
	a, ok := p.asOf(rv.Location)
	if !ok {
		return ti, nil
	}
	switch {
	case ti.Sequence:
		return nil, p.refuseAsOf(rv, "a sequence")
	case ti.ViewSQL != "":
		return nil, p.refuseAsOf(rv, "a view")
	case ti.Ref != "":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%q already names a branch or tag; time travel reads the table itself", rv.Relname).WithPosition(a.Pos)
	}
	if ti.Table == nil {
		return nil, p.refuseAsOf(rv, "not an Iceberg table")
	}
	at := Travel{Pos: a.Pos}
	switch {
	case a.Kind == parse.AsOfTimestamp:
		var describing bool
		if at.At, describing, err = p.asOfTime(a); err != nil {
			return nil, err
		}
		if describing {
			// Prepared without its parameters' values: the current
			// table stands in to describe the result.
			return ti, nil
		}
	case a.Ref != "":
		at.Ref = a.Ref
	default:
		id := a.Snapshot
		at.Snapshot = &id
	}
	p.noteBound() // the snapshot read is the one now names
	tti, err := p.cat.TableAsOf(p.ctx, ti, at)
	if tti != nil {
		tti.Travel = true
	}
	return tti, err
}

// asOfTime evaluates TIMESTAMP AS OF's expression, a constant timestamp
// with time zone (a literal, now() - interval '1 hour', a parameter).
// describing reports a NULL while the statement is only being prepared,
// its parameters' values not known yet.
func (p *Planner) asOfTime(a parse.AsOf) (at time.Time, describing bool, err error) {
	b := &binder{p: p, where: "FOR TIMESTAMP AS OF"}
	e, err := b.bind(a.Expr)
	if err != nil {
		return time.Time{}, false, err
	}
	if e, err = b.coerce(e, types.TTimestampTZ, nodeLocation(a.Expr)); err != nil {
		return time.Time{}, false, err
	}
	v, err := p.evalConst(e)
	if err != nil {
		return time.Time{}, false, err
	}
	if v.Null {
		if p.describing() {
			return time.Time{}, true, nil
		}
		return time.Time{}, false, pgerr.New(pgerr.InvalidParameterValue, "FOR TIMESTAMP AS OF needs a timestamp, not NULL").WithPosition(a.Pos)
	}
	at = time.UnixMicro(v.I)
	// As Trino: the future is not a consistent state to read. now() is
	// the transaction's start, never after the statement's.
	if start := p.ec.Stmt; !start.IsZero() && at.After(start) {
		return time.Time{}, false, pgerr.New(pgerr.InvalidParameterValue, "FOR TIMESTAMP AS OF cannot read the future").WithPosition(a.Pos)
	}
	return at, false, nil
}
