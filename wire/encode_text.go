package wire

import (
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
)

// appendFunc appends row i of a column to buf. The row loop calls it only
// for non-null rows; it never type-switches per value.
type appendFunc func(buf []byte, i int) []byte

// checkArrow verifies that arr carries t the way types.T.Arrow says, so an
// encoder's type assertions cannot fail.
func checkArrow(t types.T, arr arrow.Array) error {
	if got, want := arr.DataType().ID(), t.Arrow().ID(); got != want {
		return pgerr.New(pgerr.InternalError, "result column of type %s arrived as Arrow %s, want %s", t, arr.DataType(), t.Arrow())
	}
	return nil
}

// textEncoder picks the text-format encoder for a column.
func textEncoder(t types.T, arr arrow.Array, loc *time.Location) (appendFunc, error) {
	if err := checkArrow(t, arr); err != nil {
		return nil, err
	}
	if t.Kind == types.Interval {
		a := arr.(*array.MonthDayNanoInterval)
		return func(buf []byte, i int) []byte { return appendIntervalText(buf, a.Value(i)) }, nil
	}
	return types.TextWriter(t, arr, loc), nil
}

// appendIntervalText prints an interval in IntervalStyle postgres:
// "1 year 2 mons 3 days 04:05:06.5".
func appendIntervalText(buf []byte, v arrow.MonthDayNanoInterval) []byte {
	start := len(buf)
	unit := func(n int64, name string) {
		if n == 0 {
			return
		}
		if len(buf) > start {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, n, 10)
		buf = append(buf, ' ')
		buf = append(buf, name...)
		if n != 1 && n != -1 {
			buf = append(buf, 's')
		}
	}
	unit(int64(v.Months/12), "year")
	unit(int64(v.Months%12), "mon")
	unit(int64(v.Days), "day")
	us := v.Nanoseconds / 1000
	if us != 0 || len(buf) == start {
		if len(buf) > start {
			buf = append(buf, ' ')
		}
		if us < 0 {
			buf = append(buf, '-')
			us = -us
		}
		h, m, s, frac := us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000
		buf = append(buf, fmt.Sprintf("%02d:%02d:%02d", h, m, s)...)
		if frac != 0 {
			f := fmt.Sprintf("%06d", frac)
			for len(f) > 0 && f[len(f)-1] == '0' {
				f = f[:len(f)-1]
			}
			buf = append(buf, '.')
			buf = append(buf, f...)
		}
	}
	return buf
}
