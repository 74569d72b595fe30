package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// report prints one line per query: the median time of each engine, the
// ratios Loam/DuckDB and PostgreSQL/Loam and whether the answers agreed,
// then the errors and mismatches behind the cells that are not times.
func report(w io.Writer, cfg *config, results []queryResult, mem loamMemory) {
	fmt.Fprintf(w, "\nQueries over %d rows (seed %d): median of %d runs after a warm-up, in ms; * = selective (one tenant or one day)\n\n",
		cfg.rows, cfg.seed, cfg.runs)
	table := [][]string{{"#", "query", "", "Loam", "DuckDB", "PG", "Loam/DuckDB", "PG/Loam", "Loam RSS MiB", "check"}}
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
		row = append(row, ratio(qr.by["loam"], qr.by["duckdb"]), ratio(qr.by["postgres"], qr.by["loam"]), rssText(qr.by["loam"]))
		check := "ok"
		answered := 0
		for _, name := range engineNames {
			r, ok := qr.by[name]
			if !ok {
				continue
			}
			switch {
			case r.err != nil:
				notes = append(notes, fmt.Sprintf("Q%d %s: error: %s", qr.num, name, oneLine(r.err.Error())))
			case r.mismatch != "":
				check = "MISMATCH"
				notes = append(notes, fmt.Sprintf("Q%d %s: MISMATCH with %s: %s", qr.num, name, qr.ref, r.mismatch))
			default:
				answered++
			}
		}
		switch {
		case check != "ok":
		case answered < 2:
			check = "-" // nothing to compare with
		case answered < len(qr.by):
			check = fmt.Sprintf("ok (%d agree)", answered)
		}
		table = append(table, append(row, check))
	}
	printTable(w, table, 0, 1, 2, 9)
	fmt.Fprintln(w, "\nLoam/DuckDB above 1: Loam slower than DuckDB; PG/Loam above 1: Loam faster than PostgreSQL.")
	if mem.load > 0 {
		fmt.Fprintf(w, "Loam peak RSS (VmHWM): %d MiB over the load and CHECKPOINT, %d MiB over the queries\n", mem.load>>20, mem.queries>>20)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "  "+n)
		}
	}
}

// printTable prints rows as columns two spaces apart, the columns numbered
// in left aligned left and the others right.
func printTable(w io.Writer, rows [][]string, left ...int) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if slices.Contains(left, i) {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// oneLine folds a multi-line message (DuckDB's point at the query text)
// into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cellText is an engine's median in ms, or why there is none.
// rssText is the highest resident set sampled (every 100 ms) while Loam
// ran the query: "-" when no sample fell in it.
func rssText(r *engineResult) string {
	if r == nil || r.peakRSS == 0 {
		return "-"
	}
	return fmt.Sprint(r.peakRSS >> 20)
}

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
