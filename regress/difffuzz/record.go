package difffuzz

import (
	"context"
	"fmt"
	"strings"

	"github.com/loamdb/loam/regress/slt"
)

// record prints s and q as sqllogictest records for regress/slt/testdata:
// the tables, their rows (CHECKPOINT between the rows meant for files and
// those meant for the write log), and the query with PostgreSQL's answer.
func (r *reducer) record(ctx context.Context, s *Schema, q *Select, v Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# difffuzz seed %d: %s\n", r.f.cfg.Seed, v.Sig)
	for _, line := range strings.Split(strings.TrimRight(v.Detail, "\n"), "\n") {
		fmt.Fprintf(&b, "# %s\n", line)
	}
	b.WriteString("\n")
	stmt := func(sql string) {
		if sql != "" {
			fmt.Fprintf(&b, "statement ok\n%s\n\n", sql)
		}
	}
	for _, t := range s.Tables {
		stmt(t.CreateSQL())
	}
	for _, t := range s.Tables {
		stmt(t.InsertSQL(t.Base))
	}
	if s.hasBase() {
		stmt("CHECKPOINT")
	}
	for _, t := range s.Tables {
		stmt(t.InsertSQL(t.Log))
	}
	sql := q.SQL()
	// PostgreSQL's answer on the reduced case.
	if err := r.f.load(ctx, s); err != nil {
		fmt.Fprintf(&b, "# (could not load the reduced tables to ask PostgreSQL: %v)\n", err)
	}
	pg := r.f.pg.Query(ctx, sql)
	switch {
	case pg.Lost != nil:
		fmt.Fprintf(&b, "# PostgreSQL lost the session: %v\n%s\n", pg.Lost, sql)
	case pg.Err != nil:
		fmt.Fprintf(&b, "# PostgreSQL: ERROR %s: %s\nstatement error\n%s\n", pg.Err.Code, pg.Err.Message, sql)
	default:
		types := make([]byte, len(pg.OIDs))
		for i, o := range pg.OIDs {
			switch o {
			case 20, 21, 23:
				types[i] = 'I'
			case oidFloat4, oidFloat8:
				types[i] = 'R'
			default:
				types[i] = 'T'
			}
		}
		mode := "rowsort"
		if len(q.Order) > 0 && len(q.Order) == len(q.Items) {
			mode = "nosort"
		}
		fmt.Fprintf(&b, "query %s %s\n%s\n----\n", types, mode, sql)
		var vals []string
		for _, row := range pg.Rows {
			for i, v := range row {
				var raw []byte
				if v != nil {
					raw = []byte(*v)
				}
				vals = append(vals, slt.Render(raw, types[i]))
			}
		}
		if mode == "rowsort" {
			slt.SortValues(vals, len(types), slt.RowSort)
		}
		for _, v := range vals {
			b.WriteString(v + "\n")
		}
	}
	return b.String()
}
