package difffuzz

import (
	"fmt"
	"math/rand"
	"strings"
)

// Kind is the generator's view of a type: the families it builds
// expressions over. Int covers int2/int4/int8, Text covers text/varchar.
type Kind int

const (
	KInt Kind = iota
	KFloat
	KNumeric
	KText
	KBool
	KDate
	KTimestamp
	KTimestamptz
	KUUID
	KBytea
	KJSONB
	KInterval // not storable in Loam's tables: only built by expressions
	nKinds
)

func (k Kind) String() string {
	return [...]string{"int", "float", "numeric", "text", "bool", "date", "timestamp", "timestamptz", "uuid", "bytea", "jsonb", "interval"}[k]
}

// sqlType is a column type as written in CREATE TABLE.
type sqlType struct {
	Name string
	Kind Kind
}

// storable are the column types Loam's CREATE TABLE accepts (interval is
// refused: "type interval cannot be stored in a table").
var storable = []sqlType{
	{"int2", KInt}, {"int4", KInt}, {"int4", KInt}, {"int8", KInt},
	{"float4", KFloat}, {"float8", KFloat}, {"float8", KFloat},
	{"numeric", KNumeric}, {"numeric(10,2)", KNumeric},
	{"text", KText}, {"text", KText}, {"varchar", KText}, {"varchar(8)", KText},
	{"bool", KBool},
	{"date", KDate}, {"timestamp", KTimestamp}, {"timestamptz", KTimestamptz},
	{"uuid", KUUID}, {"bytea", KBytea}, {"jsonb", KJSONB},
}

// Column is one column of a generated table.
type Column struct {
	Name string
	Type sqlType
}

// Table is a generated table and its rows, split into the rows
// checkpointed into Iceberg files (Base) and those still in the write log
// (Log) when the query runs.
type Table struct {
	Name string
	Cols []Column
	Base []Row
	Log  []Row
}

// Row holds one value per column: nil is NULL, else the value's text form.
type Row []*string

// Schema is the set of tables one round of the fuzzer works on.
type Schema struct {
	Tables []*Table
}

// colNames is small so that tables share column names (the same-named
// columns of joins and GROUP BY are a source of binder bugs).
var colNames = []string{"a", "b", "c", "k", "v", "id"}

// charType is the blank-padded character type, generated only with
// Gates.CharColumn.
var charType = sqlType{"char(3)", KText}

// genSchema makes 2–3 tables of 2–5 columns each.
func genSchema(r *rand.Rand, gates Gates) *Schema {
	s := &Schema{}
	n := 2 + r.Intn(2)
	for i := 0; i < n; i++ {
		t := &Table{Name: fmt.Sprintf("t%d", i)}
		names := append([]string(nil), colNames...)
		r.Shuffle(len(names), func(a, b int) { names[a], names[b] = names[b], names[a] })
		nc := 2 + r.Intn(4)
		for j := 0; j < nc; j++ {
			var ty sqlType
			// Ints and text most often: they are what joins and groups use.
			switch x := r.Intn(10); {
			case x < 3:
				ty = sqlType{"int4", KInt}
			case x < 4:
				ty = sqlType{"text", KText}
			default:
				ty = storable[r.Intn(len(storable))]
				if gates.CharColumn && r.Intn(10) == 0 {
					ty = charType
				}
			}
			t.Cols = append(t.Cols, Column{Name: names[j], Type: ty})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// genRows makes n rows for t from small value domains, so that joins
// match, groups have several rows and DISTINCT removes some.
func genRows(r *rand.Rand, t *Table, n int, extremes, nonASCII bool) []Row {
	rows := make([]Row, n)
	for i := range rows {
		row := make(Row, len(t.Cols))
		for j, c := range t.Cols {
			row[j] = genValue(r, c.Type, extremes, nonASCII)
		}
		rows[i] = row
	}
	return rows
}

func sp(s string) *string { return &s }

// genValue is a random value of type ty, NULL about one time in eight.
// Floats are small dyadic fractions: their sums are exact whatever the
// order of addition, so parallel or reordered aggregation agrees exactly.
// Extremes (the bounds of the integer types) only when extremes is set.
func genValue(r *rand.Rand, ty sqlType, extremes, nonASCII bool) *string {
	if r.Intn(8) == 0 {
		return nil
	}
	pick := func(vs ...string) *string { return sp(vs[r.Intn(len(vs))]) }
	switch ty.Kind {
	case KInt:
		if extremes && r.Intn(20) == 0 {
			switch ty.Name {
			case "int2":
				return pick("32767", "-32768")
			case "int8":
				return pick("9223372036854775807", "-9223372036854775808", "4000000000")
			default:
				return pick("2147483647", "-2147483648")
			}
		}
		return sp(fmt.Sprint(r.Intn(12) - 3))
	case KFloat:
		return pick("0", "1", "-1", "0.5", "2.25", "-3.75", "10", "100.125", "-0.5", "7")
	case KNumeric:
		if ty.Name == "numeric" {
			return pick("0", "1", "-1", "1.5", "2.25", "3.333", "10", "-7.125", "100", "0.001", "12345678.9")
		}
		return pick("0.00", "1.00", "-1.50", "2.25", "3.33", "10.00", "-7.13", "99.99")
	case KText:
		if ty.Name == "char(3)" {
			// Blank-padded: 'a' is stored as 'a  '.
			return pick("", "a", "b", "ab", "B", "abc", "a b", " a", "zz")
		}
		if strings.HasPrefix(ty.Name, "varchar(") {
			return pick("", "a", "b", "ab", "B", "abc", "a b", "zz", "x%y", "10")
		}
		if nonASCII {
			return pick("", "a", "b", "ab", "B", "abc", "a b", "zz", "x%y", "10", "Hello World", "é", " a ")
		}
		return pick("", "a", "b", "ab", "B", "abc", "a b", "zz", "x%y", "10", "Hello World", " a ")
	case KBool:
		return pick("true", "false")
	case KDate:
		return pick("2020-01-01", "2020-01-02", "2020-02-29", "2021-12-31", "1999-06-15", "2024-03-10", "2020-01-31")
	case KTimestamp:
		return pick("2020-01-01 00:00:00", "2020-01-01 12:30:00", "2020-01-02 23:59:59.5", "2021-06-15 08:00:00", "1999-12-31 23:00:00", "2024-02-29 06:07:08.123456")
	case KTimestamptz:
		return pick("2020-01-01 00:00:00+00", "2020-01-01 12:30:00+02", "2020-01-02 23:59:59.5+00", "2021-06-15 08:00:00-05", "1999-12-31 23:00:00+00", "2024-02-29 06:07:08.123456+00")
	case KUUID:
		return pick("00000000-0000-0000-0000-000000000000", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "ffffffff-ffff-ffff-ffff-ffffffffffff", "123e4567-e89b-12d3-a456-426614174000")
	case KBytea:
		return pick(`\x`, `\x00`, `\x0102`, `\xff`, `\x616263`, `\x61`)
	case KJSONB:
		return pick(`{}`, `{"a": 1}`, `{"a": 2, "b": "x"}`, `[1, 2, 3]`, `{"b": null}`, `"s"`, `1.5`, `{"a": {"c": true}}`)
	}
	panic("genValue: kind " + ty.Kind.String())
}

// quote is s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// literal is v as it appears in an INSERT: a quoted literal the column's
// type reads (the text form of every type) or NULL.
func literal(v *string) string {
	if v == nil {
		return "NULL"
	}
	return quote(*v)
}

// CreateSQL is t's CREATE TABLE statement.
func (t *Table) CreateSQL() string {
	var cols []string
	for _, c := range t.Cols {
		cols = append(cols, c.Name+" "+c.Type.Name)
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", t.Name, strings.Join(cols, ", "))
}

// InsertSQL is one INSERT of rows into t ("" for no rows).
func (t *Table) InsertSQL(rows []Row) string {
	if len(rows) == 0 {
		return ""
	}
	var vals []string
	for _, row := range rows {
		var vs []string
		for _, v := range row {
			vs = append(vs, literal(v))
		}
		vals = append(vals, "("+strings.Join(vs, ", ")+")")
	}
	return fmt.Sprintf("INSERT INTO %s VALUES %s", t.Name, strings.Join(vals, ", "))
}

// copyText is rows in COPY's text format.
func copyText(rows []Row) string {
	var b strings.Builder
	for _, row := range rows {
		for j, v := range row {
			if j > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString(`\N`)
				continue
			}
			b.WriteString(strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`).Replace(*v))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// clone copies s deeply enough for the reducer to cut rows and columns.
func (s *Schema) clone() *Schema {
	c := &Schema{}
	for _, t := range s.Tables {
		nt := &Table{Name: t.Name, Cols: append([]Column(nil), t.Cols...)}
		nt.Base = append([]Row(nil), t.Base...)
		nt.Log = append([]Row(nil), t.Log...)
		c.Tables = append(c.Tables, nt)
	}
	return c
}
