package sqlbench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/loamdb/loam/bench/internal/servers"
)

// Status of a query on an engine.
const (
	OK      = "ok"
	Timeout = "timeout"
	Error   = "error"
)

// Options say how a query is timed.
type Options struct {
	Runs    int           // timed runs after the warm-up
	Timeout time.Duration // of each run
	// Budget caps the timed runs of one query: after the warm-up, runs go
	// on while their total stays under it (at least one); a warm-up longer
	// than Budget is itself the one measurement, so a slow query costs the
	// run two executions rather than Runs+1.
	Budget time.Duration
}

// Measurement is how one engine did on one query.
type Measurement struct {
	Status string          `json:"status"`
	Err    string          `json:"error,omitempty"`
	Runs   []time.Duration `json:"-"`
	RunsMS []float64       `json:"runs_ms,omitempty"`
	Median time.Duration   `json:"-"`
	MS     float64         `json:"median_ms,omitempty"`
	Rows   int             `json:"rows"`
	// CPUMS is the median CPU time the engine's processes spent on a timed
	// run (0 when the engine cannot say): less disturbed than MS by other
	// work on a shared machine, but it adds up both cores.
	CPUMS float64 `json:"median_cpu_ms,omitempty"`
}

// CPUer is an engine that can tell the CPU time its processes have used.
type CPUer interface{ CPU() (time.Duration, error) }

// Measure runs q once to warm up, keeping its rows as the engine's answer,
// then times it as opts say. Times run from sending the query until the
// last row has been read.
func Measure(ctx context.Context, e Engine, q string, opts Options) (Result, Measurement) {
	c0, cerr := cpu(e)
	res, d, err := timed(ctx, e, q, opts.Timeout)
	if err != nil {
		return nil, failed(err, opts.Timeout)
	}
	m := Measurement{Status: OK, Rows: len(res)}
	var cpus []time.Duration
	if d > opts.Budget || opts.Runs <= 0 {
		m.Runs = []time.Duration{d}
		if c1, cerr2 := cpu(e); cerr == nil && cerr2 == nil {
			cpus = append(cpus, c1-c0)
		}
	} else {
		var total time.Duration
		for i := 0; i < opts.Runs && (i == 0 || total+total/time.Duration(i) <= opts.Budget); i++ {
			c0, cerr := cpu(e)
			_, d, err := timed(ctx, e, q, opts.Timeout)
			if err != nil {
				return res, failed(err, opts.Timeout)
			}
			if c1, cerr2 := cpu(e); cerr == nil && cerr2 == nil {
				cpus = append(cpus, c1-c0)
			}
			m.Runs = append(m.Runs, d)
			total += d
		}
	}
	if len(cpus) == len(m.Runs) {
		m.CPUMS = ms(Median(cpus))
	}
	m.Median = Median(m.Runs)
	m.MS = ms(m.Median)
	for _, r := range m.Runs {
		m.RunsMS = append(m.RunsMS, ms(r))
	}
	return res, m
}

func cpu(e Engine) (time.Duration, error) {
	if c, ok := e.(CPUer); ok {
		return c.CPU()
	}
	return 0, errors.New("no CPU time")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func timed(ctx context.Context, e Engine, q string, timeout time.Duration) (Result, time.Duration, error) {
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	res, err := e.Query(qctx, q)
	d := time.Since(start)
	if err != nil && qctx.Err() != nil && ctx.Err() == nil {
		err = context.DeadlineExceeded
	}
	return res, d, err
}

// failed classifies an error: the harness's deadline or a server's
// statement_timeout (57014) is a timeout.
func failed(err error, timeout time.Duration) Measurement {
	var pe *pgconn.PgError
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &pe) && pe.Code == "57014") {
		return Measurement{Status: Timeout, Err: "no answer within " + timeout.String()}
	}
	return Measurement{Status: Error, Err: oneLine(err.Error())}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Median of ds (the lower middle of an even count).
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// RSSWatch samples a process's resident set while queries run: the peak
// between Reset calls, and a limit past which it kills the process (a
// runaway query must not take the shared machine's memory).
type RSSWatch struct {
	mu     sync.Mutex
	pid    int
	peak   int64
	limit  int64
	killed bool
	stop   chan struct{}
}

// WatchRSS starts sampling pid every 100 ms; limit 0 never kills.
func WatchRSS(pid int, limit int64) *RSSWatch {
	w := &RSSWatch{pid: pid, limit: limit, stop: make(chan struct{})}
	go w.loop()
	return w
}

func (w *RSSWatch) loop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		_, cur, err := servers.Memory(w.pid)
		if err != nil {
			continue // gone: the harness notices
		}
		w.mu.Lock()
		w.peak = max(w.peak, cur)
		if w.limit > 0 && cur > w.limit && !w.killed {
			w.killed = true
			_ = syscall.Kill(w.pid, syscall.SIGKILL)
		}
		w.mu.Unlock()
	}
}

// Reset starts a new peak and returns the last one, and whether the
// process was killed for passing the limit since the last Reset.
func (w *RSSWatch) Reset() (peak int64, killed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	peak, killed = w.peak, w.killed
	w.peak, w.killed = 0, false
	return peak, killed
}

func (w *RSSWatch) Stop() { close(w.stop) }
