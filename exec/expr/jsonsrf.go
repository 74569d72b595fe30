package expr

import (
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// SetSpec is a set-returning function over JSON: its arguments' types (a
// literal of unknown type takes them), its result columns and the rows one
// call returns. All of them are strict: the planner gives no rows for a
// NULL argument without calling Rows.
type SetSpec struct {
	Name    string
	Args    []types.T
	MinArgs int // trailing arguments past MinArgs have defaults
	// ArgNames name the parameters for named-argument calls (silent =>
	// true); ArgDefaults give the values of those a call leaves out.
	ArgNames    []string
	ArgDefaults []types.Datum
	Cols        []types.Field // one column: the function returns a scalar
	// Named is whether a lone column keeps its name under a table alias
	// (an OUT parameter, as jsonb_array_elements's value) rather than
	// taking the alias.
	Named bool
	// NullRow is a function of one record (jsonb_to_record): a NULL
	// argument gives one row of NULLs, not none.
	NullRow bool
	Rows    func(c *Ctx, a []types.Datum) ([][]types.Datum, error)
}

// setSpecs holds the JSON set-returning functions by name.
var setSpecs = map[string]*SetSpec{}

// LookupSetSpec finds a JSON set-returning function by name.
func LookupSetSpec(name string) (*SetSpec, bool) {
	s, ok := setSpecs[name]
	return s, ok
}

func registerSet(s *SetSpec) {
	if s.MinArgs == 0 {
		s.MinArgs = len(s.Args)
	}
	setSpecs[s.Name] = s
}

func init() {
	for _, k := range []types.Kind{types.JSON, types.JSONB} {
		jt := types.Of(k)
		prefix := map[types.Kind]string{types.JSON: "json", types.JSONB: "jsonb"}[k]
		for _, asText := range []bool{false, true} {
			asText := asText
			vt, suffix := jt, ""
			if asText {
				vt, suffix = types.TText, "_text"
			}
			value := func(m *types.JSONValue) types.Datum {
				if asText {
					return jsonText(m, jt)
				}
				return jsonOut(m, jt)
			}
			name := prefix + "_each" + suffix
			registerSet(&SetSpec{Name: name, Args: []types.T{jt},
				Cols: []types.Field{{Name: "key", T: types.TText}, {Name: "value", T: vt}},
				Rows: func(_ *Ctx, a []types.Datum) ([][]types.Datum, error) {
					v, err := jsonOf(a[0])
					if err != nil {
						return nil, err
					}
					if v.Kind != 'o' {
						return nil, eachError(name, k, v)
					}
					rows := make([][]types.Datum, len(v.Keys))
					for i, key := range v.Keys {
						rows[i] = []types.Datum{types.TextDatum(key), value(v.Vals[i])}
					}
					return rows, nil
				}})
			elemName := prefix + "_array_elements" + suffix
			registerSet(&SetSpec{Name: elemName, Args: []types.T{jt}, Named: true,
				Cols: []types.Field{{Name: "value", T: vt}},
				Rows: func(_ *Ctx, a []types.Datum) ([][]types.Datum, error) {
					v, err := jsonOf(a[0])
					if err != nil {
						return nil, err
					}
					if v.Kind != 'a' {
						return nil, elementsError(elemName, k, v)
					}
					rows := make([][]types.Datum, len(v.Vals))
					for i, m := range v.Vals {
						rows[i] = []types.Datum{value(m)}
					}
					return rows, nil
				}})
		}
		keysName := prefix + "_object_keys"
		registerSet(&SetSpec{Name: keysName, Args: []types.T{jt},
			Cols: []types.Field{{Name: keysName, T: types.TText}},
			Rows: func(_ *Ctx, a []types.Datum) ([][]types.Datum, error) {
				v, err := jsonOf(a[0])
				if err != nil {
					return nil, err
				}
				switch v.Kind {
				case 'o':
				case 'a':
					return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on an array", keysName)
				default:
					return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a scalar", keysName)
				}
				rows := make([][]types.Datum, len(v.Keys))
				for i, key := range v.Keys {
					rows[i] = []types.Datum{types.TextDatum(key)}
				}
				return rows, nil
			}})
	}
}

// eachError is json[b]_each's complaint about a value that is no object;
// json's streaming parser words it after what it met.
func eachError(name string, k types.Kind, v *types.JSONValue) error {
	switch {
	case k == types.JSONB:
		return pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-object", name)
	case v.Kind == 'a':
		return pgerr.New(pgerr.InvalidParameterValue, "cannot deconstruct an array as an object")
	}
	return pgerr.New(pgerr.InvalidParameterValue, "cannot deconstruct a scalar")
}

// elementsError is json[b]_array_elements's complaint about a value that
// is no array.
func elementsError(name string, k types.Kind, v *types.JSONValue) error {
	switch {
	case k == types.JSONB && v.Kind == 'o':
		return pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from an object")
	case k == types.JSONB:
		return pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from a scalar")
	case v.Kind == 'o':
		return pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-array", name)
	}
	return pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a scalar", name)
}
