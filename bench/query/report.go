package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// report prints one line per query: the median time of each engine, the
// ratios Loam/DuckDB and PostgreSQL/Loam and whether the answers agreed,
// then the errors and mismatches behind the cells that are not times.
func report(w io.Writer, cfg *config, results []queryResult) {
	fmt.Fprintf(w, "\nQueries over %d rows (seed %d): median of %d runs after a warm-up, in ms; * = selective (one tenant or one day)\n\n",
		cfg.rows, cfg.seed, cfg.runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tquery\t\tLoam\tDuckDB\tPG\tLoam/DuckDB\tPG/Loam\tcheck\t")
	var notes []string
	for _, qr := range results {
		sel := ""
		if qr.q.selective {
			sel = "*"
		}
		row := []string{fmt.Sprint(qr.num), qr.q.name, sel}
		for _, name := range engineNames {
			row = append(row, cellText(qr.by[name]))
		}
		row = append(row, ratio(qr.by["loam"], qr.by["duckdb"]), ratio(qr.by["postgres"], qr.by["loam"]))
		check := "ok"
		answered := 0
		for _, name := range engineNames {
			r, ok := qr.by[name]
			if !ok {
				continue
			}
			switch {
			case r.err != nil:
				notes = append(notes, fmt.Sprintf("Q%d %s: error: %v", qr.num, name, r.err))
			case r.mismatch != "":
				check = "MISMATCH"
				notes = append(notes, fmt.Sprintf("Q%d %s: MISMATCH with %s: %s", qr.num, name, qr.ref, r.mismatch))
			default:
				answered++
			}
		}
		if check == "ok" && answered < 2 {
			check = "-" // nothing to compare with
		}
		row = append(row, check)
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w, "\nLoam/DuckDB above 1: Loam slower than DuckDB; PG/Loam above 1: Loam faster than PostgreSQL.")
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "  "+n)
		}
	}
}

// cellText is an engine's median in ms, or why there is none.
func cellText(r *engineResult) string {
	switch {
	case r == nil:
		return "-"
	case r.err != nil:
		return "error"
	}
	return ms(r.median)
}

func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f", f)
	case f >= 10:
		return fmt.Sprintf("%.1f", f)
	}
	return fmt.Sprintf("%.2f", f)
}

// ratio is a's median over b's, when both answered.
func ratio(a, b *engineResult) string {
	if a == nil || b == nil || a.err != nil || b.err != nil || b.median == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(a.median)/float64(b.median))
}
