package plan

import (
	"sync"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// inSet is an uncorrelated x IN (SELECT …)'s rows as a hash set, made
// once per execution, so that each row's test is a lookup rather than a
// scan of the rows (inList). Only for types whose equal values have one
// form (integers, text, dates and times); others keep the scan.
type inSet struct {
	once    sync.Once
	ok      bool
	vals    map[string]struct{}
	int     map[int64]struct{}
	sawNull bool
	n       int
}

// hashable reports the kinds inSet keys by value exactly.
func hashable(k types.Kind) (byInt, ok bool) {
	switch k {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.OID, types.Date, types.Time, types.Timestamp, types.TimestampTZ:
		return true, true
	case types.Text, types.Varchar, types.Name:
		return false, true
	}
	return false, false
}

// build fills the set from rows cast to t; ok false where a row does not
// cast (the scan then decides as before).
func (s *inSet) build(rows []types.Datum, t types.T, c *expr.Ctx) {
	byInt, ok := hashable(t.Kind)
	if !ok {
		return
	}
	s.n = len(rows)
	if byInt {
		s.int = make(map[int64]struct{}, len(rows))
	} else {
		s.vals = make(map[string]struct{}, len(rows))
	}
	for _, r := range rows {
		if r.Null {
			s.sawNull = true
			continue
		}
		v, err := expr.CastDatum(r, t, c.Loc)
		if err != nil {
			return
		}
		if byInt {
			s.int[v.I] = struct{}{}
		} else {
			s.vals[v.S] = struct{}{}
		}
	}
	s.ok = true
}

// test is x IN the set with SQL's NULL rules, as inList.
func (s *inSet) test(x types.Datum, negate bool) types.Datum {
	if s.n == 0 {
		return types.BoolDatum(negate)
	}
	if x.Null {
		return types.NullOf(types.TBool)
	}
	found := false
	if s.int != nil {
		_, found = s.int[x.I]
	} else {
		_, found = s.vals[x.S]
	}
	switch {
	case found:
		return types.BoolDatum(!negate)
	case s.sawNull:
		return types.NullOf(types.TBool)
	}
	return types.BoolDatum(negate)
}
