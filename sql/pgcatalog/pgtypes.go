package pgcatalog

import "github.com/loamdb/loam/types"

// pgType is one row of pg_type for a type Loam has.
type pgType struct {
	t        types.T
	name     string
	category string
}

var pgTypes = []pgType{
	{types.TBool, "bool", "B"}, {types.TBytea, "bytea", "U"}, {types.TQChar, "char", "Z"},
	{types.TName, "name", "S"}, {types.TInt8, "int8", "N"}, {types.TInt2, "int2", "N"},
	{types.TInt4, "int4", "N"}, {types.TText, "text", "S"}, {types.TOID, "oid", "N"},
	{types.TJSON, "json", "U"}, {types.TFloat4, "float4", "N"}, {types.TFloat8, "float8", "N"},
	{types.Of(types.Char), "bpchar", "S"}, {types.Of(types.Varchar), "varchar", "S"},
	{types.TDate, "date", "D"}, {types.TTime, "time", "D"}, {types.TTimestamp, "timestamp", "D"},
	{types.TTimestampTZ, "timestamptz", "D"}, {types.TInterval, "interval", "T"},
	{types.TNumeric, "numeric", "N"}, {types.TUUID, "uuid", "U"}, {types.TJSONB, "jsonb", "U"},
	{types.Of(types.ACLItem), "aclitem", "U"},
}

// typeByOID finds a type (base or array) by its pg_type OID.
func typeByOID(oid uint32) (types.T, bool) {
	for _, pt := range pgTypes {
		if pt.t.OID() == oid {
			return pt.t, true
		}
		if a := types.ArrayOf(pt.t.Kind); a.OID() == oid {
			return a, true
		}
	}
	return types.T{}, false
}

// withTypmod applies an atttypmod to a type, undoing T.Typmod.
func withTypmod(t types.T, mod int32) types.T {
	if mod < 0 {
		return t
	}
	switch t.Kind {
	case types.Varchar, types.Char:
		t.Width = mod - 4
	case types.Numeric:
		t.Width, t.Scale = (mod-4)>>16, (mod-4)&0xffff
	case types.Time, types.Timestamp, types.TimestampTZ:
		t.Width = mod
	}
	return t
}

// collationOf is a column's attcollation: "default" for strings, "C" for
// name, none for other types.
func collationOf(t types.T) uint32 {
	switch {
	case t.Kind == types.Name:
		return 950
	case t.IsString() && t.Kind != types.QChar:
		return 100
	}
	return 0
}

// storage is typstorage: plain for fixed-width types, main for numeric,
// extended for the other variable-length ones.
func storage(t types.T) string {
	switch {
	case t.Kind == types.Numeric:
		return "m"
	case t.Size() < 0:
		return "x"
	}
	return "p"
}

// dataType is information_schema's data_type: the SQL standard's spelling,
// without modifiers.
func dataType(t types.T) string {
	if t.Kind == types.Array {
		return "ARRAY"
	}
	return types.Of(t.Kind).String()
}

func udtName(t types.T) string {
	for _, pt := range pgTypes {
		if pt.t.Kind == t.Kind {
			return pt.name
		}
		if t.Kind == types.Array && pt.t.Kind == t.Elem {
			return "_" + pt.name
		}
	}
	return t.String()
}
