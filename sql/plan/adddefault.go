package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// EvalDefault evaluates a stored DEFAULT text (CheckDefault's) once, for
// the rows already in a table that ALTER TABLE … ADD COLUMN gives the
// column: PostgreSQL evaluates a non-volatile default once for them and
// stores the value. volatile is true, with no value, for a default that
// would differ per row (random(), nextval(), clock_timestamp()), which
// PostgreSQL evaluates per row by rewriting the table. The value is a
// one-row array of the column's SQL type t.
func (p *Planner) EvalDefault(text string, t types.T) (v arrow.Array, volatile bool, err error) {
	e, err := p.BindDefault(text, t)
	if err != nil {
		return nil, false, err
	}
	if !p.foldable(e) {
		return nil, true, nil
	}
	d, err := exec.EvalConst(p.ec, e)
	if err != nil {
		return nil, false, err
	}
	return expr.Repeat(d, 1), false, nil
}
