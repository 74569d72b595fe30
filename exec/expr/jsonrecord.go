package expr

import (
	"strings"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// IsRecordFunc names json[b]_to_record and json[b]_to_recordset, whose
// columns a column definition list gives (AS t(name text, tokens int)).
func IsRecordFunc(name string) bool {
	switch name {
	case "json_to_record", "jsonb_to_record", "json_to_recordset", "jsonb_to_recordset":
		return true
	}
	return false
}

// RecordSpec is json[b]_to_record[set] returning the columns cols: each
// the object member of its name, converted as PostgreSQL's populate
// functions convert it (a JSON string's text, any other value's JSON
// text, JSON null or a missing member as NULL).
func RecordSpec(name string, cols []types.Field) *SetSpec {
	jt := types.TJSONB
	if strings.HasPrefix(name, "json_") {
		jt = types.TJSON
	}
	set := strings.HasSuffix(name, "set")
	return &SetSpec{Name: name, Args: []types.T{jt}, MinArgs: 1, Cols: cols, Named: true, NullRow: !set,
		Rows: func(c *Ctx, a []types.Datum) ([][]types.Datum, error) {
			v, err := jsonOf(a[0])
			if err != nil {
				return nil, err
			}
			objs := []*types.JSONValue{v}
			if set {
				if v.Kind != 'a' {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-array", name)
				}
				objs = v.Vals
			}
			var loc *time.Location
			if c != nil {
				loc = c.Loc
			}
			rows := make([][]types.Datum, 0, len(objs))
			for _, o := range objs {
				switch {
				case o.Kind == 'o':
				case set:
					return nil, pgerr.New(pgerr.InvalidParameterValue, "argument of %s must be an array of objects", name)
				case o.Kind == 'a':
					return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on an array")
				default:
					return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on a scalar")
				}
				row := make([]types.Datum, len(cols))
				for i, col := range cols {
					if row[i], err = recordField(field(o, col.Name), col.T, jt, loc); err != nil {
						return nil, err
					}
				}
				rows = append(rows, row)
			}
			return rows, nil
		}}
}

// recordField converts one member for a column of type t.
func recordField(m *types.JSONValue, t, jt types.T, loc *time.Location) (types.Datum, error) {
	if m == nil || m.Kind == 'z' {
		return types.NullOf(t), nil
	}
	switch {
	case t.Kind == types.JSONB:
		s, err := types.NormalizeJSONB(m.Raw)
		if jt.Kind == types.JSONB {
			s, err = m.JSONB(), nil
		}
		return types.Datum{T: t, S: s}, err
	case t.Kind == types.JSON:
		return jsonOut(m, types.TJSON), nil
	case t.Kind == types.Array && m.Kind == 'a':
		// A JSON array of scalars fills an array column.
		buf := []byte{'{'}
		for i, el := range m.Vals {
			if i > 0 {
				buf = append(buf, ',')
			}
			switch el.Kind {
			case 'z':
				buf = append(buf, "NULL"...)
			case 's':
				buf = types.AppendArrayElem(buf, el.Str)
			default:
				buf = types.AppendArrayElem(buf, jsonText(el, jt).S)
			}
		}
		return types.ParseText(t, string(append(buf, '}')), loc)
	case m.Kind == 's':
		return types.ParseText(t, m.Str, loc)
	}
	return types.ParseText(t, jsonText(m, jt).S, loc)
}
