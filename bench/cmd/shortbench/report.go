package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/loamdb/loam/bench/internal/closedloop"
)

// report is everything a run measured, as printed and as -json writes it.
type report struct {
	Date     string   `json:"date"`
	Commit   string   `json:"commit"`             // the working tree's, see gitCommit
	LoamBin  string   `json:"loam_bin,omitempty"` // when given rather than built from the tree
	Rows     int64    `json:"rows"`
	Duration string   `json:"duration"`
	Warmup   string   `json:"warmup"`
	CPUs     int      `json:"cpus"`
	Results  []result `json:"results"`
}

// result is one case × connection count × target.
type result struct {
	Case   string `json:"case"`
	Conns  int    `json:"conns"`
	Target string `json:"target"`
	closedloop.Summary
	Error string `json:"error,omitempty"`
}

func (r *report) find(c string, conns int, target string) *result {
	for i := range r.Results {
		x := &r.Results[i]
		if x.Case == c && x.Conns == conns && x.Target == target {
			return x
		}
	}
	return nil
}

func (r *report) print(w io.Writer, ws []workload) {
	fmt.Fprintf(w, "Short queries: %d accounts, %s a case after a %s warm-up, latency in µs; commit %s, %s, %d CPUs\n",
		r.Rows, r.Duration, r.Warmup, r.Commit, r.Date, r.CPUs)
	if r.LoamBin != "" {
		fmt.Fprintf(w, "Loam binary: %s (given, not built by the benchmark: the commit above is the working tree's)\n", r.LoamBin)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tconns\tLoam q/s\tmean\tp50\tp99\tPG q/s\tmean\tp50\tp99\tLoam/PG\t")
	var errs []string
	var conns []int
	seen := map[int]bool{}
	for _, x := range r.Results {
		if !seen[x.Conns] {
			seen[x.Conns] = true
			conns = append(conns, x.Conns)
		}
	}
	var line []string
	for _, wl := range ws {
		for _, n := range conns {
			l, p := r.find(wl.name, n, "loam"), r.find(wl.name, n, "postgres")
			if l == nil && p == nil {
				continue
			}
			cells := []string{wl.name, fmt.Sprint(n)}
			for _, x := range []*result{l, p} {
				switch {
				case x == nil:
					cells = append(cells, "-", "-", "-", "-")
				case x.Error != "":
					cells = append(cells, "error", "-", "-", "-")
					errs = append(errs, fmt.Sprintf("%s %s/%d: %s", x.Target, x.Case, x.Conns, x.Error))
				default:
					cells = append(cells, fmt.Sprintf("%.0f", x.QPS), fmt.Sprintf("%.1f", x.MeanUS),
						fmt.Sprintf("%.1f", x.P50US), fmt.Sprintf("%.1f", x.P99US))
				}
			}
			ratio := "-"
			if l != nil && p != nil && l.Error == "" && p.Error == "" && p.QPS > 0 {
				ratio = fmt.Sprintf("%.2fx", l.QPS/p.QPS)
			}
			cells = append(cells, ratio)
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
			if l != nil && l.Error == "" {
				line = append(line, fmt.Sprintf("%s/%d=%.0f(%s)", wl.name, n, l.QPS, ratio))
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Loam/PG: Loam's queries/s over PostgreSQL's; above 1 means Loam is faster.")
	if len(errs) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, e := range errs {
			fmt.Fprintln(w, "  "+e)
		}
	}
	// One line to paste into a note: Loam's q/s per case and, in
	// parentheses, its ratio to PostgreSQL.
	fmt.Fprintf(w, "\nsummary %s loam q/s: %s\n", r.Commit, strings.Join(line, " "))
}
