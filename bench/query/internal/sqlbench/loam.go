package sqlbench

import (
	"context"
	"fmt"
	"time"

	"github.com/loamdb/loam/bench/internal/servers"
)

// Loam is a Loam server under benchmark with its connection. A server
// that dies, or that a query keeps busy past its timeout, is replaced by
// a new one on the same data directory (the tables are in Iceberg after
// the load's CHECKPOINT), so that one query cannot spoil the next one's
// figures.
type Loam struct {
	bin      string
	dir      string
	args     []string
	rssLimit int64
	Srv      *servers.Loam
	rss      *RSSWatch
	Restarts int
	*Wire
	timeoutSetting string
}

// Untimed lifts the session's statement_timeout (for the load: a COPY of
// millions of rows takes longer than a query may), until Timed.
func (l *Loam) Untimed(ctx context.Context) error {
	return l.Exec(ctx, "SET statement_timeout = 0")
}

// Timed puts the session's statement_timeout back.
func (l *Loam) Timed(ctx context.Context) error {
	return l.Exec(ctx, l.timeoutSetting)
}

// StartLoam starts bin on dir (servers.StartLoamArgs) with a session
// statement_timeout of timeout, killing the server when its resident set
// passes rssLimit bytes (0: never).
func StartLoam(ctx context.Context, bin, dir string, args []string, rssLimit int64, timeout time.Duration) (*Loam, error) {
	l := &Loam{bin: bin, dir: dir, args: args, rssLimit: rssLimit}
	if err := l.start(ctx); err != nil {
		return nil, err
	}
	l.timeoutSetting = fmt.Sprintf("SET statement_timeout = '%dms'", timeout.Milliseconds())
	setting := l.timeoutSetting
	l.Wire = &Wire{Label: "loam", Connect: l.conn, Setup: []string{setting},
		CPUFunc: func() (time.Duration, error) { return ProcCPU(l.Srv.PID()) }}
	return l, nil
}

func (l *Loam) start(ctx context.Context) error {
	srv, err := servers.StartLoamArgs(ctx, l.bin, l.dir, l.args...)
	if err != nil {
		return err
	}
	l.Srv = srv
	l.rss = WatchRSS(srv.PID(), l.rssLimit)
	return nil
}

// conn gives the server's address, starting a new server when the last
// one has exited.
func (l *Loam) conn(ctx context.Context) (string, error) {
	if l.Srv.Exited() {
		if err := l.Restart(ctx); err != nil {
			return "", err
		}
	}
	return l.Srv.ConnString(), nil
}

// Restart replaces the server.
func (l *Loam) Restart(ctx context.Context) error {
	l.Wire.Close()
	l.rss.Stop()
	l.Srv.Stop()
	l.Restarts++
	return l.start(ctx)
}

// ResetPeak returns the highest resident set sampled since the last call.
func (l *Loam) ResetPeak() int64 {
	peak, _ := l.rss.Reset()
	return peak
}

// Measure is Measure on Loam, with the server's peak resident set while
// the query ran; a server the query killed, or kept past its timeout, is
// replaced before the next query.
func (l *Loam) Measure(ctx context.Context, q string, opts Options) (Result, Measurement, int64) {
	l.rss.Reset()
	res, m := Measure(ctx, l.Wire, q, opts)
	peak, killed := l.rss.Reset()
	if killed {
		m = Measurement{Status: Error, Err: fmt.Sprintf("server killed: resident set past %d MiB", l.rssLimit>>20)}
	}
	if m.Status == Timeout || l.Srv.Exited() {
		if l.Srv.Exited() && !killed {
			m.Err += " (the server exited)"
		}
		if err := l.Restart(ctx); err != nil {
			m.Err += "; restart failed: " + err.Error()
		}
	}
	return res, m, peak
}

// Stop stops the server.
func (l *Loam) Stop() {
	l.Wire.Close()
	l.rss.Stop()
	l.Srv.Stop()
}

// PostgresWire is a connection to a throwaway cluster whose CPU time is
// its postmaster's process tree's.
func PostgresWire(pg *servers.PGCluster) *Wire {
	return &Wire{
		Label:   "postgres",
		Connect: func(context.Context) (string, error) { return pg.ConnString(), nil },
		CPUFunc: func() (time.Duration, error) {
			pid, err := pg.PID()
			if err != nil {
				return 0, err
			}
			return TreeCPU(pid)
		},
	}
}

// CPURatio is a's median CPU time over b's, 0 when either has none.
func CPURatio(a, b *Measurement) float64 {
	if !Answered(a) || !Answered(b) || a.CPUMS <= 0 || b.CPUMS <= 0 {
		return 0
	}
	return a.CPUMS / b.CPUMS
}

// CPUText is a measurement's median CPU time in ms, or "-".
func CPUText(m *Measurement) string {
	if !Answered(m) || m.CPUMS <= 0 {
		return "-"
	}
	if m.CPUMS >= 100 {
		return fmt.Sprintf("%.0f", m.CPUMS)
	}
	return fmt.Sprintf("%.1f", m.CPUMS)
}
