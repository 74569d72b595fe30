package expr

import (
	"math/big"
	"strconv"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// array_remove, array_position(s), array_append and array_prepend: the
// element functions dashboards use on tag arrays (array_remove(tags,
// 'prod'), array_position(tags, 'x')). Arrays travel as their text, so an
// element is compared with the argument's text, by value where the text
// of equal values can differ (numeric 1.5 and 1.50, float 1 and 1.0).

// elemText is d as an element of an array of kind elem: its text, or
// null.
func elemText(c *Ctx, d types.Datum) (string, bool) {
	if d.Null {
		return "", true
	}
	return types.FormatText(d, c.Loc), false
}

// sameElem is PostgreSQL's IS NOT DISTINCT FROM of two elements' texts.
func sameElem(elem types.Kind, a string, aNull bool, b string, bNull bool) bool {
	if aNull || bNull {
		return aNull && bNull
	}
	switch elem {
	case types.Numeric:
		x, ok1 := new(big.Rat).SetString(a)
		y, ok2 := new(big.Rat).SetString(b)
		if ok1 && ok2 {
			return x.Cmp(y) == 0
		}
	case types.Float4, types.Float8:
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 == nil && err2 == nil {
			return x == y
		}
	}
	return a == b
}

func init() {
	sameType := func(i int) func([]types.T) types.T {
		return func(args []types.T) types.T { return args[i] }
	}
	remove := func(c *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Null {
			return a[0], nil
		}
		elems, null, err := types.SplitArrayText(a[0].S)
		if err != nil {
			return types.Datum{}, err
		}
		v, vNull := elemText(c, a[1])
		var outE []string
		var outN []bool
		for i, e := range elems {
			if !sameElem(a[0].T.Elem, e, null[i], v, vNull) {
				outE, outN = append(outE, e), append(outN, null[i])
			}
		}
		return types.Datum{T: a[0].T, S: arrayText(outE, outN)}, nil
	}
	register([]Overload{{Args: []types.Kind{types.Array, Any}, RetFn: sameType(0), Fn: remove}}, "array_remove")

	int4Array := types.ArrayOf(types.Int4)
	// positions gives the 1-based positions of a[1] in a[0] from start on.
	positions := func(c *Ctx, a []types.Datum, first bool) ([]string, error) {
		elems, null, err := types.SplitArrayText(a[0].S)
		if err != nil {
			return nil, err
		}
		start := 1
		if len(a) > 2 {
			if a[2].Null {
				return nil, pgerr.New(pgerr.NullValueNotAllowed, "initial position must not be null")
			}
			start = int(a[2].I)
		}
		v, vNull := elemText(c, a[1])
		var out []string
		for i := max(start, 1) - 1; i < len(elems); i++ {
			if sameElem(a[0].T.Elem, elems[i], null[i], v, vNull) {
				out = append(out, strconv.Itoa(i+1))
				if first {
					break
				}
			}
		}
		return out, nil
	}
	position := func(c *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Null {
			return types.NullOf(types.TInt4), nil
		}
		ps, err := positions(c, a, true)
		if err != nil || len(ps) == 0 {
			return types.NullOf(types.TInt4), err
		}
		n, _ := strconv.Atoi(ps[0])
		return types.Int(types.TInt4, int64(n)), nil
	}
	register([]Overload{{Args: []types.Kind{types.Array, Any}, Ret: types.TInt4, Fn: position},
		{Args: []types.Kind{types.Array, Any, types.Int4}, Ret: types.TInt4, Fn: position}}, "array_position")
	register([]Overload{{Args: []types.Kind{types.Array, Any}, Ret: int4Array, Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Null {
			return types.NullOf(int4Array), nil
		}
		ps, err := positions(c, a, false)
		if err != nil {
			return types.Datum{}, err
		}
		return types.Datum{T: int4Array, S: arrayText(ps, nil)}, nil
	}}}, "array_positions")

	// add puts element a[ei] at the end (or front) of array a[ai]; a NULL
	// array is an empty one, as in PostgreSQL.
	add := func(ai, ei int, front bool) RowFunc {
		return func(c *Ctx, a []types.Datum) (types.Datum, error) {
			var elems []string
			var null []bool
			if !a[ai].Null {
				var err error
				if elems, null, err = types.SplitArrayText(a[ai].S); err != nil {
					return types.Datum{}, err
				}
			}
			v, vNull := elemText(c, a[ei])
			if front {
				elems, null = append([]string{v}, elems...), append([]bool{vNull}, null...)
			} else {
				elems, null = append(elems, v), append(null, vNull)
			}
			return types.Datum{T: a[ai].T, S: arrayText(elems, null)}, nil
		}
	}
	register([]Overload{{Args: []types.Kind{types.Array, Any}, RetFn: sameType(0), Fn: add(0, 1, false)}}, "array_append")
	register([]Overload{{Args: []types.Kind{Any, types.Array}, RetFn: sameType(1), Fn: add(1, 0, true)}}, "array_prepend")
}
