package icetable

import (
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// prunable is filter without its conditions on columns whose type was
// widened (ALTER COLUMN … TYPE): data files written before keep column
// bounds in the old type (4 bytes for an int now a bigint), which
// iceberg-go v0.7's metrics evaluator fails to read. Those conditions
// become TRUE for planning (after NOTs are pushed down, so TRUE only
// widens what is read); Scan's caller filters rows exactly anyway.
func prunable(t *table.Table, filter iceberg.BooleanExpression) iceberg.BooleanExpression {
	if filter == nil {
		return nil
	}
	promoted := promotedFields(t)
	if len(promoted) == 0 {
		return filter
	}
	f, err := iceberg.RewriteNotExpr(filter)
	if err != nil {
		return nil
	}
	out, err := iceberg.VisitExpr(f, dropPromoted{promoted: promoted})
	if err != nil {
		return nil
	}
	return out
}

// promotedFields names the current schema's fields that some earlier
// schema had with another type.
func promotedFields(t *table.Table) map[string]bool {
	sc := t.Schema()
	var out map[string]bool
	for _, old := range t.Metadata().Schemas() {
		if old.ID == sc.ID {
			continue
		}
		for _, f := range sc.Fields() {
			if of, ok := old.FindFieldByID(f.ID); ok && !of.Type.Equals(f.Type) {
				if out == nil {
					out = map[string]bool{}
				}
				out[f.Name] = true
			}
		}
	}
	return out
}

type dropPromoted struct{ promoted map[string]bool }

func (dropPromoted) VisitTrue() iceberg.BooleanExpression  { return iceberg.AlwaysTrue{} }
func (dropPromoted) VisitFalse() iceberg.BooleanExpression { return iceberg.AlwaysFalse{} }
func (dropPromoted) VisitNot(c iceberg.BooleanExpression) iceberg.BooleanExpression {
	return iceberg.NewNot(c)
}

func (dropPromoted) VisitAnd(l, r iceberg.BooleanExpression) iceberg.BooleanExpression {
	return iceberg.NewAnd(l, r)
}

func (dropPromoted) VisitOr(l, r iceberg.BooleanExpression) iceberg.BooleanExpression {
	return iceberg.NewOr(l, r)
}

func (d dropPromoted) VisitUnbound(p iceberg.UnboundPredicate) iceberg.BooleanExpression {
	if ref, ok := p.Term().(iceberg.Reference); ok && d.promoted[string(ref)] {
		return iceberg.AlwaysTrue{}
	}
	return p
}

func (d dropPromoted) VisitBound(p iceberg.BoundPredicate) iceberg.BooleanExpression {
	if d.promoted[p.Ref().Field().Name] {
		return iceberg.AlwaysTrue{}
	}
	return p
}
