package icetable

import (
	"errors"

	"github.com/apache/iceberg-go"
)

// errUnsupportedPrune marks a filter the cached planning does not prune
// exactly as iceberg-go does; planning then falls back to iceberg-go.
var errUnsupportedPrune = errors.New("filter not prunable from cached manifests")

// filePruner decides, from a data file's column statistics, whether rows
// of the file may match a filter. It answers as iceberg-go's inclusive
// metrics evaluator does (table/evaluators.go), which is unexported, for
// the shapes it accepts: AND and OR of comparisons (=, <>, <, <=, >, >=),
// IS [NOT] NULL of plain columns of integer, date, time, timestamp and
// string types. Anything else (IN, LIKE prefixes, floats with their NaN
// rules, decimals, transforms) is refused at construction, and the scan
// plans through iceberg-go instead: the files a scan reads, and the counts
// EXPLAIN shows, must not depend on whether the cache was used.
type filePruner struct {
	expr iceberg.BooleanExpression // bound to the table's schema; nil = every file
	// fieldIDs are the columns the filter names, for the partition check.
	fieldIDs map[int]bool
}

// newFilePruner binds filter to sc, or returns errUnsupportedPrune.
func newFilePruner(sc *iceberg.Schema, filter iceberg.BooleanExpression) (*filePruner, error) {
	p := &filePruner{fieldIDs: map[int]bool{}}
	if filter == nil || filter.Equals(iceberg.AlwaysTrue{}) {
		return p, nil
	}
	rewritten, err := iceberg.RewriteNotExpr(filter)
	if err != nil {
		return nil, errUnsupportedPrune
	}
	bound, err := iceberg.BindExpr(sc, rewritten, true)
	if err != nil {
		return nil, errUnsupportedPrune
	}
	// VisitExpr, not the evaluator: the check must see both sides of
	// every AND and OR.
	check := &fileStats{check: p.fieldIDs}
	if _, err := iceberg.VisitExpr[bool](bound, check); err != nil || check.unsupported {
		return nil, errUnsupportedPrune
	}
	p.expr = bound
	return p, nil
}

// mayMatch reports whether rows of f may match. Like iceberg-go with
// include_empty_files unset, a file of no rows never matches.
func (p *filePruner) mayMatch(f iceberg.DataFile) (bool, error) {
	if f.Count() == 0 {
		return false, nil
	}
	if p.expr == nil {
		return true, nil
	}
	st := &fileStats{
		values: f.ValueCounts(), nulls: f.NullValueCounts(), nans: f.NaNValueCounts(),
		lower: f.LowerBoundValues(), upper: f.UpperBoundValues(),
	}
	ok, err := iceberg.VisitExprEvaluator(p.expr, st)
	if err != nil || st.unsupported {
		return false, errUnsupportedPrune
	}
	return ok, nil
}

// fileStats is the visitor: with check set it only checks the filter's
// shape and collects the columns it names; otherwise it evaluates the
// filter against one file's statistics.
type fileStats struct {
	check               map[int]bool
	unsupported         bool
	values, nulls, nans map[int]int64
	lower, upper        map[int][]byte
}

const (
	rowsMightMatch  = true
	rowsCannotMatch = false
)

func (v *fileStats) VisitTrue() bool         { return rowsMightMatch }
func (v *fileStats) VisitFalse() bool        { return rowsCannotMatch }
func (v *fileStats) VisitNot(bool) bool      { v.unsupported = true; return rowsMightMatch }
func (v *fileStats) VisitAnd(l, r bool) bool { return l && r }
func (v *fileStats) VisitOr(l, r bool) bool  { return l || r }
func (v *fileStats) VisitUnbound(iceberg.UnboundPredicate) bool {
	v.unsupported = true
	return rowsMightMatch
}

func (v *fileStats) VisitBound(pred iceberg.BoundPredicate) bool {
	if v.check != nil {
		v.checkPred(pred)
		return rowsMightMatch
	}
	return iceberg.VisitBoundPredicate(pred, v)
}

// checkPred refuses what mayMatch would not answer as iceberg-go does.
func (v *fileStats) checkPred(pred iceberg.BoundPredicate) {
	term := pred.Term()
	if _, ok := term.(iceberg.BoundReference); !ok {
		v.unsupported = true // a transform or a variant extract
		return
	}
	v.check[term.Ref().Field().ID] = true
	switch pred.Op() {
	case iceberg.OpIsNull, iceberg.OpNotNull, iceberg.OpNEQ:
		return
	case iceberg.OpEQ, iceberg.OpLT, iceberg.OpLTEQ, iceberg.OpGT, iceberg.OpGTEQ:
	default:
		v.unsupported = true
		return
	}
	switch term.Type().(type) {
	case iceberg.Int32Type, iceberg.Int64Type, iceberg.DateType, iceberg.TimeType,
		iceberg.TimestampType, iceberg.TimestampTzType, iceberg.StringType:
	default:
		v.unsupported = true
	}
}

func (v *fileStats) nullsOnly(id int) bool {
	vc, ok := v.values[id]
	if !ok {
		return false
	}
	nc, ok := v.nulls[id]
	return ok && vc == nc
}

func (v *fileStats) nansOnly(id int) bool {
	nc, ok := v.nans[id]
	if !ok {
		return false
	}
	vc, ok := v.values[id]
	return ok && nc == vc
}

// compare compares a file bound with lit: ok is false when the file has
// no such bound (or one that does not decode).
func (v *fileStats) compare(t iceberg.BoundTerm, raw []byte, lit iceberg.Literal) (c int, ok bool) {
	if raw == nil {
		return 0, false
	}
	b, err := iceberg.LiteralFromBytes(t.Ref().Field().Type, raw)
	if err != nil {
		v.unsupported = true
		return 0, false
	}
	switch b := b.(type) {
	case iceberg.TypedLiteral[int32]:
		return cmpTyped(b, lit)
	case iceberg.TypedLiteral[int64]:
		return cmpTyped(b, lit)
	case iceberg.TypedLiteral[iceberg.Date]:
		return cmpTyped(b, lit)
	case iceberg.TypedLiteral[iceberg.Time]:
		return cmpTyped(b, lit)
	case iceberg.TypedLiteral[iceberg.Timestamp]:
		return cmpTyped(b, lit)
	case iceberg.TypedLiteral[string]:
		return cmpTyped(b, lit)
	}
	v.unsupported = true
	return 0, false
}

func cmpTyped[T iceberg.LiteralType](b iceberg.TypedLiteral[T], lit iceberg.Literal) (int, bool) {
	l, ok := lit.(iceberg.TypedLiteral[T])
	if !ok {
		return 0, false
	}
	return b.Comparator()(b.Value(), l.Value()), true
}

func (v *fileStats) skipByCounts(t iceberg.BoundTerm) bool {
	id := t.Ref().Field().ID
	return v.nullsOnly(id) || v.nansOnly(id)
}

func (v *fileStats) VisitLess(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	if v.skipByCounts(t) {
		return rowsCannotMatch
	}
	if c, ok := v.compare(t, v.lower[t.Ref().Field().ID], lit); ok && c >= 0 {
		return rowsCannotMatch
	}
	return rowsMightMatch
}

func (v *fileStats) VisitLessEqual(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	if v.skipByCounts(t) {
		return rowsCannotMatch
	}
	if c, ok := v.compare(t, v.lower[t.Ref().Field().ID], lit); ok && c > 0 {
		return rowsCannotMatch
	}
	return rowsMightMatch
}

func (v *fileStats) VisitGreater(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	if v.skipByCounts(t) {
		return rowsCannotMatch
	}
	if c, ok := v.compare(t, v.upper[t.Ref().Field().ID], lit); ok && c <= 0 {
		return rowsCannotMatch
	}
	return rowsMightMatch
}

func (v *fileStats) VisitGreaterEqual(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	if v.skipByCounts(t) {
		return rowsCannotMatch
	}
	if c, ok := v.compare(t, v.upper[t.Ref().Field().ID], lit); ok && c < 0 {
		return rowsCannotMatch
	}
	return rowsMightMatch
}

func (v *fileStats) VisitEqual(t iceberg.BoundTerm, lit iceberg.Literal) bool {
	if v.skipByCounts(t) {
		return rowsCannotMatch
	}
	id := t.Ref().Field().ID
	if c, ok := v.compare(t, v.lower[id], lit); ok && c > 0 {
		return rowsCannotMatch
	}
	if c, ok := v.compare(t, v.upper[id], lit); ok && c < 0 {
		return rowsCannotMatch
	}
	return rowsMightMatch
}

func (v *fileStats) VisitNotEqual(iceberg.BoundTerm, iceberg.Literal) bool { return rowsMightMatch }

func (v *fileStats) VisitIsNull(t iceberg.BoundTerm) bool {
	if n, ok := v.nulls[t.Ref().Field().ID]; ok && n == 0 {
		return rowsCannotMatch
	}
	return rowsMightMatch
}

func (v *fileStats) VisitNotNull(t iceberg.BoundTerm) bool {
	if v.nullsOnly(t.Ref().Field().ID) {
		return rowsCannotMatch
	}
	return rowsMightMatch
}

// The rest are refused by checkPred and never reached in evaluation.

func (v *fileStats) VisitIn(iceberg.BoundTerm, iceberg.Set[iceberg.Literal]) bool {
	v.unsupported = true
	return rowsMightMatch
}

func (v *fileStats) VisitNotIn(iceberg.BoundTerm, iceberg.Set[iceberg.Literal]) bool {
	v.unsupported = true
	return rowsMightMatch
}

func (v *fileStats) VisitIsNan(iceberg.BoundTerm) bool {
	v.unsupported = true
	return rowsMightMatch
}

func (v *fileStats) VisitNotNan(iceberg.BoundTerm) bool {
	v.unsupported = true
	return rowsMightMatch
}

func (v *fileStats) VisitStartsWith(iceberg.BoundTerm, iceberg.Literal) bool {
	v.unsupported = true
	return rowsMightMatch
}

func (v *fileStats) VisitNotStartsWith(iceberg.BoundTerm, iceberg.Literal) bool {
	v.unsupported = true
	return rowsMightMatch
}
