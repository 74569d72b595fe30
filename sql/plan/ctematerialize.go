package plan

import (
	"github.com/loamdb/loam/exec/physical"
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A WITH query is computed once, its rows spooled to each reference, as
// PostgreSQL does, when it is written MATERIALIZED, when it calls a
// volatile function (random() must give every reference the same rows),
// or when it is referenced more than once and not written NOT
// MATERIALIZED. Otherwise it is planned where it is referenced (inlined),
// where only the columns read are computed.
//
// The spool is shared by the references built into one operator tree; a
// subquery run per outer row builds its own tree, and so its own spool.

// decideMaterialized marks the WITH queries of s's WITH clause (the chain
// from mine up to, not including, outer) that are to be computed once.
func decideMaterialized(s *pg.SelectStmt, mine, outer *cte) {
	for c := mine; c != nil && c != outer; c = c.parent {
		if c.rec {
			continue
		}
		switch {
		case c.mat == pg.CTEMaterialize_CTEMaterializeAlways:
			c.once = true
		case mentionsVolatile(subqueryText(c.sel)):
			c.once = true
		case c.mat == pg.CTEMaterialize_CTEMaterializeNever:
		default:
			c.once = countRefs(s.ProtoReflect(), c.name) > 1
		}
	}
}

// countRefs counts the unqualified references to name in a parse tree (a
// WITH query of the same name deeper in shadows it; counted all the same,
// which at worst computes a query once that could have been inlined).
func countRefs(m protoreflect.Message, name string) int {
	if rv, ok := m.Interface().(*pg.RangeVar); ok {
		if rv.Schemaname == "" && rv.Relname == name {
			return 1
		}
		return 0
	}
	n := 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() || fd.Message() == nil:
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				n += countRefs(l.Get(i).Message(), name)
			}
		default:
			n += countRefs(v.Message(), name)
		}
		return true
	})
	return n
}

// spooled is the plan of a WITH query computed once, planned at its first
// reference, and a reader of its rows for this reference.
func (p *Planner) spooled(c *cte) (*Query, physical.Node, error) {
	if c.spool == nil {
		q, err := p.planCTE(c)
		if err != nil {
			return nil, nil, err
		}
		c.spool, c.spoolQ = physical.NewSpool(q.Root), q
	}
	return c.spoolQ, c.spool.Reader(), nil
}
