package exec

import (
	"strconv"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// SetImpl is how a set-returning function runs, as plain data: which
// function, and what planning fixed about the call (its result type), but
// no closure over the planner. A plan holding one runs with the context
// of the execution that builds it, however often it is kept and rerun.
type SetImpl interface {
	// Start begins one call over its arguments' values; next yields the
	// call's values, false after the last.
	Start(args []types.Datum, ec *expr.Ctx) (next func() (types.Datum, bool), err error)
}

// SetTable is a set-returning function read as a table (in FROM): one
// call's rows, a Datum per column.
type SetTable interface {
	Rows(args []types.Datum, ec *expr.Ctx) ([][]types.Datum, error)
}

// SeriesSet is generate_series over values of type T.
type SeriesSet struct{ T types.T }

func (s SeriesSet) Start(vals []types.Datum, ec *expr.Ctx) (func() (types.Datum, bool), error) {
	it, err := newSeriesIter(s.T, vals, ec)
	if err != nil {
		return nil, err
	}
	return func() (types.Datum, bool) {
		v, ok := it.next()
		return types.Int(s.T, v), ok
	}, nil
}

// ArraySet is unnest(array), one value an element of type Elem, or with
// Expand information_schema._pg_expandarray(array), one record (x, n) an
// element: the element and its 1-based position, as PgJDBC's key queries
// read them.
type ArraySet struct {
	Elem   types.T
	Expand bool
}

// ExpandType is the record type of _pg_expandarray over elements of et.
func ExpandType(et types.T) types.T {
	return types.RecordOf(types.Field{Name: "x", T: et}, types.Field{Name: "n", T: types.TInt4})
}

func (a ArraySet) Start(args []types.Datum, ec *expr.Ctx) (func() (types.Datum, bool), error) {
	rows, err := a.Rows(args, ec)
	if err != nil {
		return nil, err
	}
	var rt types.T
	if a.Expand {
		rt = ExpandType(a.Elem)
	}
	i := 0
	return func() (types.Datum, bool) {
		if i >= len(rows) {
			return types.Datum{}, false
		}
		row := rows[i]
		i++
		if !a.Expand {
			return row[0], true
		}
		x := row[0]
		return types.Datum{T: rt, S: types.FormatRecord([]string{types.FormatText(x, ec.Loc), strconv.FormatInt(row[1].I, 10)}, []bool{x.Null, false})}, true
	}, nil
}

// Rows is a row an element: the element, and with Expand its position.
func (a ArraySet) Rows(args []types.Datum, ec *expr.Ctx) ([][]types.Datum, error) {
	if args[0].Null {
		return nil, nil
	}
	elems, null, err := types.SplitArrayText(args[0].S)
	if err != nil {
		return nil, err
	}
	rows := make([][]types.Datum, len(elems))
	for k, s := range elems {
		d := types.NullOf(a.Elem)
		if !null[k] {
			// Malformed elements cannot come out of a typed array.
			if d, err = types.ParseText(a.Elem, s, ec.Loc); err != nil {
				return nil, err
			}
		}
		rows[k] = []types.Datum{d}
		if a.Expand {
			rows[k] = append(rows[k], types.Int(types.TInt4, int64(k+1)))
		}
	}
	return rows, nil
}

// SubscriptsSet is generate_subscripts(array, dim [, reverse]): the
// subscripts of the array's dimension dim. Loam's arrays are
// one-dimensional with lower bound 1, so any other dimension has none.
type SubscriptsSet struct{}

func (SubscriptsSet) Start(a []types.Datum, _ *expr.Ctx) (func() (types.Datum, bool), error) {
	n := 0 // strict: a NULL argument gives no rows
	if !a[0].Null && !a[1].Null && a[1].I == 1 && (len(a) < 3 || !a[2].Null) {
		elems, _, err := types.SplitArrayText(a[0].S)
		if err != nil {
			return nil, err
		}
		n = len(elems)
	}
	reverse := len(a) == 3 && a[2].I != 0
	i := 0
	return func() (types.Datum, bool) {
		if i >= n {
			return types.Datum{}, false
		}
		i++
		v := i
		if reverse {
			v = n + 1 - i
		}
		return types.Int(types.TInt4, int64(v)), true
	}, nil
}

// JSONSet is a JSON set-returning function (its registered spec); in a
// select list it yields a value a row, a record of type T when the
// function has several columns.
type JSONSet struct {
	Spec *expr.SetSpec
	T    types.T
}

// Rows is the rows of one call over argument values: none for a NULL
// argument (the functions are strict), or one row of NULLs for those
// that return a row whatever (json_populate_record).
func (j JSONSet) Rows(vals []types.Datum, ec *expr.Ctx) ([][]types.Datum, error) {
	for _, v := range vals {
		if v.Null {
			if j.Spec.NullRow {
				row := make([]types.Datum, len(j.Spec.Cols))
				for i, c := range j.Spec.Cols {
					row[i] = types.NullOf(c.T)
				}
				return [][]types.Datum{row}, nil
			}
			return nil, nil
		}
	}
	return j.Spec.Rows(ec, vals)
}

func (j JSONSet) Start(a []types.Datum, ec *expr.Ctx) (func() (types.Datum, bool), error) {
	rows, err := j.Rows(a, ec)
	if err != nil {
		return nil, err
	}
	i := 0
	return func() (types.Datum, bool) {
		if i >= len(rows) {
			return types.Datum{}, false
		}
		row := rows[i]
		i++
		if len(row) == 1 {
			return row[0], true
		}
		vals := make([]string, len(row))
		null := make([]bool, len(row))
		for k, d := range row {
			if null[k] = d.Null; !d.Null {
				vals[k] = types.FormatText(d, ec.Loc)
			}
		}
		return types.Datum{T: j.T, S: types.FormatRecord(vals, null)}, true
	}, nil
}
