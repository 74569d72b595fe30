package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/loamdb/loam/bench/internal/closedloop"
)

// report is everything a run measured, as printed and as written to JSON.
type report struct {
	Date         string `json:"date"`
	Commit       string `json:"commit"`             // the working tree's, see gitCommit
	LoamBin      string `json:"loam_bin,omitempty"` // when given rather than built from the tree
	CPUs         int    `json:"cpus"`
	Keys         int64  `json:"keys"`
	Duration     string `json:"duration"`
	Warmup       string `json:"warmup"`
	Rows         int64  `json:"rows"`
	Runs         int    `json:"runs"`
	Samples      int    `json:"samples"`
	LinkInterval string `json:"link_interval"`
	PGSettings   string `json:"pg_settings"`
	// LoadBefore and LoadAfter are the machine's 1-minute load average
	// (/proc/loadavg) when the run started and ended: on a shared
	// machine they say how much the figures were competing for the
	// cores.
	LoadBefore string `json:"load_before,omitempty"`
	LoadAfter  string `json:"load_after,omitempty"`
	// SetupErrors holds a failed table setup, by "target/table".
	SetupErrors map[string]string `json:"setup_errors,omitempty"`
	Upserts     []upsertResult    `json:"upserts,omitempty"`
	Updates     []updateRun       `json:"updates,omitempty"`
	Visible     []visibleResult   `json:"visible,omitempty"`
}

// upsertResult is one connection count × target of the upsert case.
type upsertResult struct {
	Conns  int    `json:"conns"`
	Target string `json:"target"`
	closedloop.Summary
	Error string `json:"error,omitempty"`
}

func (r *report) setupError(target, table string, err error) {
	if err == nil {
		return
	}
	if r.SetupErrors == nil {
		r.SetupErrors = map[string]string{}
	}
	r.SetupErrors[target+"/"+table] = errText(err)
}

// setupFailed is why a case on target cannot run for want of table, or "".
func (r *report) setupFailed(target, table string) string {
	if e := r.SetupErrors[target+"/"+table]; e != "" {
		return "setup of " + table + " failed: " + e
	}
	return ""
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "Row-level changes on Loam and PostgreSQL 15: commit %s, %s, %d CPUs\n", r.Commit, r.Date, r.CPUs)
	if r.LoamBin != "" {
		fmt.Fprintf(w, "Loam binary: %s (given, not built by the benchmark: the commit above is the working tree's)\n", r.LoamBin)
	}
	fmt.Fprintf(w, "Loam: --link-interval %s. PostgreSQL: fsync and synchronous_commit on, %s.\n", r.LinkInterval, r.PGSettings)
	if r.LoadBefore != "" {
		fmt.Fprintf(w, "Load average (1 min) of the machine: %s at the start, %s at the end.\n", r.LoadBefore, r.LoadAfter)
	}
	var notes []string
	for k, e := range r.SetupErrors {
		notes = append(notes, fmt.Sprintf("setup %s: %s", k, e))
	}
	var summary []string
	if len(r.Upserts) > 0 {
		summary = append(summary, r.printUpserts(w, &notes)...)
	}
	if len(r.Updates) > 0 {
		summary = append(summary, r.printUpdates(w, &notes)...)
	}
	if len(r.Visible) > 0 {
		summary = append(summary, r.printVisible(w, &notes)...)
	}
	if len(notes) > 0 {
		slices.Sort(notes)
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "  "+n)
		}
	}
	// One line to paste into a note.
	fmt.Fprintf(w, "\nsummary %s loam: %s\n", r.Commit, strings.Join(summary, " "))
}

func (r *report) printUpserts(w io.Writer, notes *[]string) (summary []string) {
	fmt.Fprintf(w, "\n(a) Single-row upserts: INSERT … ON CONFLICT (id) DO UPDATE in autocommit, uniformly random keys over %d preloaded, prepared once a connection; %s a case after a %s warm-up; latency in µs\n\n",
		r.Keys, r.Duration, r.Warmup)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conns\tLoam upserts/s\tmean\tp50\tp99\tPG upserts/s\tmean\tp50\tp99\tLoam/PG\t")
	var conns []int
	for _, x := range r.Upserts {
		if !slices.Contains(conns, x.Conns) {
			conns = append(conns, x.Conns)
		}
	}
	find := func(n int, target string) *upsertResult {
		for i := range r.Upserts {
			if x := &r.Upserts[i]; x.Conns == n && x.Target == target {
				return x
			}
		}
		return nil
	}
	for _, n := range conns {
		l, p := find(n, "loam"), find(n, "postgres")
		cells := []string{fmt.Sprint(n)}
		for _, x := range []*upsertResult{l, p} {
			switch {
			case x == nil:
				cells = append(cells, "-", "-", "-", "-")
			case x.Error != "":
				cells = append(cells, failure(x.Error), "-", "-", "-")
				*notes = append(*notes, fmt.Sprintf("%s upsert/%d: %s", x.Target, x.Conns, x.Error))
			default:
				cells = append(cells, fmt.Sprintf("%.0f", x.QPS), fmt.Sprintf("%.1f", x.MeanUS),
					fmt.Sprintf("%.1f", x.P50US), fmt.Sprintf("%.1f", x.P99US))
			}
		}
		ratio := "-"
		if l != nil && p != nil && l.Error == "" && p.Error == "" && p.QPS > 0 {
			ratio = fmt.Sprintf("%.2fx", l.QPS/p.QPS)
		}
		fmt.Fprintln(tw, strings.Join(append(cells, ratio), "\t")+"\t")
		if l != nil && l.Error == "" {
			summary = append(summary, fmt.Sprintf("upserts/s/%d=%.0f(%s)", n, l.QPS, ratio))
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nLoam/PG: Loam's upserts/s over PostgreSQL's; above 1 means Loam is faster.")
	return summary
}

// updateFigures is the median run of one target, or why there is none.
type updateFigures struct {
	med, min, max, after float64
	updated              int64
	afterWhat, err       string
}

func (r *report) updateFigures(target string) *updateFigures {
	var secs, after []float64
	f := &updateFigures{}
	seen := false
	for _, x := range r.Updates {
		if x.Target != target {
			continue
		}
		seen = true
		if x.Error != "" {
			if f.err == "" {
				f.err = x.Error
			}
			continue
		}
		secs, after = append(secs, x.Seconds), append(after, x.AfterSeconds)
		f.updated, f.afterWhat = x.Updated, x.AfterWhat
	}
	if !seen {
		return nil
	}
	if len(secs) == 0 {
		return f
	}
	f.med, f.after = median(secs), median(after)
	f.min, f.max = slices.Min(secs), slices.Max(secs)
	return f
}

func (r *report) printUpdates(w io.Writer, notes *[]string) (summary []string) {
	runs := "one run"
	if r.Runs > 1 {
		runs = fmt.Sprintf("median of %d runs, each on another 1%%", r.Runs)
	}
	fmt.Fprintf(w, "\n(b) UPDATE events SET v = v + 1, note = 'updated' WHERE grp = k: 1%% of %d rows, one statement in autocommit, every row scanned (no index on grp); %s; seconds\n\n",
		r.Rows, runs)
	for _, x := range r.Updates {
		if x.Error != "" {
			*notes = append(*notes, fmt.Sprintf("%s update run %d: %s", x.Target, x.Run, x.Error))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\trows updated\tmedian s\tmin s\tmax s\tns/row scanned\tns/row updated\tafter it, untimed\ts\t")
	figs := map[string]*updateFigures{}
	for _, target := range []string{"loam", "postgres"} {
		f := r.updateFigures(target)
		figs[target] = f
		switch {
		case f == nil:
			continue
		case f.updated == 0:
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t-\t-\t\n", target, failure(f.err))
		default:
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.1f\t%.0f\t%s\t%.3f\t\n", target, f.updated, f.med, f.min, f.max,
				f.med*1e9/float64(r.Rows), f.med*1e9/float64(f.updated), f.afterWhat, f.after)
		}
	}
	tw.Flush()
	if l, p := figs["loam"], figs["postgres"]; l != nil && p != nil && l.med > 0 && p.med > 0 {
		fmt.Fprintf(w, "\nPG/Loam: %.2fx (PostgreSQL's median time over Loam's; above 1 means Loam is faster).\n", p.med/l.med)
		summary = append(summary, fmt.Sprintf("update1%%of%d=%.3fs(%.2fx)", r.Rows, l.med, p.med/l.med))
	} else if l != nil && l.med > 0 {
		summary = append(summary, fmt.Sprintf("update1%%of%d=%.3fs", r.Rows, l.med))
	}
	fmt.Fprintln(w, "After each UPDATE, outside its time: on Loam CHECKPOINT commits its deletes and new rows into Iceberg; on PostgreSQL VACUUM reclaims the old row versions.")
	return summary
}

func (r *report) printVisible(w io.Writer, notes *[]string) (summary []string) {
	fmt.Fprintf(w, "\n(c) Visibility of an upsert after its acknowledgement: %d samples, one upsert at a time; Loam's link interval %s\n\n", r.Samples, r.LinkInterval)
	var l, p *visibleResult
	for i := range r.Visible {
		x := &r.Visible[i]
		if x.Error != "" {
			*notes = append(*notes, fmt.Sprintf("%s visible: %s", x.Target, x.Error))
		}
		if x.Target == "loam" {
			l = x
		} else {
			p = x
		}
	}
	cell := func(x *visibleResult, f func(*visibleResult) string) string {
		switch {
		case x == nil:
			return "-"
		case x.Error != "":
			return failure(x.Error)
		}
		return f(x)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tLoam\tPG\t")
	row := func(what string, f func(*visibleResult) string, pgToo bool) {
		pc := "-"
		if pgToo {
			pc = cell(p, f)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", what, cell(l, f), pc)
	}
	row("next query on another connection, p50", func(x *visibleResult) string { return fmt.Sprintf("%.0f µs", x.QueryP50US) }, true)
	row("next query on another connection, max", func(x *visibleResult) string { return fmt.Sprintf("%.0f µs", x.QueryMaxUS) }, true)
	row("seen by the first query after the ack", func(x *visibleResult) string { return fmt.Sprintf("%d/%d", x.QueryFirstTry, x.Samples) }, true)
	row("outside reader (iceberg-go scan), p50", func(x *visibleResult) string { return fmt.Sprintf("%.0f ms", x.OutsideP50MS) }, false)
	row("outside reader, max", func(x *visibleResult) string { return fmt.Sprintf("%.0f ms", x.OutsideMaxMS) }, false)
	row("outside reader within one link interval", func(x *visibleResult) string { return fmt.Sprintf("%d/%d", x.OutsideWithin, x.Samples) }, false)
	row("outside reader's poll (its resolution)", func(x *visibleResult) string { return fmt.Sprintf("%.1f ms", x.OutsidePollMS) }, false)
	tw.Flush()
	fmt.Fprintln(w, "\nA time runs from the upsert's acknowledgement to the return of the first read that had the new value. The outside reader loads the table")
	fmt.Fprintln(w, "through iceberg-go's SQL catalog over Loam's metastore and scans it with iceberg-go (no Loam code), polling every 10 ms.")
	if l != nil && l.Error == "" {
		summary = append(summary, fmt.Sprintf("visible-next-query-p50=%.0fµs(first-try %d/%d) visible-outside-p50=%.0fms,max=%.0fms(within-%s %d/%d)",
			l.QueryP50US, l.QueryFirstTry, l.Samples, l.OutsideP50MS, l.OutsideMaxMS, r.LinkInterval, l.OutsideWithin, l.Samples))
	}
	return summary
}

// failure is the table cell of a failed case; the error is under Notes.
func failure(err string) string {
	if strings.HasPrefix(err, "unsupported") {
		return "unsupported"
	}
	if strings.HasPrefix(err, "skipped") {
		return "skipped"
	}
	return "error"
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	// The lower middle, as the nearest-rank p50 of the latencies.
	return s[(len(s)-1)/2]
}

// loadAverage is the machine's 1-minute load average, or "" where
// /proc/loadavg is missing.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
