package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// report prints the results as an aligned table, then the peak-RSS figures
// and the errors behind any cell that is not a number.
func report(w io.Writer, cfg *config, results []caseResult, textBytes, loamPeak int64, rss *rssResult) {
	fmt.Fprintf(w, "\nIngest of %s rows (seed %d; %.1f MB as COPY text; MB = 10^6 bytes of that text rendering)\n\n",
		thousands(int64(cfg.rows)), cfg.seed, float64(textBytes)/1e6)

	header := []string{"case", "conns", "Loam rows/s", "Loam MB/s", "PG rows/s", "PG MB/s", "Loam/PG", "Loam CHECKPOINT"}
	table := [][]string{header}
	var notes []string
	note := func(target string, cr caseResult, err error) {
		notes = append(notes, fmt.Sprintf("%s %s x%d: %s: %v", target, cr.method, cr.conns, describe(err), err))
	}
	for _, cr := range results {
		row := []string{cr.method, strconv.Itoa(cr.conns)}
		rate := map[string]float64{}
		for _, name := range []string{"loam", "postgres"} {
			r, ok := cr.by[name]
			switch {
			case !ok:
				row = append(row, "-", "-")
			case r.err != nil:
				row = append(row, describe(r.err), "-")
				note(name, cr, r.err)
			default:
				s := r.elapsed.Seconds()
				rate[name] = float64(cr.rows) / s
				row = append(row, thousands(int64(rate[name])), fmt.Sprintf("%.1f", float64(textBytes)/1e6/s))
			}
		}
		if rate["loam"] > 0 && rate["postgres"] > 0 {
			row = append(row, fmt.Sprintf("%.2fx", rate["loam"]/rate["postgres"]))
		} else {
			row = append(row, "-")
		}
		switch r, ok := cr.by["loam"]; {
		case !ok || r.err != nil:
			row = append(row, "-")
		case r.ckptErr != nil:
			row = append(row, describe(r.ckptErr))
			note("loam", cr, fmt.Errorf("CHECKPOINT: %w", r.ckptErr))
		default:
			row = append(row, r.checkpoint.Round(time.Millisecond).String())
		}
		table = append(table, row)
	}
	printTable(w, table, 2)

	if rss != nil {
		fmt.Fprintf(w, "\nPeak RSS of a fresh Loam server loading %s rows by %s over 1 connection:\n", thousands(int64(rss.rows)), rss.methodName)
		switch {
		case rss.load.err != nil:
			fmt.Fprintf(w, "  %s (see notes)\n", describe(rss.load.err))
			notes = append(notes, fmt.Sprintf("loam peak-RSS case: %s: %v", describe(rss.load.err), rss.load.err))
		case rss.memErr != nil:
			fmt.Fprintf(w, "  unknown: %v\n", rss.memErr)
		default:
			s := rss.load.elapsed.Seconds()
			fmt.Fprintf(w, "  %8.0f MiB  VmHWM after the load (VmRSS before it: %.0f MiB)\n", mib(rss.peakLoad), mib(rss.baseline))
			fmt.Fprintf(w, "  %8.0f MiB  VmHWM after the CHECKPOINT that followed", mib(rss.peakCkpt))
			if rss.load.ckptErr != nil {
				fmt.Fprintf(w, " (CHECKPOINT failed: %v)", rss.load.ckptErr)
			} else {
				fmt.Fprintf(w, " (it took %s)", rss.load.checkpoint.Round(time.Millisecond))
			}
			fmt.Fprintf(w, "\n  load: %s, %s rows/s, %.1f MB/s\n", rss.load.elapsed.Round(time.Millisecond), thousands(int64(float64(rss.rows)/s)), float64(rss.textBytes)/1e6/s)
		}
	}
	if loamPeak > 0 {
		fmt.Fprintf(w, "\nPeak RSS of the Loam server(s) that ran the cases above: %.0f MiB\n", mib(loamPeak))
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "  "+n)
		}
	}
}

// printTable prints rows with columns padded to their widest cell: the
// first left columns aligned left, the others right.
func printTable(w io.Writer, rows [][]string, left int) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < left {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// thousands formats n with comma thousands separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
