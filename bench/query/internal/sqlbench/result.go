// Package sqlbench runs benchmark queries on engines spoken to over the
// PostgreSQL wire protocol (Loam, PostgreSQL) and on an in-process DuckDB,
// times them under a timeout, and compares their answers.
package sqlbench

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Cell is one value of a result. Wire engines give the text the server
// sent and whether the column is float4/float8 (compared with a tolerance);
// DuckDB's values are rendered as PostgreSQL would print them where the
// type allows, and numbers kept as float64 too.
type Cell struct {
	Null  bool
	Text  string
	Float bool    // a binary floating-point value: compared with a tolerance
	Num   float64 // the value when IsNum
	IsNum bool
}

func (c Cell) String() string {
	if c.Null {
		return "NULL"
	}
	return strconv.Quote(c.Text)
}

// Result is the rows a query returned, in order.
type Result [][]Cell

// RelTol is how far two floats may differ, relative to the larger: sums of
// doubles in different orders differ in the last digits.
const RelTol = 1e-9

// Diff describes the first difference between got and want (the
// reference), or "" when they agree. exact compares every value but
// floats by its text (two PostgreSQL-compatible servers must print a
// numeric, a date or a string the same way); otherwise numbers compare
// within RelTol (another engine's decimal or double against PostgreSQL's
// numeric text).
func Diff(got, want Result, exact bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, reference has %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			return fmt.Sprintf("row %d has %d columns, reference has %d", i+1, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if !same(got[i][j], want[i][j], exact) {
				return fmt.Sprintf("row %d column %d: %v, reference %v (row %v, reference row %v)",
					i+1, j+1, got[i][j], want[i][j], short(got[i]), short(want[i]))
			}
		}
	}
	return ""
}

func short(row []Cell) string {
	s := fmt.Sprint(row)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func same(a, b Cell, exact bool) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	if a.Text == b.Text {
		return true
	}
	if exact && !a.Float && !b.Float {
		return false
	}
	// Another engine's strings: CHAR(n)'s padding is PostgreSQL's.
	if !exact && strings.TrimRight(a.Text, " ") == strings.TrimRight(b.Text, " ") {
		return true
	}
	fa, oka := asNum(a)
	fb, okb := asNum(b)
	if oka && okb {
		return fa == fb || math.Abs(fa-fb) <= RelTol*max(math.Abs(fa), math.Abs(fb))
	}
	return false
}

func asNum(c Cell) (float64, bool) {
	if c.IsNum {
		return c.Num, true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(c.Text), 64)
	return f, err == nil
}

// float64er is what DuckDB's Decimal offers.
type float64er interface{ Float64() float64 }

// Normalize turns a database/sql value from DuckDB into a cell, printing
// it as PostgreSQL prints the corresponding type.
func Normalize(v any) Cell {
	switch x := v.(type) {
	case nil:
		return Cell{Null: true}
	case int64:
		return intCell(x)
	case int32:
		return intCell(int64(x))
	case int16:
		return intCell(int64(x))
	case int8:
		return intCell(int64(x))
	case int:
		return intCell(int64(x))
	case uint64:
		return Cell{Text: strconv.FormatUint(x, 10), Num: float64(x), IsNum: true}
	case uint32:
		return intCell(int64(x))
	case float64:
		return Cell{Text: strconv.FormatFloat(x, 'g', -1, 64), Num: x, IsNum: true, Float: true}
	case float32:
		return Cell{Text: strconv.FormatFloat(float64(x), 'g', -1, 32), Num: float64(x), IsNum: true, Float: true}
	case *big.Int:
		if x == nil {
			return Cell{Null: true}
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		return Cell{Text: x.String(), Num: f, IsNum: true}
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return Cell{Text: x.Format("2006-01-02")}
		}
		return Cell{Text: x.UTC().Format("2006-01-02 15:04:05.999999")}
	case string:
		return Cell{Text: x}
	case []byte:
		return Cell{Text: string(x)}
	case bool:
		if x {
			return Cell{Text: "t"}
		}
		return Cell{Text: "f"}
	case float64er:
		f := x.Float64()
		return Cell{Text: fmt.Sprint(v), Num: f, IsNum: true}
	}
	return Cell{Text: fmt.Sprint(v)}
}

func intCell(n int64) Cell {
	return Cell{Text: strconv.FormatInt(n, 10), Num: float64(n), IsNum: true}
}
