package expr

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// zoneCache converts between instants and wall clocks of one zone,
// remembering the zone period of the last lookup so that a column of
// nearby timestamps costs one tz-database lookup, not one a row.
type zoneCache struct {
	loc        *time.Location
	start, end int64 // the cached period [start, end) in Unix seconds
	off        int64 // its UTC offset in µs
}

func newZoneCache(loc *time.Location) *zoneCache {
	if loc == nil {
		loc = time.UTC
	}
	z := &zoneCache{loc: loc, start: 1, end: 0}
	if loc == time.UTC {
		z.start, z.end = -1<<62, 1<<62
	}
	return z
}

// offsetAt is the zone's offset (µs) at the instant us.
func (z *zoneCache) offsetAt(us int64) int64 {
	sec := floorDiv(us, 1e6)
	if sec >= z.start && sec < z.end {
		return z.off
	}
	t := time.Unix(sec, 0).In(z.loc)
	_, off := t.Zone()
	z.off = int64(off) * 1e6
	s, e := t.ZoneBounds()
	z.start, z.end = -1<<62, 1<<62
	if !s.IsZero() {
		z.start = s.Unix()
	}
	if !e.IsZero() {
		z.end = e.Unix()
	}
	return z.off
}

// local is the wall clock (µs since 1970, as a timestamp) of instant us.
func (z *zoneCache) local(us int64) int64 {
	if types.IsInfTimestamp(us) {
		return us // ±infinity is the same in every zone
	}
	return us + z.offsetAt(us)
}

// instant is the instant of wall clock w. A wall clock that occurs twice
// or not at all resolves as zoneShift (time.Date) does.
func (z *zoneCache) instant(w int64) int64 {
	if z.loc == time.UTC || types.IsInfTimestamp(w) {
		return w
	}
	guess := w - z.off
	if z.offsetAt(guess) == w-guess {
		if o := z.offsetAt(guess - 3*3600e6); o == z.offsetAt(guess+3*3600e6) {
			return guess // no transition nearby: the only reading
		}
	}
	return zoneShift(w, z.loc, true)
}

// LookupZone resolves a time zone given as text, as AT TIME ZONE and
// date_trunc's zone argument take it: a zone name, or a POSIX-style
// offset ('+05' and 'UTC+5' are five hours west of Greenwich).
func LookupZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := lookupZone(name)
	if err == nil {
		zones.Store(name, loc)
	}
	return loc, err
}

// zones caches resolved zone names: loading one reads the tz database.
var zones sync.Map

func lookupZone(name string) (*time.Location, error) {
	bad := pgerr.New(pgerr.InvalidParameterValue, "time zone %q not recognized", name)
	s := strings.TrimSpace(name)
	if s == "" {
		return nil, bad
	}
	if loc, err := types.LoadLocation(s); err == nil {
		return loc, nil
	}
	up := strings.ToUpper(s)
	for _, p := range []string{"UTC", "GMT"} {
		if strings.HasPrefix(up, p) && len(up) > len(p) && (up[len(p)] == '+' || up[len(p)] == '-') {
			s = s[len(p):]
			break
		}
	}
	sign := int64(-1) // POSIX: positive is west
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-"):
		sign, s = 1, s[1:]
	default:
		if s[0] < '0' || s[0] > '9' {
			return nil, bad
		}
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return nil, bad
	}
	var secs int64
	mult := []int64{3600, 60, 1}
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 || (i > 0 && v > 59) {
			return nil, bad
		}
		secs += v * mult[i]
	}
	if secs > 15*3600+59*60+59 {
		return nil, bad
	}
	return time.FixedZone(name, int(sign*secs)), nil
}
