package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/bench/internal/closedloop"
)

// visibleResult is how soon the upserts of one target were seen.
type visibleResult struct {
	Target  string `json:"target"`
	Samples int    `json:"samples"`
	// The next query on another connection: the time from the upsert's
	// acknowledgement until the first SELECT that returned the new value
	// came back, and how many samples the very first SELECT after the
	// acknowledgement already saw (all of them, when changes are visible
	// at once).
	QueryP50US    float64 `json:"query_p50_us"`
	QueryMaxUS    float64 `json:"query_max_us"`
	QueryFirstTry int     `json:"query_first_try"`
	// Loam only: iceberg-go's scan through the catalog, polled from the
	// acknowledgement until it returns the new value. A sample's time is
	// when the poll that saw it returned, so it is late by up to one
	// poll (OutsidePollMS, the mean time of one poll: its resolution).
	// Within counts the samples seen within one link interval.
	OutsideP50MS  float64 `json:"outside_p50_ms,omitempty"`
	OutsideMaxMS  float64 `json:"outside_max_ms,omitempty"`
	OutsideWithin int     `json:"outside_within,omitempty"`
	OutsidePollMS float64 `json:"outside_poll_ms,omitempty"`
	Error         string  `json:"error,omitempty"`
}

// visibleValue is the v a visibility sample writes: above any value the
// upsert case draws (below 2^40), distinct for each sample.
func visibleValue(i int) int64 { return 1<<50 + int64(i) }

// measureVisible upserts cfg.samples random keys of kv on t, one at a
// time, each with a value of its own, and times how soon each is seen.
// On Loam each upsert waits a random part of a link interval first, so
// that the acknowledgements fall at every phase of the link's cycle
// rather than always just after the commit the previous sample waited
// for.
func measureVisible(ctx context.Context, t *target, cfg *config, res *visibleResult, logf func(string, ...any)) error {
	w, err := pgx.Connect(ctx, t.connString)
	if err != nil {
		return err
	}
	defer w.Close(context.Background())
	q, err := pgx.Connect(ctx, t.connString)
	if err != nil {
		return err
	}
	defer q.Close(context.Background())
	var out *outsideReader
	if t.isLoam() {
		if out, err = openOutside(t.loam.DataDir); err != nil {
			return fmt.Errorf("outside reader: %w", err)
		}
		defer out.Close()
	}

	r := rand.New(rand.NewPCG(cfg.seed, 1<<32))
	var queryLat, outsideLat []time.Duration
	var polls int
	var pollTime time.Duration
	for i := 0; i < cfg.samples; i++ {
		if out != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(r.Int64N(int64(cfg.linkInterval)))):
			}
		}
		id, v := 1+r.Int64N(cfg.keys), visibleValue(i)
		if err := upsert(ctx, w, id, v); err != nil {
			return err
		}
		ack := time.Now()

		tries := 0
		for {
			tries++
			var got int64
			if err := q.QueryRow(ctx, `SELECT v FROM kv WHERE id = $1`, id).Scan(&got); err != nil {
				return fmt.Errorf("sample %d: select id %d: %w", i, id, err)
			}
			if got == v {
				break
			}
			if time.Since(ack) > 10*time.Second {
				return fmt.Errorf("sample %d: id %d: the next queries returned v = %d for 10s after the upsert of v = %d was acknowledged", i, id, got, v)
			}
		}
		queryLat = append(queryLat, time.Since(ack))
		if tries == 1 {
			res.QueryFirstTry++
		}

		if out == nil {
			continue
		}
		deadline := ack.Add(10*cfg.linkInterval + 30*time.Second)
		for {
			p0 := time.Now()
			vals, err := out.values(ctx, id)
			pollTime += time.Since(p0)
			polls++
			if err != nil {
				return fmt.Errorf("sample %d: outside reader: %w", i, err)
			}
			if slices.Contains(vals, v) {
				if len(vals) != 1 {
					return fmt.Errorf("sample %d: the outside reader sees id %d %d times (v = %v): the replaced row is still visible", i, id, len(vals), vals)
				}
				outsideLat = append(outsideLat, time.Since(ack))
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("sample %d: the outside reader still sees id %d as v = %v %v after the acknowledgement", i, id, vals, time.Since(ack).Round(time.Millisecond))
			}
			// Polling back to back would take a core from the server,
			// which has the commit to do.
			time.Sleep(10 * time.Millisecond)
		}
	}

	res.Samples = cfg.samples
	qs := closedloop.Summarize(queryLat, time.Second)
	res.QueryP50US = qs.P50US
	res.QueryMaxUS = closedloop.US(slices.Max(queryLat))
	logf("%-8s visible: next query p50 %.0f µs, max %.0f µs, first try %d/%d", t.name, res.QueryP50US, res.QueryMaxUS, res.QueryFirstTry, res.Samples)
	if out != nil {
		o := closedloop.Summarize(outsideLat, time.Second)
		res.OutsideP50MS = o.P50US / 1000
		res.OutsideMaxMS = closedloop.US(slices.Max(outsideLat)) / 1000
		for _, d := range outsideLat {
			if d <= cfg.linkInterval {
				res.OutsideWithin++
			}
		}
		res.OutsidePollMS = pollTime.Seconds() * 1000 / float64(polls)
		logf("%-8s visible: outside reader p50 %.0f ms, max %.0f ms, %d/%d within %v, %.1f ms a poll",
			t.name, res.OutsideP50MS, res.OutsideMaxMS, res.OutsideWithin, res.Samples, cfg.linkInterval, res.OutsidePollMS)
	}
	return nil
}
