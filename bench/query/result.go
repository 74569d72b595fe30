package main

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// cell is one value of a result, normalised so that the engines' drivers
// compare: every number is a float64, every timestamp its UTC text.
type cell struct {
	null  bool
	isNum bool
	num   float64
	str   string
}

func (c cell) String() string {
	switch {
	case c.null:
		return "NULL"
	case c.isNum:
		return strconv.FormatFloat(c.num, 'g', -1, 64)
	}
	return strconv.Quote(c.str)
}

// result is the rows a query returned.
type result [][]cell

// tsText renders a timestamp the way PostgreSQL prints a timestamptz in
// UTC, so a driver's time.Time and a text timestamp compare.
func tsText(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.999999-07")
}

// float64er is what pgtype.Numeric-like and DuckDB Decimal values offer.
type float64er interface{ Float64() float64 }

// normalize turns a driver's value into a cell.
func normalize(v any) cell {
	switch x := v.(type) {
	case nil:
		return cell{null: true}
	case int64:
		return num(float64(x))
	case int32:
		return num(float64(x))
	case int16:
		return num(float64(x))
	case int8:
		return num(float64(x))
	case int:
		return num(float64(x))
	case uint64:
		return num(float64(x))
	case uint32:
		return num(float64(x))
	case float64:
		return num(x)
	case float32:
		return num(float64(x))
	case *big.Int:
		if x == nil {
			return cell{null: true}
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		return num(f)
	case time.Time:
		return cell{str: tsText(x)}
	case string:
		return cell{str: x}
	case []byte:
		return cell{str: string(x)}
	case bool:
		return cell{str: strconv.FormatBool(x)}
	case float64er:
		return num(x.Float64())
	}
	return cell{str: fmt.Sprint(v)}
}

func num(f float64) cell { return cell{isNum: true, num: f} }

// relTol is how far two floats may differ, relative to the larger: sums of
// millions of doubles in different orders differ in the last digits.
const relTol = 1e-9

// same reports whether two cells hold the same value. A number the driver
// handed over as text (an engine sending an unknown type) still compares as
// a number.
func same(a, b cell) bool {
	if a.null || b.null {
		return a.null == b.null
	}
	fa, oka := asNum(a)
	fb, okb := asNum(b)
	if oka && okb {
		if fa == fb {
			return true
		}
		return math.Abs(fa-fb) <= relTol*max(math.Abs(fa), math.Abs(fb))
	}
	if a.isNum || b.isNum {
		return false
	}
	return a.str == b.str || sameTime(a.str, b.str)
}

func asNum(c cell) (float64, bool) {
	if c.isNum {
		return c.num, true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(c.str), 64)
	return f, err == nil
}

// sameTime compares two timestamps given as text in different spellings
// (an offset of +00 or +00:00, a T or a space).
func sameTime(a, b string) bool {
	ta, oka := parseTime(a)
	tb, okb := parseTime(b)
	return oka && okb && ta.Equal(tb)
}

func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999-07", "2006-01-02 15:04:05.999999-07:00", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// diff describes the first difference between got and want (the
// reference), or returns "" when they are the same.
func diff(got, want result) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, reference has %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			return fmt.Sprintf("row %d has %d columns, reference has %d", i+1, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if !same(got[i][j], want[i][j]) {
				return fmt.Sprintf("row %d column %d: %v, reference %v (row %v, reference row %v)", i+1, j+1, got[i][j], want[i][j], got[i], want[i])
			}
		}
	}
	return ""
}
