package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/loamdb/loam/bench/internal/servers"
	"github.com/loamdb/loam/bench/query/internal/sqlbench"
)

type report struct {
	SF           float64          `json:"sf"`
	Label        string           `json:"label"`
	Commit       string           `json:"commit"`
	Started      time.Time        `json:"started"`
	Finished     time.Time        `json:"finished"`
	CPUs         int              `json:"cpus"`
	Options      sqlbench.Options `json:"options"`
	Generate     generated        `json:"generate"`
	Load         loadReport       `json:"load"`
	Queries      []queryReport    `json:"queries"`
	Summary      summary          `json:"summary"`
	LoamRestarts int              `json:"loam_restarts"`
	Warnings     []string         `json:"warnings,omitempty"`
	LoadAvg      [2]string        `json:"loadavg"` // /proc/loadavg at the start and the end: the machine is shared
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

type summary struct {
	Queries        int     `json:"queries"`
	LoamAnswered   int     `json:"loam_answered"`
	LoamTimeouts   int     `json:"loam_timeouts"`
	LoamErrors     int     `json:"loam_errors"`
	LoamMismatches int     `json:"loam_mismatches"`
	DuckMismatches int     `json:"duckdb_mismatches"`
	GeoLoamPG      float64 `json:"geomean_loam_over_pg"`     // over queries both answered
	NLoamPG        int     `json:"geomean_loam_over_pg_n"`   //
	GeoLoamPGLow   float64 `json:"geomean_loam_over_pg_lb"`  // timeouts counted at the timeout: a lower bound
	GeoLoamDuck    float64 `json:"geomean_loam_over_duckdb"` // over queries both answered
	NLoamDuck      int     `json:"geomean_loam_over_duckdb_n"`
	MaxLoamDuck    float64 `json:"max_loam_over_duckdb"`
	LoamFasterPG   int     `json:"loam_faster_than_pg"`
	LoamCopyOverPG float64 `json:"copy_rate_loam_over_pg"` // Loam's COPY rows/s over PostgreSQL's, all tables
	CPULoamPG      float64 `json:"geomean_cpu_loam_over_pg"`
	CPULoamDuck    float64 `json:"geomean_cpu_loam_over_duckdb"`
}

func (r *report) summarize() {
	s := summary{Queries: len(r.Queries)}
	var lpg, lpgLow, ld, cpg, cd []float64
	for _, q := range r.Queries {
		if q.Loam != nil {
			switch q.Loam.Status {
			case sqlbench.OK:
				s.LoamAnswered++
			case sqlbench.Timeout:
				s.LoamTimeouts++
			default:
				s.LoamErrors++
			}
		}
		if strings.HasPrefix(q.LoamCheck, "MISMATCH") {
			s.LoamMismatches++
		}
		if strings.HasPrefix(q.DuckCheck, "MISMATCH") {
			s.DuckMismatches++
		}
		if x := sqlbench.Ratio(q.Loam, q.PG); x > 0 {
			lpg = append(lpg, x)
			lpgLow = append(lpgLow, x)
			if x < 1 {
				s.LoamFasterPG++
			}
		} else if q.Loam != nil && q.Loam.Status == sqlbench.Timeout && sqlbench.Answered(q.PG) {
			lpgLow = append(lpgLow, r.Options.Timeout.Seconds()*1000/q.PG.MS)
		}
		if x := sqlbench.CPURatio(q.Loam, q.PG); x > 0 {
			cpg = append(cpg, x)
		}
		if x := sqlbench.CPURatio(q.Loam, q.Duck); x > 0 {
			cd = append(cd, x)
		}
		if x := sqlbench.Ratio(q.Loam, q.Duck); x > 0 {
			ld = append(ld, x)
			s.MaxLoamDuck = max(s.MaxLoamDuck, x)
		}
	}
	s.GeoLoamPG, s.NLoamPG = sqlbench.Geomean(lpg), len(lpg)
	s.GeoLoamPGLow = sqlbench.Geomean(lpgLow)
	s.GeoLoamDuck, s.NLoamDuck = sqlbench.Geomean(ld), len(ld)
	s.CPULoamPG, s.CPULoamDuck = sqlbench.Geomean(cpg), sqlbench.Geomean(cd)
	if r.Load.LoamCopyS > 0 && r.Load.PGCopyS > 0 {
		s.LoamCopyOverPG = r.Load.PGCopyS / r.Load.LoamCopyS
	}
	r.Summary = s
}

// write prints the text report and saves it with its JSON.
func (r *report) write(cfg *config, stdout io.Writer, logf func(string, ...any)) error {
	r.CPUs = runtime.NumCPU()
	r.LoadAvg[1] = loadAvg()
	r.summarize()
	var buf bytes.Buffer
	r.text(&buf)
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if cfg.outDir == "" {
		return nil
	}
	root, err := servers.RepoRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, cfg.outDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("tpch-sf%s-%s", strconv.FormatFloat(r.SF, 'f', -1, 64), cfg.label))
	js, _ := json.MarshalIndent(r, "", "  ")
	if err := os.WriteFile(base+".json", append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".txt", buf.Bytes(), 0o644); err != nil {
		return err
	}
	logf("wrote %s.txt and .json", base)
	return nil
}

func (r *report) text(w io.Writer) {
	fmt.Fprintf(w, "TPC-H SF %v, commit %s, %s, %d CPUs (load average %s at the start, %s at the end)\n",
		r.SF, r.Commit, r.Started.Format("2006-01-02 15:04 UTC"), r.CPUs, r.LoadAvg[0], r.LoadAvg[1])
	fmt.Fprintf(w, "Times: median of up to %d timed runs after a warm-up (the timed runs of a query capped at %v together), in ms; timeout %v a run\n\n",
		r.Options.Runs, r.Options.Budget, r.Options.Timeout)
	r.loadText(w)
	rows := [][]string{{"q", "Loam ms", "PG ms", "DuckDB ms", "Loam/PG", "Loam/DuckDB", "CPU ms: Loam", "PG", "DuckDB", "Loam/PG", "Loam/DuckDB", "Loam RSS MiB", "Loam = PG", "DuckDB = PG"}}
	notes := append([]string(nil), r.Warnings...)
	for _, q := range r.Queries {
		rss := "-"
		if q.LoamPeakRSS > 0 {
			rss = strconv.FormatInt(q.LoamPeakRSS>>20, 10)
		}
		rows = append(rows, []string{fmt.Sprintf("Q%d", q.Num), sqlbench.CellText(q.Loam), sqlbench.CellText(q.PG), sqlbench.CellText(q.Duck),
			sqlbench.RatioText(q.Loam, q.PG), sqlbench.RatioText(q.Loam, q.Duck),
			sqlbench.CPUText(q.Loam), sqlbench.CPUText(q.PG), sqlbench.CPUText(q.Duck), cpuRatioText(q.Loam, q.PG), cpuRatioText(q.Loam, q.Duck),
			rss, checkText(q.LoamCheck), checkText(q.DuckCheck)})
		for _, n := range []struct {
			who string
			m   *sqlbench.Measurement
		}{{"loam", q.Loam}, {"postgres", q.PG}, {"duckdb", q.Duck}} {
			if n.m != nil && n.m.Err != "" {
				notes = append(notes, fmt.Sprintf("Q%d %s: %s", q.Num, n.who, n.m.Err))
			}
		}
		for _, c := range []struct{ who, s string }{{"loam", q.LoamCheck}, {"duckdb", q.DuckCheck}} {
			if strings.HasPrefix(c.s, "MISMATCH") {
				notes = append(notes, fmt.Sprintf("Q%d %s vs postgres: %s", q.Num, c.who, c.s))
			}
		}
	}
	sqlbench.PrintTable(w, rows)
	s := r.Summary
	fmt.Fprintf(w, "\nLoam answered %d of %d (%d timeouts, %d errors, %d different from PostgreSQL); faster than PostgreSQL on %d\n",
		s.LoamAnswered, s.Queries, s.LoamTimeouts, s.LoamErrors, s.LoamMismatches, s.LoamFasterPG)
	fmt.Fprintf(w, "Geometric mean Loam/PG %.2f over the %d queries both answered (timeouts counted at the timeout: >= %.2f)\n", s.GeoLoamPG, s.NLoamPG, s.GeoLoamPGLow)
	fmt.Fprintf(w, "Geometric mean Loam/DuckDB %.2f over the %d queries both answered, worst %.2f\n", s.GeoLoamDuck, s.NLoamDuck, s.MaxLoamDuck)
	fmt.Fprintf(w, "CPU time (the engine's processes over the same runs, both cores added up; less disturbed by a busy machine): geometric mean Loam/PG %.2f, Loam/DuckDB %.2f\n", s.CPULoamPG, s.CPULoamDuck)
	if r.LoamRestarts > 0 {
		fmt.Fprintf(w, "The Loam server was restarted %d times (after a timeout or its exit)\n", r.LoamRestarts)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "  "+n)
		}
	}
}

func (r *report) loadText(w io.Writer) {
	g := r.Generate
	how := fmt.Sprintf("generated in %.1fs", g.Seconds)
	if g.Reused {
		how = "reused from an earlier run"
	}
	fmt.Fprintf(w, "Load: COPY FROM STDIN (text) of dbgen's rows (%s), one table at a time, one connection\n", how)
	rows := [][]string{{"table", "rows", "MB", "Loam s", "Loam rows/s", "PG s", "PG rows/s", "Loam/PG"}}
	var n, b int64
	for _, t := range r.Load.Tables {
		n += t.Rows
		b += t.Bytes
		rows = append(rows, []string{t.Table, strconv.FormatInt(t.Rows, 10), fmt.Sprintf("%.1f", float64(t.Bytes)/1e6),
			secs(t.LoamS), rate(t.Rows, t.LoamS), secs(t.PGS), rate(t.Rows, t.PGS), rateRatio(t.PGS, t.LoamS)})
	}
	l := r.Load
	rows = append(rows, []string{"all", strconv.FormatInt(n, 10), fmt.Sprintf("%.1f", float64(b)/1e6),
		secs(l.LoamCopyS), rate(n, l.LoamCopyS), secs(l.PGCopyS), rate(n, l.PGCopyS), rateRatio(l.PGCopyS, l.LoamCopyS)})
	sqlbench.PrintTable(w, rows)
	fmt.Fprintf(w, "Loam: CHECKPOINT after the load %.1fs, peak RSS during the load %d MiB. PostgreSQL: primary keys and foreign-key indexes %.1fs, VACUUM ANALYZE %.1fs\n\n",
		l.LoamCkptS, l.LoamPeakRSS>>20, l.PGIndexS, l.PGAnalyzeS)
}

func secs(s float64) string {
	if s == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", s)
}

func rate(rows int64, s float64) string {
	if s == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(rows)/s)
}

// rateRatio is Loam's rate over PostgreSQL's: PG's time over Loam's.
func rateRatio(pg, loam float64) string {
	if pg == 0 || loam == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", pg/loam)
}

func cpuRatioText(a, b *sqlbench.Measurement) string {
	if x := sqlbench.CPURatio(a, b); x > 0 {
		return fmt.Sprintf("%.2fx", x)
	}
	return "-"
}

func checkText(c string) string {
	if strings.HasPrefix(c, "MISMATCH") {
		return "MISMATCH"
	}
	return orDash(c)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
