package types

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// DescribeRow prints one row as PostgreSQL's "Failing row contains (…)"
// details do: each value in its output form, cut at 64 bytes, null as
// null. cols[i] holds values of ts[i].
func DescribeRow(ts []T, cols []arrow.Array, row int, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	b.WriteByte('(')
	for i, col := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		if col.IsNull(row) {
			b.WriteString("null")
			continue
		}
		v := TextWriter(ts[i], col, loc)(nil, row)
		if len(v) > 64 {
			n := 64
			for n > 0 && !utf8.RuneStart(v[n]) {
				n--
			}
			v = append(v[:n:n], "..."...)
		}
		b.Write(v)
	}
	b.WriteByte(')')
	return b.String()
}
