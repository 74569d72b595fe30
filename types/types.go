// Package types is Loam's SQL type system: PostgreSQL types with their OIDs,
// type modifiers and names, and the Arrow type that carries each in a batch.
package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is the PostgreSQL type a value has, without its modifier.
type Kind uint8

const (
	Unknown Kind = iota // an untyped literal or NULL, coerced by context
	Bool
	Int2
	Int4
	Int8
	Float4
	Float8
	Numeric
	Text
	Varchar
	Char
	Bytea
	Date
	Time
	Timestamp
	TimestampTZ
	UUID
	JSON
	JSONB
	Interval
	// Array is a one-dimensional array of T.Elem; batches carry it as its
	// PostgreSQL text form ({1,2,NULL}) in a string column: aggregates,
	// ARRAY[…], array casts and array parameters produce them.
	Array
	// Name is PostgreSQL's name (identifiers in the catalogs): text-like.
	Name
	// OID is an object identifier, an unsigned 32-bit integer; batches carry
	// it as int64.
	OID
	// QChar is PostgreSQL's one-byte "char" (relkind, contype…), carried as
	// text.
	QChar
	// Regclass and Regtype are OIDs that print as the relation's or type's
	// name; batches carry the name (the planner maps to and from oid with
	// the catalog, which expressions cannot reach).
	Regclass
	Regtype
	Regnamespace
	// Void is the result of functions that return nothing (pg_sleep); its
	// one value prints as the empty string.
	Void
	// Record is a composite value (a row): T.Width names its fields (see
	// RecordOf), and batches carry it as its PostgreSQL text form, (1,"a b").
	Record
	// ACLItem is one entry of an access control list (pg_class.relacl's
	// elements), grantee=privileges/grantor, carried as that text.
	ACLItem
	// Regrole is an OID that prints as the role's name, carried as the
	// name as Regclass is.
	Regrole
)

// PostgreSQL type OIDs (pg_type.oid).
const (
	OIDBool         = 16
	OIDBytea        = 17
	OIDInt8         = 20
	OIDInt2         = 21
	OIDInt4         = 23
	OIDText         = 25
	OIDJSON         = 114
	OIDFloat4       = 700
	OIDFloat8       = 701
	OIDUnknown      = 705
	OIDBpchar       = 1042
	OIDVarchar      = 1043
	OIDDate         = 1082
	OIDTime         = 1083
	OIDTimestamp    = 1114
	OIDTimestampTZ  = 1184
	OIDInterval     = 1186
	OIDNumeric      = 1700
	OIDUUID         = 2950
	OIDJSONB        = 3802
	OIDName         = 19
	OIDOid          = 26
	OIDQChar        = 18
	OIDRegclass     = 2205
	OIDRegtype      = 2206
	OIDRegnamespace = 4089
	OIDVoid         = 2278
	OIDRecord       = 2249
	OIDACLItem      = 1033
	OIDRegrole      = 4096
)

// T is a type with its modifier: the length of varchar/char, the precision and
// scale of numeric, the fractional-second precision of time and timestamps.
type T struct {
	Kind Kind
	// Width is n in varchar(n)/char(n), p in numeric(p,s) and timestamp(p);
	// -1 when the type has no modifier.
	Width int32
	Scale int32
	// Elem is the element kind of an Array.
	Elem Kind
	// DecPrec, on a numeric without a modifier, is the precision of the
	// Decimal128 its values travel in when every value has the scale
	// Scale (arithmetic over typed decimals: see DecimalOf); 0 when they
	// travel as text.
	DecPrec int32
}

// ArrayOf is the array type with elements of kind k.
func ArrayOf(k Kind) T { return T{Kind: Array, Width: -1, Elem: k} }

// arrayOIDs are the pg_type OIDs of the array types (typarray).
var arrayOIDs = [...]uint32{
	Unknown: 1009, Bool: 1000, Int2: 1005, Int4: 1007, Int8: 1016,
	Float4: 1021, Float8: 1022, Numeric: 1231, Text: 1009,
	Varchar: 1015, Char: 1014, Bytea: 1001, Date: 1182,
	Time: 1183, Timestamp: 1115, TimestampTZ: 1185,
	UUID: 2951, JSON: 199, JSONB: 3807, Interval: 1187,
	Name: 1003, OID: 1028, QChar: 1002, Regclass: 2210, Regtype: 2211, Regnamespace: 4090, Void: 0, Record: 2287, ACLItem: 1034, Regrole: 4097,
}

// Of returns the type of a kind with no modifier.
func Of(k Kind) T { return T{Kind: k, Width: -1} }

var (
	TUnknown     = Of(Unknown)
	TBool        = Of(Bool)
	TInt2        = Of(Int2)
	TInt4        = Of(Int4)
	TInt8        = Of(Int8)
	TFloat4      = Of(Float4)
	TFloat8      = Of(Float8)
	TNumeric     = Of(Numeric)
	TText        = Of(Text)
	TBytea       = Of(Bytea)
	TDate        = Of(Date)
	TTime        = Of(Time)
	TTimestamp   = Of(Timestamp)
	TTimestampTZ = Of(TimestampTZ)
	TUUID        = Of(UUID)
	TJSON        = Of(JSON)
	TJSONB       = Of(JSONB)
	TInterval    = Of(Interval)
	TName        = Of(Name)
	TOID         = Of(OID)
	TQChar       = Of(QChar)
)

var kindOIDs = [...]uint32{
	Unknown: OIDText, Bool: OIDBool, Int2: OIDInt2, Int4: OIDInt4, Int8: OIDInt8,
	Float4: OIDFloat4, Float8: OIDFloat8, Numeric: OIDNumeric, Text: OIDText,
	Varchar: OIDVarchar, Char: OIDBpchar, Bytea: OIDBytea, Date: OIDDate,
	Time: OIDTime, Timestamp: OIDTimestamp, TimestampTZ: OIDTimestampTZ,
	UUID: OIDUUID, JSON: OIDJSON, JSONB: OIDJSONB, Interval: OIDInterval,
	Array: 0, Name: OIDName, OID: OIDOid, QChar: OIDQChar, Regclass: OIDRegclass, Regtype: OIDRegtype, Regnamespace: OIDRegnamespace, Void: OIDVoid, Record: OIDRecord,
	ACLItem: OIDACLItem, Regrole: OIDRegrole,
}

// OID is the pg_type OID clients see in RowDescription. An unresolved
// literal is reported as text, as PostgreSQL does for SELECT 'x'.
func (t T) OID() uint32 {
	if t.Kind == Array {
		return arrayOIDs[t.Elem]
	}
	return kindOIDs[t.Kind]
}

// FromOID maps a pg_type OID to a type; ok is false for types Loam lacks.
func FromOID(oid uint32) (T, bool) {
	if oid == 0 || oid == OIDUnknown {
		return TUnknown, true
	}
	for k, o := range kindOIDs {
		if o == oid && Kind(k) != Unknown {
			return Of(Kind(k)), true
		}
	}
	for k, o := range arrayOIDs {
		// 1009 is text[]: Unknown's entry only names what an untyped array prints as.
		if o == oid && Kind(k) != Unknown {
			return ArrayOf(Kind(k)), true
		}
	}
	return TUnknown, false
}

// Typmod is the atttypmod PostgreSQL reports: -1, or the modifier encoded
// the way PostgreSQL encodes it (length+4 for character types).
func (t T) Typmod() int32 {
	if t.Width < 0 {
		return -1
	}
	switch t.Kind {
	case Varchar, Char:
		return t.Width + 4
	case Numeric:
		return (t.Width<<16 | t.Scale) + 4
	case Time, Timestamp, TimestampTZ:
		return t.Width
	}
	return -1
}

// Size is pg_type.typlen: the fixed width in bytes, or -1 for varlena.
func (t T) Size() int16 {
	switch t.Kind {
	case Bool, QChar:
		return 1
	case Name:
		return 64
	case Int2:
		return 2
	case Int4, Float4, Date, OID, Regclass, Regtype, Regnamespace, Regrole:
		return 4
	case Int8, Float8, Time, Timestamp, TimestampTZ:
		return 8
	case ACLItem:
		return 12
	case UUID, Interval:
		return 16
	}
	return -1
}

var kindNames = [...]string{
	Unknown: "unknown", Bool: "boolean", Int2: "smallint", Int4: "integer", Int8: "bigint",
	Float4: "real", Float8: "double precision", Numeric: "numeric", Text: "text",
	Varchar: "character varying", Char: "character", Bytea: "bytea", Date: "date",
	Time: "time without time zone", Timestamp: "timestamp without time zone",
	TimestampTZ: "timestamp with time zone", UUID: "uuid", JSON: "json", JSONB: "jsonb",
	Interval: "interval", Array: "array", Name: "name", OID: "oid", QChar: `"char"`,
	Regclass: "regclass", Regtype: "regtype", Regnamespace: "regnamespace", Void: "void", Record: "record",
	ACLItem: "aclitem", Regrole: "regrole",
}

// String is the type's name as format_type prints it.
func (t T) String() string {
	if t.Kind == Array {
		return Of(t.Elem).String() + "[]"
	}
	name := kindNames[t.Kind]
	if t.Width < 0 {
		return name
	}
	switch t.Kind {
	case Varchar, Char:
		return fmt.Sprintf("%s(%d)", name, t.Width)
	case Numeric:
		return fmt.Sprintf("numeric(%d,%d)", t.Width, t.Scale)
	case Time:
		return fmt.Sprintf("time(%d) without time zone", t.Width)
	case Timestamp:
		return fmt.Sprintf("timestamp(%d) without time zone", t.Width)
	case TimestampTZ:
		return fmt.Sprintf("timestamp(%d) with time zone", t.Width)
	}
	return name
}

// Arrow is the Arrow type that carries values of t inside a batch. Numeric
// of a known scale travels as a Decimal128 (see Decimal), other numeric as
// its exact decimal text, since unconstrained numeric values each carry
// their own scale; uuid travels as canonical text.
func (t T) Arrow() arrow.DataType {
	switch t.Kind {
	case Numeric:
		if p, s, ok := t.Decimal(); ok {
			return DecimalArrow(p, s)
		}
		if p, s, ok := t.Wide(); ok {
			return WideArrow(p, s)
		}
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Int2:
		return arrow.PrimitiveTypes.Int16
	case Int4:
		return arrow.PrimitiveTypes.Int32
	case Int8, OID:
		return arrow.PrimitiveTypes.Int64
	case Float4:
		return arrow.PrimitiveTypes.Float32
	case Float8:
		return arrow.PrimitiveTypes.Float64
	case Bytea:
		return arrow.BinaryTypes.Binary
	case Date:
		return arrow.FixedWidthTypes.Date32
	case Time:
		return arrow.FixedWidthTypes.Time64us
	case Timestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case TimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case Interval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	}
	return arrow.BinaryTypes.String
}

// IsNumeric reports whether t takes part in arithmetic.
func (t T) IsNumeric() bool {
	switch t.Kind {
	case Int2, Int4, Int8, Float4, Float8, Numeric:
		return true
	}
	return false
}

// IsInteger reports whether t is one of the integer types.
func (t T) IsInteger() bool { return t.Kind == Int2 || t.Kind == Int4 || t.Kind == Int8 }

// IsString reports whether t is one of the character types (or unknown).
func (t T) IsString() bool {
	return t.Kind == Text || t.Kind == Varchar || t.Kind == Char || t.Kind == Unknown || t.Kind == Name || t.Kind == QChar
}

// IsReg reports the OID alias types that print as names (regclass…).
func (t T) IsReg() bool {
	return t.Kind == Regclass || t.Kind == Regtype || t.Kind == Regnamespace || t.Kind == Regrole
}

// Same reports whether two types share a kind (modifiers aside).
func (t T) Same(o T) bool { return t.Kind == o.Kind }

// numericRank orders the numeric types for implicit promotion.
func numericRank(k Kind) int {
	switch k {
	case Int2:
		return 1
	case Int4:
		return 2
	case Int8:
		return 3
	case Numeric:
		return 4
	case Float4:
		return 5
	case Float8:
		return 6
	}
	return 0
}

// Common returns the type two operands are coerced to for comparison,
// arithmetic, CASE or UNION, following PostgreSQL's implicit casts; ok is
// false where PostgreSQL would raise "operator does not exist".
func Common(a, b T) (T, bool) {
	switch {
	case a.Kind == Unknown && b.Kind == Unknown:
		return TText, true
	case a.Kind == Unknown:
		return b, true
	case b.Kind == Unknown:
		return a, true
	case a.Kind == Array && b.Kind == Array && a.Elem != b.Elem:
		return TUnknown, false
	case a.Kind == b.Kind:
		if a.Width == b.Width && a.Scale == b.Scale && a.DecPrec == b.DecPrec {
			return a, true
		}
		return Of(a.Kind), true
	case a.Kind == OID && (b.IsInteger() || b.IsReg()), b.Kind == OID && (a.IsInteger() || a.IsReg()):
		return TOID, true
	case a.IsNumeric() && b.IsNumeric():
		if numericRank(a.Kind) >= numericRank(b.Kind) {
			return Of(a.Kind), true
		}
		return Of(b.Kind), true
	case a.IsString() && b.IsString():
		return TText, true
	case (a.Kind == Timestamp || a.Kind == TimestampTZ || a.Kind == Date) &&
		(b.Kind == Timestamp || b.Kind == TimestampTZ || b.Kind == Date):
		if a.Kind == TimestampTZ || b.Kind == TimestampTZ {
			return TTimestampTZ, true
		}
		return TTimestamp, true
	case (a.Kind == JSON || a.Kind == JSONB) && b.IsString(), (b.Kind == JSON || b.Kind == JSONB) && a.IsString():
		return TText, true
	}
	return TUnknown, false
}
