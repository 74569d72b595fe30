package plan

import (
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// TypeOf resolves a parsed type name, with Loam's spellings (STRING,
// DOUBLE) beside PostgreSQL's.
func TypeOf(tn *pg.TypeName, query string) (types.T, error) {
	var names []string
	for _, n := range tn.Names {
		names = append(names, strings.ToLower(n.GetString_().Sval))
	}
	name := names[len(names)-1]
	var mods []int32
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return types.T{}, pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants").WithPosition(pos(query, tn.Location))
		}
		mods = append(mods, c.GetIval().Ival)
	}
	var t types.T
	switch name {
	case "bool", "boolean":
		t = types.TBool
	case "int2", "smallint":
		t = types.TInt2
	case "int4", "int", "integer":
		t = types.TInt4
	case "int8", "bigint":
		t = types.TInt8
	case "float4", "real":
		t = types.TFloat4
	case "float8", "double", "float":
		t = types.TFloat8
		if name == "float" && len(mods) == 1 && mods[0] <= 24 {
			t = types.TFloat4
		}
		mods = nil
	case "numeric", "decimal":
		t = types.TNumeric
		switch len(mods) {
		case 1:
			t.Width, t.Scale = mods[0], 0
		case 2:
			t.Width, t.Scale = mods[0], mods[1]
		}
		if t.Width == 0 || t.Width > 38 || t.Scale < 0 || t.Scale > t.Width {
			if len(mods) > 0 {
				return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 38 (Iceberg's decimal limit), scale between 0 and precision", t.Width).WithPosition(pos(query, tn.Location))
			}
		}
		mods = nil
	case "text", "string":
		t = types.TText
	case "varchar":
		t = types.Of(types.Varchar)
	case "char":
		// The grammar turns CHAR into bpchar: "char" here is the quoted
		// one-byte catalog type.
		t = types.TQChar
	case "name":
		t = types.TName
	case "oid":
		t = types.TOID
	case "regclass":
		t = types.Of(types.Regclass)
	case "regtype":
		t = types.Of(types.Regtype)
	case "regnamespace":
		t = types.Of(types.Regnamespace)
	case "regrole":
		t = types.Of(types.Regrole)
	case "aclitem":
		t = types.Of(types.ACLItem)
	case "regproc", "regprocedure":
		// pg_catalog's regproc columns are text stand-ins holding the
		// function's name (PgJDBC compares typinput with 'array_in').
		t = types.TText
	case "bpchar", "character":
		t = types.Of(types.Char)
		if len(mods) == 0 {
			t.Width = 1
		}
	case "bytea":
		t = types.TBytea
	case "date":
		t = types.TDate
	case "time":
		t = types.TTime
	case "timestamp":
		t = types.TTimestamp
	case "timestamptz":
		t = types.TTimestampTZ
	case "uuid":
		t = types.TUUID
	case "json":
		t = types.TJSON
	case "jsonb":
		t = types.TJSONB
	case "interval":
		// Typmods are (range mask[, precision]): interval '1' DAY,
		// interval(2), INTERVAL SECOND(3).
		t = types.TInterval
		if len(mods) > 0 {
			t.Scale = mods[0]
		}
		if len(mods) > 1 {
			if mods[1] < 0 || mods[1] > 6 {
				return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "interval(%d) precision must be between 0 and 6", mods[1]).WithPosition(pos(query, tn.Location))
			}
			t.Width = mods[1]
		}
		mods = nil
	default:
		return types.T{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name).WithPosition(pos(query, tn.Location))
	}
	if len(mods) > 0 {
		switch t.Kind {
		case types.Varchar, types.Char:
			if mods[0] < 1 {
				return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "length for type %s must be at least 1", name).WithPosition(pos(query, tn.Location))
			}
			t.Width = mods[0]
		case types.Time, types.Timestamp, types.TimestampTZ:
			if mods[0] < 0 || mods[0] > 6 {
				return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "%s precision %d must be between 0 and 6", name, mods[0]).WithPosition(pos(query, tn.Location))
			}
			t.Width = mods[0]
		default:
			return types.T{}, pgerr.New(pgerr.SyntaxError, "type modifier is not allowed for type %q", name).WithPosition(pos(query, tn.Location))
		}
	}
	if len(tn.ArrayBounds) > 0 {
		// One-dimensional arrays of a base type; the element's modifier is
		// not kept.
		if t.Kind == types.Array || t.IsReg() {
			return types.T{}, pgerr.New(pgerr.FeatureNotSupported, "array type %s[] is not supported yet", name).WithPosition(pos(query, tn.Location))
		}
		return types.ArrayOf(t.Kind), nil
	}
	return t, nil
}
