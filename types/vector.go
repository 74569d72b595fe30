package types

import "strings"

// vectorWidth marks an Array type as PostgreSQL's int2vector or
// oidvector, the catalogs' fixed arrays (pg_index.indkey, indclass):
// their values print as "1 2" rather than "{1,2}" (pg_dump parses
// indkey that way) and are subscripted from 0. Inside Loam they are
// arrays of int2 and oid, with the array's text form.
const vectorWidth = -2

// Int2Vector and OIDVector are PostgreSQL's int2vector and oidvector.
var (
	Int2Vector = T{Kind: Array, Width: vectorWidth, Elem: Int2}
	OIDVector  = T{Kind: Array, Width: vectorWidth, Elem: OID}
)

// IsVector reports whether t is int2vector or oidvector.
func (t T) IsVector() bool { return t.Kind == Array && t.Width == vectorWidth }

// vectorText is a vector's output: its elements separated by spaces.
func vectorText(s string) string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	return strings.ReplaceAll(s, ",", " ")
}

// vectorOID and vectorName are int2vector's and oidvector's pg_type OID
// and name.
func vectorOID(t T) uint32 {
	if t.Elem == OID {
		return 30
	}
	return 22
}

func vectorName(t T) string {
	if t.Elem == OID {
		return "oidvector"
	}
	return "int2vector"
}
