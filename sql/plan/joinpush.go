package plan

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
)

// Conjuncts of a join's ON that read one side only filter that side's
// rows before the join where the join does not null-extend the other
// side on their account: a right-side condition of an inner or left join
// (a right row failing it matches no left row, as if it were not there),
// a left-side condition of an inner or right join. They also prune the
// side's files. The rest stays a join condition.

// pushableOn splits the ON conjuncts flat of a kind join into those over
// the left side only (left-local columns), the right side only (right-
// local columns), and the rest (over the joined row).
func pushableOn(kind exec.JoinKind, flat []expr.Expr, leftLocal, rightLocal map[int]int) (lf, rf, rest []expr.Expr) {
	for _, c := range flat {
		cols, ok := colsOf(c)
		if ok && len(cols) > 0 {
			if (kind == exec.InnerJoin || kind == exec.LeftJoin) && allIn(cols, rightLocal) {
				if e, ok := remap(c, rightLocal); ok {
					rf = append(rf, e)
					continue
				}
			}
			if (kind == exec.InnerJoin || kind == exec.RightJoin) && allIn(cols, leftLocal) {
				if e, ok := remap(c, leftLocal); ok {
					lf = append(lf, e)
					continue
				}
			}
		}
		rest = append(rest, c)
	}
	return lf, rf, rest
}

// filteredItem builds it with the conjuncts conj (over its own columns)
// applied: by the item itself when it can (a join), else by a filter
// above it; a table scan prunes its files by them either way.
func filteredItem(it *fromItem, sc *scope, off int, conj []expr.Expr) (physical.Node, error) {
	op, err := it.build(sc, off, pruneOnly(conj))
	if err != nil || len(conj) == 0 || it.exact {
		return op, err
	}
	return &physical.Filter{In: op, Pred: andOf(conj)}, nil
}
