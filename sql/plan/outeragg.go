package plan

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/pgerr"
)

// aggRefs counts the column references in one aggregate call's arguments,
// FILTER and ORDER BY, by whether they name a column of the query the call
// is in (local) or of an enclosing query (outer).
//
// PostgreSQL gives an aggregate the level of the outermost query whose
// columns it reads when it reads none of its own query (agglevelsup): in
// SELECT (SELECT max(t.a) FROM u) FROM t, max runs over t's rows, once for
// the outer query, not over u's rows with t.a a constant. Loam binds an
// aggregate in the query it is written in, so such a call would answer
// wrongly; until it is bound in the outer query, it is refused.
type aggRefs struct {
	local, outer int
	// lateral: an outer column read is one of a FROM item left of the
	// LATERAL subquery the call is in.
	lateral bool
}

// noteLocal and noteOuter count a reference while an aggregate's
// arguments are being bound.
func (p *Planner) noteLocal() {
	if p.aggRefs != nil {
		p.aggRefs.local++
	}
}

func (p *Planner) noteOuter(o *outerRow) {
	if p.aggRefs != nil {
		p.aggRefs.outer++
		p.aggRefs.lateral = p.aggRefs.lateral || o.lateral
	}
}

// trackAggRefs starts counting the references of one aggregate call; the
// returned function stops and restores the enclosing call's count.
func (p *Planner) trackAggRefs() (*aggRefs, func()) {
	prev := p.aggRefs
	r := &aggRefs{}
	p.aggRefs = r
	return r, func() { p.aggRefs = prev }
}

// checkOuterAgg refuses an aggregate call that reads only outer columns.
func (b *binder) checkOuterAgg(r *aggRefs, fc *pg.FuncCall) error {
	if r.outer == 0 || r.local > 0 {
		return nil
	}
	if r.lateral {
		// PostgreSQL's answer too: the aggregate would belong to the
		// query whose FROM clause holds it.
		return b.errAt(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in FROM clause of their own query level"), fc.Location)
	}
	return b.errAt(pgerr.New(pgerr.FeatureNotSupported, "aggregate %s() over only an outer query's columns in a subquery is not supported yet", funcName(fc)), fc.Location)
}
