package expr

import (
	"sync"

	"github.com/loamdb/loam/exec/jsonpath"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// pathCache keeps parsed jsonpaths: a query applies one path to every row.
var pathCache struct {
	sync.Mutex
	m map[string]*jsonpath.Path
}

// ParsePath parses a jsonpath, remembering it for the next row.
func ParsePath(s string) (*jsonpath.Path, error) {
	pathCache.Lock()
	p, ok := pathCache.m[s]
	pathCache.Unlock()
	if ok {
		return p, nil
	}
	p, err := jsonpath.Parse(s)
	if err != nil {
		return nil, err
	}
	pathCache.Lock()
	if pathCache.m == nil || len(pathCache.m) > 1024 {
		pathCache.m = map[string]*jsonpath.Path{}
	}
	pathCache.m[s] = p
	pathCache.Unlock()
	return p, nil
}

// pathArgNames and pathDefaults are the jsonb_path_* functions' parameters
// after (target, path): vars => '{}', silent => false.
var (
	pathArgNames = []string{"target", "path", "vars", "silent"}
	pathDefaults = []types.Datum{{}, {}, {T: types.TJSONB, S: "{}"}, types.BoolDatum(false)}
	pathArgTypes = []types.T{types.TJSONB, types.TText, types.TJSONB, types.TBool}
)

// runPath runs a jsonb_path_* call's path over its target. silent is the
// call's silent argument; a suppressed error gives ok false.
func runPath(a []types.Datum) (items []*types.JSONValue, silent, ok bool, err error) {
	silent = len(a) > 3 && a[3].I != 0
	target, err := jsonOf(a[0])
	if err != nil {
		return nil, silent, false, err
	}
	path, err := ParsePath(a[1].S)
	if err != nil {
		return nil, silent, false, err
	}
	var vars *types.JSONValue
	if len(a) > 2 {
		if vars, err = jsonOf(a[2]); err != nil {
			return nil, silent, false, err
		}
	}
	items, err = path.Query(target, vars)
	if err != nil {
		if silent && jsonpath.Suppressible(err) {
			return nil, silent, false, nil
		}
		return nil, silent, false, err
	}
	return items, silent, true, nil
}

// PathExists is jsonb_path_exists, and `jsonb @? path` with silent set.
func PathExists(a []types.Datum) (types.Datum, error) {
	items, _, ok, err := runPath(a)
	if err != nil || !ok {
		return types.NullOf(types.TBool), err
	}
	return types.BoolDatum(len(items) > 0), nil
}

// PathMatch is jsonb_path_match, and `jsonb @@ path` with silent set: the
// path's one boolean (NULL for null, as for unknown).
func PathMatch(a []types.Datum) (types.Datum, error) {
	items, silent, ok, err := runPath(a)
	if err != nil || !ok {
		return types.NullOf(types.TBool), err
	}
	if len(items) == 1 {
		switch items[0].Kind {
		case 't', 'f':
			return types.BoolDatum(items[0].Kind == 't'), nil
		case 'z':
			return types.NullOf(types.TBool), nil
		}
	}
	if silent {
		return types.NullOf(types.TBool), nil
	}
	return types.Datum{}, pgerr.New("22038", "single boolean result is expected")
}

// JSONPathOperator is `jsonb @? path` (exists) or, with match, `jsonb @@
// path`: the jsonb_path_* functions in silent mode.
func JSONPathOperator(l, r Expr, match bool) Expr {
	name, fn := "@?", PathExists
	if match {
		name, fn = "@@", PathMatch
	}
	return &Func{Name: name, Args: []Expr{l, r}, T: types.TBool, Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return fn([]types.Datum{a[0], a[1], pathDefaults[2], types.BoolDatum(true)})
		}}
}

func jsonbOf(v *types.JSONValue) types.Datum {
	return types.Datum{T: types.TJSONB, S: v.JSONB()}
}

func init() {
	pathFn := func(ret types.T, fn RowFunc) Builtin {
		return Builtin{
			Result: func(args []types.T) (types.T, bool) {
				if len(args) < 2 || len(args) > 4 {
					return ret, false
				}
				for i, t := range args {
					want := pathArgTypes[i]
					if t.Kind != want.Kind && t.Kind != types.Unknown && !(want.Kind == types.Text && t.IsString()) {
						return ret, false
					}
				}
				return ret, true
			},
			Coerce:      func(args []types.T) []types.T { return pathArgTypes[:len(args)] },
			Strict:      true,
			Fn:          fn,
			ArgNames:    pathArgNames,
			ArgDefaults: pathDefaults,
		}
	}
	exists := pathFn(types.TBool, func(_ *Ctx, a []types.Datum) (types.Datum, error) { return PathExists(a) })
	match := pathFn(types.TBool, func(_ *Ctx, a []types.Datum) (types.Datum, error) { return PathMatch(a) })
	array := pathFn(types.TJSONB, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		items, _, _, err := runPath(a)
		if err != nil {
			return types.Datum{}, err
		}
		return jsonbOf(&types.JSONValue{Kind: 'a', Vals: items}), nil
	})
	first := pathFn(types.TJSONB, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		items, _, _, err := runPath(a)
		if err != nil || len(items) == 0 {
			return types.NullOf(types.TJSONB), err
		}
		return jsonbOf(items[0]), nil
	})
	// The _tz twins differ only for datetime(), which Loam refuses.
	for _, tz := range []string{"", "_tz"} {
		Builtins["jsonb_path_exists"+tz] = exists
		Builtins["jsonb_path_match"+tz] = match
		Builtins["jsonb_path_query_array"+tz] = array
		Builtins["jsonb_path_query_first"+tz] = first
		registerSet(&SetSpec{Name: "jsonb_path_query" + tz, Args: pathArgTypes, MinArgs: 2,
			ArgNames: pathArgNames, ArgDefaults: pathDefaults,
			Cols: []types.Field{{Name: "jsonb_path_query" + tz, T: types.TJSONB}},
			Rows: func(_ *Ctx, a []types.Datum) ([][]types.Datum, error) {
				items, _, _, err := runPath(a)
				if err != nil {
					return nil, err
				}
				rows := make([][]types.Datum, len(items))
				for i, it := range items {
					rows[i] = []types.Datum{jsonbOf(it)}
				}
				return rows, nil
			}})
	}
}
