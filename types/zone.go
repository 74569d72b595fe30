package types

import "time"

// WallToInstant finds the instant (µs since 1970) at which the clocks of
// loc show the wall time w (µs since 1970 read as UTC). Where a transition
// makes w ambiguous or skips it, PostgreSQL's rule applies: in a spring
// gap the offset before the transition is used, in a fall-back overlap the
// offset after it, which in both cases is the later instant.
func WallToInstant(w int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return w
	}
	sec := w / 1e6
	frac := w % 1e6
	if frac < 0 {
		sec--
		frac += 1e6
	}
	offAt := func(u int64) int64 {
		_, off := time.Unix(u, 0).In(loc).Zone()
		return int64(off)
	}
	// The offsets in force a day either side bound the candidates.
	guess := sec - offAt(sec)
	t := time.Unix(guess, 0).In(loc)
	cands := []int64{offAt(guess)}
	start, end := t.ZoneBounds()
	if !start.IsZero() {
		cands = append(cands, offAt(start.Unix()-1))
	}
	if !end.IsZero() {
		cands = append(cands, offAt(end.Unix()))
	}
	best, found := int64(0), false
	for _, o := range cands {
		if u := sec - o; offAt(u) == o && (!found || u > best) {
			best, found = u, true
		}
	}
	if !found {
		// A skipped wall time: read it with the smaller (earlier) offset.
		minOff := cands[0]
		for _, o := range cands {
			minOff = min(minOff, o)
		}
		best = sec - minOff
	}
	return best*1e6 + frac
}
