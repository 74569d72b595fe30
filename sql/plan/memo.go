package plan

import (
	"fmt"
	"strings"

	"github.com/loamdb/loam/types"
)

// memo keeps a correlated subquery's rows by the values of the outer
// columns it reads, as PostgreSQL's Memoize keeps a parameterised inner
// side's: within one statement the rows depend on nothing else, unless a
// volatile function may make them differ, or the subquery reads a row
// further out than its own (which the key would not hold). A cross join
// of 330,000 rows over 7 distinct keys then runs the subquery 7 times.
type memo struct {
	cols []int // the outer row's columns the subquery reads
	rows map[string][]types.Datum
	held int
}

// memoDatums bounds the values a memo keeps.
const memoDatums = 1 << 20

// newMemo is the memo of the subquery bound with outer row o; nil when the
// rows may differ for equal keys.
func newMemo(o *outerRow, query string) *memo {
	if o.deeper || mentionsVolatile(query) {
		return nil
	}
	m := &memo{cols: []int{}, rows: map[string][]types.Datum{}}
	for k, r := range o.read {
		if r {
			m.cols = append(m.cols, k)
		}
	}
	return m
}

// key is the memo key of an outer row; ok is false without a memo.
func (m *memo) key(vals []types.Datum) (string, bool) {
	if m == nil {
		return "", false
	}
	var key strings.Builder
	for _, k := range m.cols {
		if k >= len(vals) {
			return "", false
		}
		d := vals[k]
		if d.Null {
			key.WriteString("N")
		} else {
			fmt.Fprintf(&key, "V%d:%d:%d:%g:%q:%q", d.T.Kind, d.T.Elem, d.I, d.F, d.S, d.B)
		}
		key.WriteByte(0)
	}
	return key.String(), true
}

func (m *memo) get(key string, ok bool) ([]types.Datum, bool) {
	if !ok {
		return nil, false
	}
	rows, ok := m.rows[key]
	return rows, ok
}

func (m *memo) put(key string, rows []types.Datum) {
	if m == nil || m.held >= memoDatums {
		return
	}
	m.rows[key] = rows
	m.held += len(rows) + 1
}
