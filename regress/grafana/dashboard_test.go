package grafana

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// dashboardFile is the dashboard docs/clients.md tells users to import.
const dashboardFile = "../../docs/grafana/llm-calls-dashboard.json"

// macroCall is a macro with its arguments, as macros.go matches them.
var macroCall = regexp.MustCompile(`\$([_a-zA-Z0-9]+)\(([^\)]*)\)`)

// expand does what Grafana's backend does to a rawSql before sending it:
// the global substitutions (sqleng's Interpolate: $__interval_ms,
// $__interval, $__unixEpochFrom(), $__unixEpochTo()) and then the
// PostgreSQL macros of macros.go with TimescaleDB off. A port of just
// those, for a query's time range and interval.
func expand(sql string, from, to time.Time, interval time.Duration) (string, error) {
	sql = strings.ReplaceAll(sql, "$__interval_ms", strconv.FormatInt(interval.Milliseconds(), 10))
	sql = strings.ReplaceAll(sql, "$__interval", formatInterval(interval))
	sql = strings.ReplaceAll(sql, "$__unixEpochFrom()", strconv.FormatInt(from.Unix(), 10))
	sql = strings.ReplaceAll(sql, "$__unixEpochTo()", strconv.FormatInt(to.Unix(), 10))
	var b strings.Builder
	last := 0
	for _, m := range macroCall.FindAllStringSubmatchIndex(sql, -1) {
		name, args := sql[m[2]:m[3]], strings.Split(sql[m[4]:m[5]], ",")
		for i := range args {
			args[i] = strings.Trim(args[i], " ")
		}
		// Before Grafana 5.3 $__timeGroup added the alias itself; a comma
		// right after the call still means that.
		if name == "__timeGroup" && m[1] < len(sql) && sql[m[1]] == ',' {
			name = "__timeGroupAlias"
		}
		s, err := macro(name, args, from.UTC(), to.UTC())
		if err != nil {
			return "", fmt.Errorf("%s: %w", sql[m[0]:m[1]], err)
		}
		b.WriteString(sql[last:m[0]])
		b.WriteString(s)
		last = m[1]
	}
	b.WriteString(sql[last:])
	return b.String(), nil
}

func macro(name string, args []string, from, to time.Time) (string, error) {
	col := args[0]
	if col == "" && name != "__timeFrom" && name != "__timeTo" && name != "__unixEpochNanoFrom" && name != "__unixEpochNanoTo" {
		return "", fmt.Errorf("missing time column argument")
	}
	switch name {
	case "__time":
		return col + ` AS "time"`, nil
	case "__timeEpoch":
		return "extract(epoch from " + col + `) as "time"`, nil
	case "__timeFilter":
		return fmt.Sprintf("%s BETWEEN '%s' AND '%s'", col, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano)), nil
	case "__timeFrom":
		return "'" + from.Format(time.RFC3339Nano) + "'", nil
	case "__timeTo":
		return "'" + to.Format(time.RFC3339Nano) + "'", nil
	case "__timeGroup", "__timeGroupAlias", "__unixEpochGroup", "__unixEpochGroupAlias":
		if len(args) < 2 {
			return "", fmt.Errorf("needs a time column and an interval")
		}
		iv, err := parseInterval(strings.Trim(args[1], "'"))
		if err != nil {
			return "", err
		}
		s := fmt.Sprintf("floor(extract(epoch from %s)/%v)*%v", col, iv.Seconds(), iv.Seconds())
		if strings.HasPrefix(name, "__unixEpoch") {
			s = fmt.Sprintf("floor((%s)/%v)*%v", col, iv.Seconds(), iv.Seconds())
		}
		if strings.HasSuffix(name, "Alias") {
			s += ` AS "time"`
		}
		return s, nil
	case "__unixEpochFilter":
		return fmt.Sprintf("%s >= %d AND %s <= %d", col, from.Unix(), col, to.Unix()), nil
	case "__unixEpochNanoFilter":
		return fmt.Sprintf("%s >= %d AND %s <= %d", col, from.UnixNano(), col, to.UnixNano()), nil
	case "__unixEpochNanoFrom":
		return strconv.FormatInt(from.UnixNano(), 10), nil
	case "__unixEpochNanoTo":
		return strconv.FormatInt(to.UnixNano(), 10), nil
	}
	return "", fmt.Errorf("unknown macro %q", name)
}

// parseInterval reads "5m", "1h", "30s", "2d" as Grafana's gtime does
// (Go durations plus d, w and y).
func parseInterval(s string) (time.Duration, error) {
	units := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour, 'y': 365 * 24 * time.Hour}
	if n := len(s); n > 1 {
		if u, ok := units[s[n-1]]; ok {
			v, err := strconv.Atoi(s[:n-1])
			if err != nil {
				return 0, fmt.Errorf("interval %q: %w", s, err)
			}
			return time.Duration(v) * u, nil
		}
	}
	return time.ParseDuration(s)
}

// formatInterval writes an interval in its largest whole unit, as
// gtime.FormatInterval does for $__interval.
func formatInterval(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{365 * 24 * time.Hour, "y"}, {24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d >= u.d {
			return fmt.Sprintf("%d%s", d/u.d, u.name)
		}
	}
	return "1ms"
}

// TestMacros checks the port against the expansions issue 5 quotes.
func TestMacros(t *testing.T) {
	day := [2]time.Time{time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}
	hour := [2]time.Time{time.Unix(1700000000, 0), time.Unix(1700003600, 0)}
	for _, c := range []struct {
		in    string
		r     [2]time.Time
		iv    time.Duration
		out   string
		error bool
	}{
		{in: `$__timeFilter(ts)`, r: day, out: `ts BETWEEN '2026-11-01T00:00:00Z' AND '2026-11-02T00:00:00Z'`},
		{in: `$__timeGroupAlias(ts, $__interval)`, r: day, iv: 5 * time.Minute, out: `floor(extract(epoch from ts)/300)*300 AS "time"`},
		{in: `$__timeGroup(ts, '5m'), x`, r: day, out: `floor(extract(epoch from ts)/300)*300 AS "time", x`},
		{in: `GROUP BY $__timeGroup(ts, 1h)`, r: day, out: `GROUP BY floor(extract(epoch from ts)/3600)*3600`},
		{in: `$__timeEpoch(ts)`, r: day, out: `extract(epoch from ts) as "time"`},
		{in: `$__time(ts)`, r: day, out: `ts AS "time"`},
		{in: `$__unixEpochFilter(ts)`, r: hour, out: `ts >= 1700000000 AND ts <= 1700003600`},
		{in: `$__unixEpochGroupAlias(ts, 5m)`, r: hour, out: `floor((ts)/300)*300 AS "time"`},
		{in: `$__timeFrom() $__timeTo() $__unixEpochFrom() $__unixEpochTo() $__interval_ms`, r: hour, iv: time.Minute,
			out: `'2023-11-14T22:13:20Z' '2023-11-14T23:13:20Z' 1700000000 1700003600 60000`},
		{in: `$__timeGroup(ts)`, r: day, error: true},
		{in: `$__nope(ts)`, r: day, error: true},
	} {
		got, err := expand(c.in, c.r[0], c.r[1], c.iv)
		if c.error {
			if err == nil {
				t.Errorf("expand(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.out {
			t.Errorf("expand(%q) = %q, %v; want %q", c.in, got, err, c.out)
		}
	}
	// grafana_test.go's panel queries are these expansions.
	for i, q := range panelQueries {
		if q.raw == "" {
			continue
		}
		from, to := day[0], day[1]
		if q.epoch {
			from, to = hour[0], hour[1]
		}
		got, err := expand(q.raw, from, to, 5*time.Minute)
		if err != nil || got != q.sql {
			t.Errorf("panel query %d: expand(%q) = %q, %v\nwant %q", i, q.raw, got, err, q.sql)
		}
	}
}

// dashboard is the part of Grafana's dashboard JSON the test reads.
type dashboard struct {
	Inputs []struct {
		Name, Type, PluginID string
	} `json:"__inputs"`
	SchemaVersion int `json:"schemaVersion"`
	Panels        []struct {
		Title      string
		Type       string
		Datasource struct{ Type, UID string }
		Targets    []struct {
			RefID      string `json:"refId"`
			Format     string
			RawQuery   bool
			RawSQL     string `json:"rawSql"`
			Datasource struct{ Type, UID string }
		}
	}
	Templating struct {
		List []struct {
			Name, Type string
			Query      string
			Multi      bool
			IncludeAll bool
		}
	}
}

// moreCalls lands after a CHECKPOINT on Loam, so the panels read Iceberg
// files and the write log together.
const moreCalls = `INSERT INTO llm_calls SELECT TIMESTAMPTZ '2026-11-01 12:00:30+00' + (i * 41) * INTERVAL '1 second',
	'initech', CASE WHEN i % 2 = 0 THEN 'gpt-4o' ELSE 'claude-sonnet' END,
	500 + i, 80, (i % 8) / 4.0, 900 + (i * 13) % 700
	FROM generate_series(0, 299) AS s(i)`

func TestDashboard(t *testing.T) {
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	const ds = "grafana-postgresql-datasource"
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_LOAM" || d.Inputs[0].Type != "datasource" || d.Inputs[0].PluginID != ds {
		t.Errorf("__inputs = %+v, want one datasource input DS_LOAM for %s", d.Inputs, ds)
	}
	if d.SchemaVersion < 39 {
		t.Errorf("schemaVersion %d", d.SchemaVersion)
	}
	if len(d.Panels) != 3 || len(d.Templating.List) != 1 {
		t.Fatalf("%d panels and %d variables, want 3 and 1", len(d.Panels), len(d.Templating.List))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	loam, pg := servers(t, ctx, loamTable, table)
	if _, err := loam.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatalf("CHECKPOINT: %v", err)
	}
	for _, c := range []*pgx.Conn{loam, pg} {
		if _, err := c.PgConn().Exec(ctx, moreCalls).ReadAll(); err != nil {
			t.Fatal(err)
		}
	}

	// The query editor lists README's table as PostgreSQL lists the same
	// columns: STRING is text, DOUBLE double precision, TIMESTAMP(3) WITH
	// TIME ZONE timestamp with time zone.
	for _, q := range []string{getSchema("llm_calls"), metaQueries[3]} {
		p, perr := simple(ctx, pg, q)
		l, lerr := simple(ctx, loam, q)
		if perr != nil || lerr != nil {
			t.Fatalf("%s\nPostgreSQL: %v\nLoam: %v", q, perr, lerr)
		}
		sameResults(t, "columns of README's llm_calls", l, p)
	}
	for _, q := range paramQueries[1:3] {
		p, perr := values(ctx, pg, q.sql, q.args)
		l, lerr := values(ctx, loam, q.sql, q.args)
		if perr != nil || lerr != nil || l != p {
			t.Errorf("%s\nPostgreSQL: %v\n%s\nLoam: %v\n%s", q.sql, perr, p, lerr, l)
		}
	}

	from, to := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	// The tenant variable: its query, then "All" as Grafana's frontend
	// interpolates a multi-value variable (each value quoted, joined by
	// commas).
	v := d.Templating.List[0]
	if v.Name != "tenant" || !v.Multi || !v.IncludeAll {
		t.Errorf("variable %+v: want a multi-value tenant with All", v)
	}
	vq, err := expand(v.Query, from, to, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := simple(ctx, pg, vq)
	if err != nil {
		t.Fatalf("variable query on PostgreSQL: %v\n%s", err, vq)
	}
	l, err := simple(ctx, loam, vq)
	if err != nil {
		t.Fatalf("variable query on Loam: %v\n%s", err, vq)
	}
	sameResults(t, "variable query", l, p)
	var tenants []string
	for _, r := range l[0].rows {
		tenants = append(tenants, "'"+strings.ReplaceAll(r, "'", "''")+"'")
	}
	if len(tenants) != 3 {
		t.Errorf("tenants %v, want 3", tenants)
	}
	all := strings.Join(tenants, ",")

	serial := map[string][]result{} // PostgreSQL's answer to each expanded query
	for _, panel := range d.Panels {
		if panel.Type != "timeseries" || panel.Datasource.Type != ds || panel.Datasource.UID != "${DS_LOAM}" {
			t.Errorf("panel %q: type %s, data source %+v", panel.Title, panel.Type, panel.Datasource)
		}
		for _, target := range panel.Targets {
			if target.Format != "time_series" || !target.RawQuery || target.Datasource.UID != "${DS_LOAM}" {
				t.Errorf("panel %q: target %+v", panel.Title, target)
			}
			for _, iv := range []time.Duration{time.Minute, 5 * time.Minute, time.Hour} {
				what := fmt.Sprintf("panel %q at %s", panel.Title, iv)
				for _, tv := range []string{all, "'initech'"} {
					q, err := expand(strings.ReplaceAll(target.RawSQL, "$tenant", tv), from, to, iv)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					p, err := simple(ctx, pg, q)
					if err != nil {
						t.Fatalf("%s on PostgreSQL: %v\n%s", what, err, q)
					}
					l, err := simple(ctx, loam, q)
					if err != nil {
						t.Errorf("%s on Loam: %v\n%s", what, err, q)
						continue
					}
					sameResults(t, what, l, p)
					if len(l) == 1 {
						checkSeries(t, what, l[0])
					}
					serial[q] = p
				}
			}
		}
	}

	// A dashboard refresh runs its panels at once on the pool's
	// connections (sql_engine.go: one goroutine per query).
	host, port, _ := strings.Cut(loam.Config().Host+":"+fmt.Sprint(loam.Config().Port), ":")
	cfg, err := pgxpool.ParseConfig(fmt.Sprintf("user='loam' host='%s' dbname='loam' port=%s sslmode='disable'", host, port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var wg sync.WaitGroup
	errs := make(chan string, 3*len(serial))
	for round := 0; round < 3; round++ {
		for q, want := range serial {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := pool.Acquire(ctx)
				if err != nil {
					errs <- err.Error()
					return
				}
				defer c.Release()
				rs, err := c.Conn().PgConn().Exec(ctx, q).ReadAll()
				if err != nil {
					errs <- fmt.Sprintf("%v\n%s", err, q)
					return
				}
				if len(rs) != 1 || fromPgconn(rs[0]).String() != want[0].String() {
					errs <- fmt.Sprintf("concurrent answer differs\n%s", q)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
