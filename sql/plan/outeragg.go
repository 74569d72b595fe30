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
}

// noteLocal and noteOuter count a reference while an aggregate's
// arguments are being bound.
func (p *Planner) noteLocal() {
	if p.aggRefs != nil {
		p.aggRefs.local++
	}
}

func (p *Planner) noteOuter() {
	if p.aggRefs != nil {
		p.aggRefs.outer++
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
	return b.errAt(pgerr.New(pgerr.FeatureNotSupported, "aggregate %s() over only an outer query's columns in a subquery is not supported yet", funcName(fc)), fc.Location)
}
