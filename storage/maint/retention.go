package maint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
)

// Table properties for retention. RetentionSpecProperty holds the interval
// as "months days micros" (a month has no fixed length, so the three stay
// apart as in PostgreSQL); RetentionColumnProperty names the time column.
// The SQL layer also keeps the interval's text (loam.retention) for \d.
const (
	RetentionSpecProperty   = "loam.retention.spec"
	RetentionColumnProperty = "loam.retention.column"
)

// Retention is a table's retention: rows whose Column lies before
// Cutoff(now) are expired.
type Retention struct {
	Months, Days int32
	Micros       int64
	Column       string
}

// RetentionSpec formats an interval for RetentionSpecProperty.
func RetentionSpec(months, days int32, micros int64) string {
	return fmt.Sprintf("%d %d %d", months, days, micros)
}

// RetentionOf reads a table's retention; ok is false when it has none.
func RetentionOf(props iceberg.Properties) (r Retention, ok bool, err error) {
	spec, col := props[RetentionSpecProperty], props[RetentionColumnProperty]
	if spec == "" || col == "" {
		return Retention{}, false, nil
	}
	r, err = parseSpec(spec)
	if err != nil {
		return Retention{}, false, fmt.Errorf("bad %s %q", RetentionSpecProperty, spec)
	}
	r.Column = col
	return r, true, nil
}

// parseSpec reads an interval spec as RetentionSpec writes it.
func parseSpec(spec string) (Retention, error) {
	f := strings.Fields(spec)
	if len(f) != 3 {
		return Retention{}, fmt.Errorf("bad interval spec %q", spec)
	}
	m, err1 := strconv.ParseInt(f[0], 10, 32)
	d, err2 := strconv.ParseInt(f[1], 10, 32)
	us, err3 := strconv.ParseInt(f[2], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return Retention{}, err
	}
	return Retention{Months: int32(m), Days: int32(d), Micros: us}, nil
}

// Cutoff is the first instant still kept at now: now minus the interval
// as PostgreSQL's timestamptz - interval computes it in UTC: months by the
// calendar, clamping the day to the month's end (March 31 less a month is
// February 28), then days, then microseconds.
func (r Retention) Cutoff(now time.Time) time.Time {
	t := now.UTC()
	if r.Months != 0 {
		y, m, d := t.Date()
		first := time.Date(y, m-time.Month(r.Months), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		t = first.AddDate(0, 0, min(d, last)-1)
	}
	return t.AddDate(0, 0, -int(r.Days)).Add(-time.Duration(r.Micros) * time.Microsecond)
}

// KeepFrom is the first stored value of a retention column that cutoff
// keeps: microseconds since the epoch (timestamp, timestamptz; a timestamp
// without time zone is read as UTC), or for a date column days since the
// epoch, the first day whose midnight is not before the cutoff. A row is
// expired when its value is below it; a NULL never is.
func KeepFrom(cutoff time.Time, date bool) int64 {
	us := cutoff.UnixMicro()
	if !date {
		return us
	}
	const day = int64(86400e6)
	d := us / day
	if us%day != 0 && us < 0 {
		d-- // floor
	}
	if d*day < us {
		d++ // a day starting before the cutoff is expired
	}
	return d
}
