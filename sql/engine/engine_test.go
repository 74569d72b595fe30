package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/storage/s3test"
	"github.com/loamdb/loam/types"
)

// null marks a NULL in result rows; no text value can equal it.
const null = "\x00NULL"

// createLLMCalls is the Loam statement the tests create their table with:
// README's, with a retention long enough that the tests' fixed timestamps
// never expire.
const createLLMCalls = `CREATE TABLE llm_calls (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING, prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT) PARTITIONED BY (day(ts)) SORTED BY (tenant, model, ts) WITH (retention = '100 years' ON ts)`

// result is what one statement produced.
type result struct {
	cols []engine.Column
	rows [][]string
	tag  string
}

func openEngine(t testing.TB) *engine.Engine {
	t.Helper()
	return openEngineAt(t, t.TempDir())
}

func openEngineAt(t testing.TB, dir string) *engine.Engine {
	t.Helper()
	wh, whIO := s3test.Warehouse(t, dir)
	e, err := engine.Open(context.Background(), engine.Config{
		MetastoreURL: "sqlite://" + dir + "/meta.db",
		WarehouseURL: wh, WarehouseIO: whIO,
		DataDir: dir,
	})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func newSession(t testing.TB, e *engine.Engine) *engine.Session {
	t.Helper()
	s, err := e.NewSession("loam", "loam", nil)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	return s
}

// runSQL runs a query string as the simple protocol does: every statement
// is prepared first, then each is executed in turn. It returns the result
// of each statement up to the first error. Like the wire layer, it marks
// the session failed when preparing fails.
func runSQL(ctx context.Context, s *engine.Session, query string) ([]result, error) {
	stmts, err := s.Prepare(ctx, query, nil)
	if err != nil {
		s.MarkFailed()
		return nil, err
	}
	var out []result
	for _, st := range stmts {
		r, err := execStmt(ctx, s, st, nil)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func execStmt(ctx context.Context, s *engine.Session, st *engine.Statement, params []types.Datum) (result, error) {
	cur, err := s.Execute(ctx, st, params)
	if err != nil {
		return result{}, err
	}
	defer cur.Close()
	r := result{cols: cur.Columns()}
	for {
		rec, err := cur.Next(ctx)
		if err != nil {
			return result{}, err
		}
		if rec == nil {
			break
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			r.rows = append(r.rows, make([]string, rec.NumCols()))
		}
		base := len(r.rows) - int(rec.NumRows())
		for c := 0; c < int(rec.NumCols()); c++ {
			arr := rec.Column(c)
			w := types.TextWriter(r.cols[c].Type, arr, s.Location())
			for i := 0; i < arr.Len(); i++ {
				if arr.IsNull(i) {
					r.rows[base+i][c] = null
				} else {
					r.rows[base+i][c] = string(w(nil, i))
				}
			}
		}
	}
	r.tag = cur.Tag()
	return r, nil
}

// mustRun runs query and returns the last statement's result.
func mustRun(t testing.TB, s *engine.Session, query string) result {
	t.Helper()
	rs, err := runSQL(context.Background(), s, query)
	if err != nil {
		t.Fatalf("%s: %v (SQLSTATE %s)", query, err, sqlstate(err))
	}
	if len(rs) == 0 {
		return result{}
	}
	return rs[len(rs)-1]
}

// sqlstate is pgerr.Code that tolerates nil (pgerr.Code(nil) panics).
func sqlstate(err error) string {
	if err == nil {
		return ""
	}
	return pgerr.Code(err)
}

func show(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				b.WriteString(" | ")
			}
			if v == null {
				v = "NULL"
			}
			b.WriteString(v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The test data. Each row is the text PostgreSQL prints for it (UTC), and
// tsIn is the literal inserted for ts. Column order is the table's.
const (
	cTS = iota
	cTenant
	cModel
	cPrompt
	cCompletion
	cCost
	cLatency
)

type callRow struct {
	tsIn string
	out  [7]string
}

// Rows are in ts order. Costs are binary fractions so float sums are exact
// whatever order they are added in. r2 rounds (TIMESTAMP(3)) across
// midnight into the next day; r5 and r6 test millisecond rounding down
// and half up; r7 is given with a +05:30 offset.
var calls = []callRow{
	{"2026-11-27 09:00:00.1234+00", [7]string{"2026-11-27 09:00:00.123+00", "acme", "gpt-4o", "100", "50", "0.125", "120"}},
	{"2026-11-27 23:59:59.9996+00", [7]string{"2026-11-28 00:00:00+00", "acme", "claude", "200", "100", "0.25", "300"}},
	{"2026-11-28 12:00:00+00", [7]string{"2026-11-28 12:00:00+00", "globex", "gpt-4o", "300", null, "0.5", "500"}},
	{"2026-11-28 13:30:00.5+00", [7]string{"2026-11-28 13:30:00.5+00", "acme", "gpt-4o", "50", "25", null, "80"}},
	{"2026-11-29 10:00:00.1229+00", [7]string{"2026-11-29 10:00:00.123+00", "globex", "claude", "400", "200", "1.5", "120"}},
	{"2026-11-29 10:00:00.1235+00", [7]string{"2026-11-29 10:00:00.124+00", null, "gpt-4o", "10", "5", "0.0625", null}},
	{"2026-11-29 15:45:00+05:30", [7]string{"2026-11-29 10:15:00+00", "initech", "gpt-4o-mini", "1000", "500", "0.0078125", "45"}},
}

func sqlLit(col int, v string) string {
	switch {
	case v == null:
		return "NULL"
	case col == cTenant || col == cModel:
		return "'" + v + "'"
	}
	return v
}

func insertSQL(rows []callRow) string {
	var vals []string
	for _, r := range rows {
		lits := []string{"'" + r.tsIn + "'"}
		for c := 1; c < 7; c++ {
			lits = append(lits, sqlLit(c, r.out[c]))
		}
		vals = append(vals, "("+strings.Join(lits, ", ")+")")
	}
	return "INSERT INTO llm_calls VALUES " + strings.Join(vals, ",\n ")
}

func num(v string) (float64, bool) {
	if v == null {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		panic(err)
	}
	return f, true
}

// pick returns the given columns of the rows (in ts order) that keep.
func pick(keep func(r [7]string) bool, cols ...int) [][]string {
	out := [][]string{}
	for _, r := range calls {
		if keep(r.out) {
			row := make([]string, len(cols))
			for i, c := range cols {
				row[i] = r.out[c]
			}
			out = append(out, row)
		}
	}
	return out
}

func intCmp(col int, pred func(float64) bool) func(r [7]string) bool {
	return func(r [7]string) bool {
		f, ok := num(r[col])
		return ok && pred(f)
	}
}

// loaded opens an engine with llm_calls created and filled with calls.
func loaded(t *testing.T) (*engine.Engine, *engine.Session) {
	t.Helper()
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, createLLMCalls)
	r := mustRun(t, s, insertSQL(calls))
	if want := fmt.Sprintf("INSERT 0 %d", len(calls)); r.tag != want {
		t.Fatalf("insert tag %q, want %q", r.tag, want)
	}
	return e, s
}

func TestInsertAndSelectAll(t *testing.T) {
	_, s := loaded(t)
	r := mustRun(t, s, "SELECT * FROM llm_calls ORDER BY ts")
	want := pick(func([7]string) bool { return true }, 0, 1, 2, 3, 4, 5, 6)
	if !reflect.DeepEqual(r.rows, want) {
		t.Fatalf("got\n%swant\n%s", show(r.rows), show(want))
	}
	if want := fmt.Sprintf("SELECT %d", len(calls)); r.tag != want {
		t.Errorf("tag %q, want %q", r.tag, want)
	}
	names := []string{"ts", "tenant", "model", "prompt_tokens", "completion_tokens", "cost_usd", "latency_ms"}
	oids := []uint32{types.OIDTimestampTZ, types.OIDText, types.OIDText, types.OIDInt4, types.OIDInt4, types.OIDFloat8, types.OIDInt4}
	for i, c := range r.cols {
		if c.Name != names[i] || c.Type.OID() != oids[i] {
			t.Errorf("column %d: %s oid %d, want %s oid %d", i, c.Name, c.Type.OID(), names[i], oids[i])
		}
	}
}

func TestQueries(t *testing.T) {
	_, s := loaded(t)
	all := func([7]string) bool { return true }
	cases := []struct {
		name  string
		query string
		want  [][]string
	}{
		{"gt", "SELECT tenant, latency_ms FROM llm_calls WHERE latency_ms > 200 ORDER BY ts",
			pick(intCmp(cLatency, func(f float64) bool { return f > 200 }), cTenant, cLatency)},
		{"le", "SELECT ts FROM llm_calls WHERE prompt_tokens <= 100 ORDER BY ts",
			pick(intCmp(cPrompt, func(f float64) bool { return f <= 100 }), cTS)},
		{"ne", "SELECT model FROM llm_calls WHERE tenant <> 'acme' ORDER BY ts",
			pick(func(r [7]string) bool { return r[cTenant] != null && r[cTenant] != "acme" }, cModel)},
		{"eq float", "SELECT tenant FROM llm_calls WHERE cost_usd = 0.5 ORDER BY ts",
			pick(intCmp(cCost, func(f float64) bool { return f == 0.5 }), cTenant)},
		{"and or", "SELECT ts FROM llm_calls WHERE (tenant = 'acme' AND latency_ms < 200) OR model = 'claude' ORDER BY ts",
			pick(func(r [7]string) bool {
				lat, ok := num(r[cLatency])
				return (r[cTenant] == "acme" && ok && lat < 200) || r[cModel] == "claude"
			}, cTS)},
		{"not", "SELECT ts FROM llm_calls WHERE NOT (model = 'gpt-4o') ORDER BY ts",
			pick(func(r [7]string) bool { return r[cModel] != null && r[cModel] != "gpt-4o" }, cTS)},
		{"is null", "SELECT ts, tenant FROM llm_calls WHERE completion_tokens IS NULL OR tenant IS NULL ORDER BY ts",
			pick(func(r [7]string) bool { return r[cCompletion] == null || r[cTenant] == null }, cTS, cTenant)},
		{"is not null", "SELECT ts FROM llm_calls WHERE cost_usd IS NOT NULL ORDER BY ts",
			pick(func(r [7]string) bool { return r[cCost] != null }, cTS)},
		{"in", "SELECT ts FROM llm_calls WHERE tenant IN ('globex', 'initech') ORDER BY ts",
			pick(func(r [7]string) bool { return r[cTenant] == "globex" || r[cTenant] == "initech" }, cTS)},
		{"not in", "SELECT ts FROM llm_calls WHERE prompt_tokens NOT IN (100, 200, 300) ORDER BY ts",
			pick(intCmp(cPrompt, func(f float64) bool { return f != 100 && f != 200 && f != 300 }), cTS)},
		{"between", "SELECT ts FROM llm_calls WHERE latency_ms BETWEEN 80 AND 300 ORDER BY ts",
			pick(intCmp(cLatency, func(f float64) bool { return f >= 80 && f <= 300 }), cTS)},
		{"between ts", "SELECT tenant FROM llm_calls WHERE ts BETWEEN '2026-11-28 00:00:00+00' AND '2026-11-28 23:59:59+00' ORDER BY ts",
			pick(func(r [7]string) bool { return strings.HasPrefix(r[cTS], "2026-11-28") }, cTenant)},
		{"ts ge", "SELECT ts FROM llm_calls WHERE ts >= '2026-11-29' ORDER BY ts",
			pick(func(r [7]string) bool { return strings.HasPrefix(r[cTS], "2026-11-29") }, cTS)},
		{"like", "SELECT ts FROM llm_calls WHERE model LIKE 'gpt-4o%' ORDER BY ts",
			pick(func(r [7]string) bool { return strings.HasPrefix(r[cModel], "gpt-4o") }, cTS)},
		{"like underscore", "SELECT ts FROM llm_calls WHERE model LIKE 'gpt-4_' ORDER BY ts",
			pick(func(r [7]string) bool { return r[cModel] == "gpt-4o" }, cTS)},
		{"not like", "SELECT ts FROM llm_calls WHERE model NOT LIKE '%4o%' ORDER BY ts",
			pick(func(r [7]string) bool { return r[cModel] != null && !strings.Contains(r[cModel], "4o") }, cTS)},
		{"limit offset", "SELECT ts FROM llm_calls ORDER BY ts LIMIT 2 OFFSET 3", pick(all, cTS)[3:5]},
		{"limit", "SELECT ts FROM llm_calls ORDER BY ts LIMIT 1", pick(all, cTS)[:1]},
		{"offset past end", "SELECT ts FROM llm_calls ORDER BY ts OFFSET 100", [][]string{}},
		{"limit 0", "SELECT ts FROM llm_calls LIMIT 0", [][]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRun(t, s, tc.query)
			got := r.rows
			if got == nil {
				got = [][]string{}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s\ngot\n%swant\n%s", tc.query, show(got), show(tc.want))
			}
			if want := fmt.Sprintf("SELECT %d", len(tc.want)); r.tag != want {
				t.Errorf("tag %q, want %q", r.tag, want)
			}
		})
	}
}

// sortedBy returns ts values ordered by a key column, ties broken by ts.
func sortedBy(col int, desc, nullsFirst bool) [][]string {
	rows := pick(func([7]string) bool { return true }, col, cTS)
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i][0], rows[j][0]
		if (a == null) != (b == null) {
			return (a == null) == nullsFirst
		}
		if a == null || a == b {
			return false // stable: ts order
		}
		var less bool
		if col != cTenant && col != cModel {
			fa, _ := num(a)
			fb, _ := num(b)
			less = fa < fb
		} else {
			less = a < b
		}
		if desc {
			return !less
		}
		return less
	})
	return rows
}

func TestOrderBy(t *testing.T) {
	_, s := loaded(t)
	cases := []struct {
		order            string
		col              int
		desc, nullsFirst bool
	}{
		// PostgreSQL's defaults: NULLS LAST ascending, NULLS FIRST descending.
		{"latency_ms", cLatency, false, false},
		{"latency_ms DESC", cLatency, true, true},
		{"latency_ms DESC NULLS LAST", cLatency, true, false},
		{"latency_ms ASC NULLS FIRST", cLatency, false, true},
		{"tenant NULLS FIRST", cTenant, false, true},
		{"tenant DESC", cTenant, true, true},
		{"cost_usd DESC NULLS LAST", cCost, true, false},
		{"prompt_tokens DESC", cPrompt, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.order, func(t *testing.T) {
			q := fmt.Sprintf("SELECT %s, ts FROM llm_calls ORDER BY %s, ts", strings.Fields(tc.order)[0], tc.order)
			r := mustRun(t, s, q)
			want := sortedBy(tc.col, tc.desc, tc.nullsFirst)
			if !reflect.DeepEqual(r.rows, want) {
				t.Fatalf("%s\ngot\n%swant\n%s", q, show(r.rows), show(want))
			}
		})
	}
}

func TestGroupBy(t *testing.T) {
	_, s := loaded(t)
	// Expected aggregates per tenant, computed from calls.
	type agg struct {
		count, countLat, sumPrompt int64
		sumCost                    float64
		nCost                      int
		minLat, maxLat             float64
		nLat                       int
	}
	groups := map[string]*agg{}
	for _, c := range calls {
		g := groups[c.out[cTenant]]
		if g == nil {
			g = &agg{minLat: math.Inf(1), maxLat: math.Inf(-1)}
			groups[c.out[cTenant]] = g
		}
		g.count++
		p, _ := num(c.out[cPrompt])
		g.sumPrompt += int64(p)
		if f, ok := num(c.out[cCost]); ok {
			g.sumCost += f
			g.nCost++
		}
		if f, ok := num(c.out[cLatency]); ok {
			g.countLat++
			g.minLat = math.Min(g.minLat, f)
			g.maxLat = math.Max(g.maxLat, f)
			g.nLat++
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { // NULLS FIRST, then by name
		if (keys[i] == null) != (keys[j] == null) {
			return keys[i] == null
		}
		return keys[i] < keys[j]
	})
	orNull := func(ok bool, v string) string {
		if !ok {
			return null
		}
		return v
	}
	var want [][]string
	for _, k := range keys {
		g := groups[k]
		want = append(want, []string{k,
			strconv.FormatInt(g.count, 10),
			strconv.FormatInt(g.countLat, 10),
			strconv.FormatInt(g.sumPrompt, 10),
			orNull(g.nCost > 0, types.FormatFloat8(g.sumCost)),
			orNull(g.nLat > 0, strconv.Itoa(int(g.minLat))),
			orNull(g.nLat > 0, strconv.Itoa(int(g.maxLat))),
		})
	}
	q := `SELECT tenant, count(*), count(latency_ms), sum(prompt_tokens), sum(cost_usd), min(latency_ms), max(latency_ms)
FROM llm_calls GROUP BY tenant ORDER BY tenant NULLS FIRST`
	r := mustRun(t, s, q)
	if !reflect.DeepEqual(r.rows, want) {
		t.Fatalf("got\n%swant\n%s", show(r.rows), show(want))
	}
	oids := []uint32{types.OIDText, types.OIDInt8, types.OIDInt8, types.OIDInt8, types.OIDFloat8, types.OIDInt4, types.OIDInt4}
	for i, c := range r.cols {
		if c.Type.OID() != oids[i] {
			t.Errorf("column %d (%s): oid %d, want %d", i, c.Name, c.Type.OID(), oids[i])
		}
	}

	// avg of an int column is numeric with PostgreSQL's division scale:
	// globex latencies 500 and 120 average 310 exactly (16 digits, since the
	// quotient's base-10000 weight is 0); acme's 120, 300, 80 give 500/3;
	// initech's one row 45; the NULL tenant's only latency is NULL.
	r = mustRun(t, s, "SELECT tenant, avg(latency_ms) FROM llm_calls GROUP BY tenant ORDER BY tenant")
	wantAvg := [][]string{
		{"acme", "166.6666666666666667"},
		{"globex", "310.0000000000000000"},
		{"initech", "45.0000000000000000"},
		{null, null},
	}
	if !reflect.DeepEqual(r.rows, wantAvg) {
		t.Fatalf("avg: got\n%swant\n%s", show(r.rows), show(wantAvg))
	}
	if oid := r.cols[1].Type.OID(); oid != types.OIDNumeric {
		t.Errorf("avg oid %d, want numeric %d", oid, types.OIDNumeric)
	}

	// Aggregates without GROUP BY over all rows, and over no rows.
	var total, n int64
	for _, c := range calls {
		if f, ok := num(c.out[cPrompt]); ok {
			total += int64(f)
			n++
		}
	}
	r = mustRun(t, s, "SELECT count(*), sum(prompt_tokens), count(tenant) FROM llm_calls")
	nTenant := len(pick(func(r [7]string) bool { return r[cTenant] != null }, cTS))
	want1 := [][]string{{strconv.Itoa(len(calls)), strconv.FormatInt(total, 10), strconv.Itoa(nTenant)}}
	if !reflect.DeepEqual(r.rows, want1) {
		t.Errorf("totals: got\n%swant\n%s", show(r.rows), show(want1))
	}
	r = mustRun(t, s, "SELECT count(*), sum(prompt_tokens), max(ts) FROM llm_calls WHERE tenant = 'nobody'")
	if want := [][]string{{"0", null, null}}; !reflect.DeepEqual(r.rows, want) {
		t.Errorf("empty aggregate: got\n%swant\n%s", show(r.rows), show(want))
	}
	// GROUP BY two keys with HAVING-free ordering by an aggregate.
	r = mustRun(t, s, "SELECT model, count(*) FROM llm_calls GROUP BY model ORDER BY count(*) DESC, model")
	counts := map[string]int{}
	for _, c := range calls {
		counts[c.out[cModel]]++
	}
	models := make([]string, 0, len(counts))
	for m := range counts {
		models = append(models, m)
	}
	sort.Slice(models, func(i, j int) bool {
		if counts[models[i]] != counts[models[j]] {
			return counts[models[i]] > counts[models[j]]
		}
		return models[i] < models[j]
	})
	var wantM [][]string
	for _, m := range models {
		wantM = append(wantM, []string{m, strconv.Itoa(counts[m])})
	}
	if !reflect.DeepEqual(r.rows, wantM) {
		t.Errorf("by model: got\n%swant\n%s", show(r.rows), show(wantM))
	}
}

func TestInsertSelect(t *testing.T) {
	_, s := loaded(t)
	mustRun(t, s, "CREATE TABLE acme_calls (ts TIMESTAMP(3) WITH TIME ZONE, model STRING, tokens BIGINT)")
	acme := pick(func(r [7]string) bool { return r[cTenant] == "acme" }, cTS, cModel, cPrompt, cCompletion)
	r := mustRun(t, s, "INSERT INTO acme_calls SELECT ts, model, prompt_tokens + completion_tokens FROM llm_calls WHERE tenant = 'acme'")
	if want := fmt.Sprintf("INSERT 0 %d", len(acme)); r.tag != want {
		t.Errorf("tag %q, want %q", r.tag, want)
	}
	var want [][]string
	for _, a := range acme {
		p, _ := num(a[2])
		c, ok := num(a[3])
		tok := null
		if ok {
			tok = strconv.Itoa(int(p + c))
		}
		want = append(want, []string{a[0], a[1], tok})
	}
	r = mustRun(t, s, "SELECT ts, model, tokens FROM acme_calls ORDER BY ts")
	if !reflect.DeepEqual(r.rows, want) {
		t.Fatalf("got\n%swant\n%s", show(r.rows), show(want))
	}
	if r.cols[2].Type.OID() != types.OIDInt8 {
		t.Errorf("tokens oid %d, want int8", r.cols[2].Type.OID())
	}

	// INSERT … SELECT into the same table, with a column list that leaves
	// the rest NULL.
	r = mustRun(t, s, "INSERT INTO llm_calls (ts, tenant) SELECT ts, 'copy' FROM llm_calls WHERE model = 'claude'")
	nClaude := len(pick(func(r [7]string) bool { return r[cModel] == "claude" }, cTS))
	if want := fmt.Sprintf("INSERT 0 %d", nClaude); r.tag != want {
		t.Errorf("tag %q, want %q", r.tag, want)
	}
	r = mustRun(t, s, "SELECT count(*), count(model) FROM llm_calls WHERE tenant = 'copy'")
	if want := [][]string{{strconv.Itoa(nClaude), "0"}}; !reflect.DeepEqual(r.rows, want) {
		t.Errorf("copies: got %v, want %v", r.rows, want)
	}
	r = mustRun(t, s, "SELECT count(*) FROM llm_calls")
	if want := strconv.Itoa(len(calls) + nClaude); r.rows[0][0] != want {
		t.Errorf("count %s, want %s", r.rows[0][0], want)
	}
}

func TestTextFormats(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	cases := []struct {
		query string
		want  []string
		oids  []uint32
	}{
		{"SELECT true, false, 1 < 2, NULL::boolean", []string{"t", "f", "t", null},
			[]uint32{types.OIDBool, types.OIDBool, types.OIDBool, types.OIDBool}},
		{"SELECT 0.1::float8, 1e15::float8, 1e-5::float8, 123456789012345::float8, 1.5e300::float8",
			[]string{"0.1", "1e+15", "1e-05", "123456789012345", "1.5e+300"}, nil},
		{"SELECT 'NaN'::float8, 'Infinity'::float8, '-Infinity'::float8", []string{"NaN", "Infinity", "-Infinity"}, nil},
		{"SELECT 0.1::float8 + 0.2::float8", []string{"0.30000000000000004"}, []uint32{types.OIDFloat8}},
		{"SELECT '2026-11-29 10:00:00.1234'::timestamptz(3)", []string{"2026-11-29 10:00:00.123+00"}, []uint32{types.OIDTimestampTZ}},
		{"SELECT '2026-11-29 10:00:00.9999+00'::timestamptz(3)", []string{"2026-11-29 10:00:01+00"}, nil},
		{"SELECT '2026-11-29 15:30:00+05:30'::timestamptz", []string{"2026-11-29 10:00:00+00"}, nil},
		{"SELECT '2026-11-29 10:00:00'::timestamp", []string{"2026-11-29 10:00:00"}, []uint32{types.OIDTimestamp}},
		{"SELECT 7 / 2, 7 % 3, -7 / 2", []string{"3", "1", "-3"}, []uint32{types.OIDInt4, types.OIDInt4, types.OIDInt4}},
		{"SELECT 2147483647::int8 + 1", []string{"2147483648"}, []uint32{types.OIDInt8}},
		{"SELECT 1.50 + 1, 3::numeric / 2", []string{"2.50", "1.5000000000000000"}, []uint32{types.OIDNumeric, types.OIDNumeric}},
		{"SELECT 'x' || 'y'", []string{"xy"}, []uint32{types.OIDText}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := mustRun(t, s, tc.query)
			if len(r.rows) != 1 || !reflect.DeepEqual(r.rows[0], tc.want) {
				t.Fatalf("got %q, want %q", r.rows, tc.want)
			}
			for i, oid := range tc.oids {
				if got := r.cols[i].Type.OID(); got != oid {
					t.Errorf("column %d oid %d, want %d", i, got, oid)
				}
			}
		})
	}
}

func TestTimeZone(t *testing.T) {
	_, s := loaded(t)
	q := "SELECT ts FROM llm_calls WHERE tenant = 'initech'"
	if r := mustRun(t, s, q); r.rows[0][0] != "2026-11-29 10:15:00+00" {
		t.Fatalf("UTC: got %q", r.rows[0][0])
	}
	r := mustRun(t, s, "SET TimeZone = 'America/New_York'")
	if r.tag != "SET" {
		t.Errorf("tag %q", r.tag)
	}
	// 29 November is EST, UTC-5.
	if r := mustRun(t, s, q); r.rows[0][0] != "2026-11-29 05:15:00-05" {
		t.Errorf("New York: got %q, want 2026-11-29 05:15:00-05", r.rows[0][0])
	}
	// A literal without a zone is now read in New York time.
	r = mustRun(t, s, "SELECT tenant FROM llm_calls WHERE ts = '2026-11-29 05:15:00'")
	if len(r.rows) != 1 || r.rows[0][0] != "initech" {
		t.Errorf("zone-less literal: got %v", r.rows)
	}
	if v, _ := s.Setting("timezone"); v != "America/New_York" {
		t.Errorf("Setting(timezone) = %q", v)
	}
	mustRun(t, s, "SET TimeZone = 'Asia/Kolkata'")
	if r := mustRun(t, s, q); r.rows[0][0] != "2026-11-29 15:45:00+05:30" {
		t.Errorf("Kolkata: got %q, want the inserted 2026-11-29 15:45:00+05:30", r.rows[0][0])
	}
	if _, err := runSQL(context.Background(), s, "SET TimeZone = 'Mars/Olympus_Mons'"); sqlstate(err) != pgerr.InvalidParameterValue {
		t.Errorf("bad zone: %v (%s), want 22023", err, sqlstate(err))
	}
}

// A rollback undoes the SETs of its block (reporting the restored values),
// a commit keeps them, as in PostgreSQL.
func TestTransactionSettings(t *testing.T) {
	_, s := loaded(t)
	ctx := context.Background()
	zone := func() string { v, _ := s.Setting("TimeZone"); return v }
	for _, end := range []string{"ROLLBACK", "ABORT", "COMMIT of a failed block"} {
		mustRun(t, s, "BEGIN")
		mustRun(t, s, "SET TimeZone = 'America/New_York'")
		mustRun(t, s, "SET application_name = 'inside'")
		mustRun(t, s, "SET loam.custom = 'x'")
		s.TakeParameterChanges()
		if end == "COMMIT of a failed block" {
			runSQL(ctx, s, "SELECT 1/0")
			mustRun(t, s, "COMMIT")
		} else {
			mustRun(t, s, end)
		}
		if got := zone(); got != "UTC" {
			t.Errorf("%s: TimeZone %q, want UTC", end, got)
		}
		if r := mustRun(t, s, "SELECT '2026-11-29 10:15:00+00'::timestamptz::text"); r.rows[0][0] != "2026-11-29 10:15:00+00" {
			t.Errorf("%s: timestamptz shown as %q", end, r.rows[0][0])
		}
		if v, ok := s.Setting("loam.custom"); !ok || v != "" {
			t.Errorf("%s: a setting first made in the block is %q (%v), want empty (PostgreSQL's placeholder)", end, v, ok)
		}
		ch := s.TakeParameterChanges()
		if !slices.Contains(ch, [2]string{"TimeZone", "UTC"}) || !slices.Contains(ch, [2]string{"application_name", ""}) {
			t.Errorf("%s: reported changes %v, want TimeZone and application_name restored", end, ch)
		}
	}
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "SET TimeZone = 'Asia/Kolkata'")
	mustRun(t, s, "COMMIT")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "ROLLBACK")
	if got := zone(); got != "Asia/Kolkata" {
		t.Errorf("after COMMIT: TimeZone %q, want Asia/Kolkata", got)
	}
}

func TestErrors(t *testing.T) {
	_, s := loaded(t)
	cases := []struct {
		query string
		code  string
	}{
		{"SELEC 1", pgerr.SyntaxError},
		{"SELECT FROM WHERE", pgerr.SyntaxError},
		{"SELECT * FROM nope", pgerr.UndefinedTable},
		{"INSERT INTO nope VALUES (1)", pgerr.UndefinedTable},
		{"SELECT * FROM public.nope", pgerr.UndefinedTable},
		{"SELECT nope FROM llm_calls", pgerr.UndefinedColumn},
		{"SELECT tenant FROM llm_calls WHERE nope = 1", pgerr.UndefinedColumn},
		{"INSERT INTO llm_calls (nope) VALUES (1)", pgerr.UndefinedColumn},
		{"SELECT 1/0", pgerr.DivisionByZero},
		{"SELECT prompt_tokens / 0 FROM llm_calls", pgerr.DivisionByZero},
		{"SELECT 1 % 0", pgerr.DivisionByZero},
		{"SELECT 2147483647 + 1", pgerr.NumericValueOutOfRange},
		{"SELECT -2147483647 - 2", pgerr.NumericValueOutOfRange},
		{"SELECT 9223372036854775807::int8 * 2", pgerr.NumericValueOutOfRange},
		{"SELECT prompt_tokens * 2147483647 FROM llm_calls", pgerr.NumericValueOutOfRange},
		{"INSERT INTO llm_calls (prompt_tokens) VALUES (2147483648)", pgerr.NumericValueOutOfRange},
		{"SELECT 'not a time'::timestamptz", pgerr.InvalidDatetimeFormat},
		{"SELECT * FROM llm_calls WHERE ts > 'yesterday-ish'", pgerr.InvalidDatetimeFormat},
		{"INSERT INTO llm_calls (ts) VALUES ('2026-11-29 10:00:00 nowhere')", pgerr.InvalidDatetimeFormat},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) PARTITIONED BY (week(ts))", pgerr.SyntaxError},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) PARTITIONED BY (day(nope))", pgerr.UndefinedColumn},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) SORTED BY (nope)", pgerr.UndefinedColumn},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) WITH (retention = 'soon' ON ts)", pgerr.InvalidDatetimeFormat},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) WITH (retention = '30 days' ON nope)", pgerr.UndefinedColumn},
		{createLLMCalls, pgerr.DuplicateTable},
		{"DROP TABLE nope", pgerr.UndefinedTable},
		{"DROP SCHEMA nope", pgerr.UndefinedSchema},
		{"CREATE TABLE nope.t1 (a INT)", pgerr.UndefinedSchema},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			_, err := runSQL(context.Background(), s, tc.query)
			if err == nil {
				t.Fatalf("no error, want %s", tc.code)
			}
			if got := sqlstate(err); got != tc.code {
				t.Fatalf("SQLSTATE %s (%v), want %s", got, err, tc.code)
			}
			if s.TxStatus() != 'I' {
				t.Fatalf("TxStatus %c after an error outside a transaction", s.TxStatus())
			}
		})
	}
	// None of the failed CREATE TABLEs left a table behind.
	if _, err := runSQL(context.Background(), s, "SELECT * FROM t1"); sqlstate(err) != pgerr.UndefinedTable {
		t.Errorf("t1 exists after failed CREATEs: %v", err)
	}
	// And the data is untouched by the failed INSERTs.
	if r := mustRun(t, s, "SELECT count(*) FROM llm_calls"); r.rows[0][0] != strconv.Itoa(len(calls)) {
		t.Errorf("count %s after failed inserts, want %d", r.rows[0][0], len(calls))
	}
}

func TestErrorPositions(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	cases := []struct {
		query string
		code  string
		at    string // the text the position points at
	}{
		{"SELECT * FROM nope", pgerr.UndefinedTable, "nope"},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) PARTITIONED BY (week(ts))", pgerr.SyntaxError, "week"},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) PARTITIONED BY (day(nope))", pgerr.UndefinedColumn, "nope"},
		{"CREATE TABLE t1 (ts TIMESTAMPTZ) WITH (retention = 'soon' ON ts)", pgerr.InvalidDatetimeFormat, "'soon'"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			_, err := runSQL(context.Background(), s, tc.query)
			pe := pgerr.From(err)
			if pe.Code != tc.code {
				t.Fatalf("SQLSTATE %s (%v), want %s", pe.Code, err, tc.code)
			}
			want := strings.Index(tc.query, tc.at) + 1
			if pe.Position != want {
				t.Errorf("position %d, want %d (at %q)", pe.Position, want, tc.at)
			}
		})
	}
}

func TestDDL(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	steps := []struct {
		query string
		tag   string
		code  string
	}{
		{createLLMCalls, "CREATE TABLE", ""},
		{createLLMCalls, "", pgerr.DuplicateTable},
		{strings.Replace(createLLMCalls, "CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1), "CREATE TABLE", ""},
		{"DROP TABLE llm_calls", "DROP TABLE", ""},
		{"SELECT * FROM llm_calls", "", pgerr.UndefinedTable},
		{"DROP TABLE llm_calls", "", pgerr.UndefinedTable},
		{"DROP TABLE IF EXISTS llm_calls", "DROP TABLE", ""},
		{"CREATE TABLE IF NOT EXISTS llm_calls (a INT)", "CREATE TABLE", ""},
		{"INSERT INTO llm_calls VALUES (1), (NULL)", "INSERT 0 2", ""},
		{"CREATE SCHEMA analytics", "CREATE SCHEMA", ""},
		{"CREATE SCHEMA analytics", "", pgerr.DuplicateSchema},
		{"CREATE SCHEMA IF NOT EXISTS analytics", "CREATE SCHEMA", ""},
		{strings.Replace(createLLMCalls, "llm_calls", "analytics.llm_calls", 1), "CREATE TABLE", ""},
		{"INSERT INTO analytics.llm_calls (ts, tenant) VALUES ('2026-11-29 10:00:00+00', 'x')", "INSERT 0 1", ""},
		{"SELECT tenant FROM analytics.llm_calls", "SELECT 1", ""},
		// The unqualified name still finds public's table.
		{"SELECT a FROM llm_calls", "SELECT 2", ""},
		{"DROP SCHEMA analytics", "", pgerr.DependentObjectsStillExist},
		{"DROP SCHEMA analytics CASCADE", "DROP SCHEMA", ""},
		{"SELECT * FROM analytics.llm_calls", "", pgerr.UndefinedTable},
		{"DROP SCHEMA analytics", "", pgerr.UndefinedSchema},
		{"DROP SCHEMA IF EXISTS analytics", "DROP SCHEMA", ""},
		{"CREATE SCHEMA empty_one", "CREATE SCHEMA", ""},
		{"DROP SCHEMA empty_one", "DROP SCHEMA", ""},
		{"DROP TABLE IF EXISTS nope, llm_calls", "DROP TABLE", ""},
		{"SELECT * FROM llm_calls", "", pgerr.UndefinedTable},
	}
	for i, st := range steps {
		rs, err := runSQL(context.Background(), s, st.query)
		if st.code != "" {
			if got := sqlstate(err); got != st.code {
				t.Fatalf("step %d %q: SQLSTATE %s (%v), want %s", i, st.query, got, err, st.code)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d %q: %v", i, st.query, err)
		}
		if tag := rs[len(rs)-1].tag; tag != st.tag {
			t.Fatalf("step %d %q: tag %q, want %q", i, st.query, tag, st.tag)
		}
	}
}

func TestTransactions(t *testing.T) {
	_, s := loaded(t)
	ctx := context.Background()
	expectTag := func(q, tag string, status byte) {
		t.Helper()
		r := mustRun(t, s, q)
		if r.tag != tag {
			t.Errorf("%s: tag %q, want %q", q, r.tag, tag)
		}
		if s.TxStatus() != status {
			t.Errorf("%s: TxStatus %c, want %c", q, s.TxStatus(), status)
		}
	}
	if s.TxStatus() != 'I' {
		t.Fatalf("initial TxStatus %c", s.TxStatus())
	}
	expectTag("BEGIN", "BEGIN", 'T')
	expectTag("SELECT 1", "SELECT 1", 'T')
	expectTag("COMMIT", "COMMIT", 'I')
	expectTag("BEGIN", "BEGIN", 'T')
	expectTag("ROLLBACK", "ROLLBACK", 'I')
	expectTag("START TRANSACTION", "BEGIN", 'T')
	expectTag("COMMIT", "COMMIT", 'I')

	// An error inside a block fails it; everything but ROLLBACK/COMMIT is
	// refused with 25P02 until the block ends.
	for _, failing := range []string{"SELECT 1/0", "SELECT * FROM nope", "SELEC 1", "SELECT prompt_tokens / 0 FROM llm_calls"} {
		t.Run(failing, func(t *testing.T) {
			expectTag("BEGIN", "BEGIN", 'T')
			if _, err := runSQL(ctx, s, failing); err == nil {
				t.Fatalf("%s did not fail", failing)
			}
			if s.TxStatus() != 'E' {
				t.Fatalf("TxStatus %c after error in block, want E", s.TxStatus())
			}
			for _, q := range []string{"SELECT 1", "SELECT count(*) FROM llm_calls", "INSERT INTO llm_calls (tenant) VALUES ('x')"} {
				_, err := runSQL(ctx, s, q)
				if got := sqlstate(err); got != pgerr.InFailedTransaction {
					t.Errorf("%s in failed block: %s (%v), want 25P02", q, got, err)
				}
				if s.TxStatus() != 'E' {
					t.Errorf("TxStatus %c, want E", s.TxStatus())
				}
			}
			// The extended protocol's Parse is refused too, before its
			// parameters are counted (node-postgres then Binds one).
			if _, err := s.Prepare(ctx, "SELECT $1::int4", nil); sqlstate(err) != pgerr.InFailedTransaction {
				t.Errorf("Prepare in failed block: %s (%v), want 25P02", sqlstate(err), err)
			}
			expectTag("ROLLBACK", "ROLLBACK", 'I')
			expectTag("SELECT 1", "SELECT 1", 'I')
		})
	}
	// COMMIT of a failed block reports ROLLBACK, as PostgreSQL does.
	expectTag("BEGIN", "BEGIN", 'T')
	runSQL(ctx, s, "SELECT 1/0")
	expectTag("COMMIT", "ROLLBACK", 'I')
	// The refused INSERTs wrote nothing.
	if r := mustRun(t, s, "SELECT count(*) FROM llm_calls WHERE tenant = 'x'"); r.rows[0][0] != "0" {
		t.Errorf("refused inserts wrote %s rows", r.rows[0][0])
	}
	// A nested BEGIN, and COMMIT or ROLLBACK outside a block, warn as in
	// PostgreSQL and carry on.
	for _, w := range []struct{ pre, q, code, msg string }{
		{"BEGIN", "BEGIN", pgerr.ActiveSQLTransaction, "there is already a transaction in progress"},
		{"COMMIT", "COMMIT", pgerr.NoActiveSQLTransaction, "there is no transaction in progress"},
		{"COMMIT", "ROLLBACK", pgerr.NoActiveSQLTransaction, "there is no transaction in progress"},
	} {
		mustRun(t, s, w.pre)
		s.TakeNotices()
		mustRun(t, s, w.q)
		n := s.TakeNotices()
		if len(n) != 1 || n[0].Severity != "WARNING" || n[0].Code != w.code || n[0].Message != w.msg {
			t.Errorf("%s then %s: notices %+v, want WARNING %s %q", w.pre, w.q, n, w.code, w.msg)
		}
	}
	mustRun(t, s, "COMMIT")
	// An error outside a block leaves the session idle.
	runSQL(ctx, s, "SELECT 1/0")
	if s.TxStatus() != 'I' {
		t.Errorf("TxStatus %c after error outside a block", s.TxStatus())
	}
}

// A simple-protocol string has no parameters: $n fails with 42P02 at the
// $n, also in a multi-statement string, whose statements plan as they run.
func TestSimpleNoParameters(t *testing.T) {
	_, s := loaded(t)
	ctx := context.Background()
	_, err := s.PrepareSimple(ctx, "SELECT $1")
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.UndefinedParameter || pe.Message != "there is no parameter $1" || pe.Position != 8 {
		t.Errorf("SELECT $1: %#v", err)
	}
	stmts, err := s.PrepareSimple(ctx, "SELECT 1; SELECT tenant FROM llm_calls WHERE latency_ms > $2")
	if err != nil || len(stmts) != 2 {
		t.Fatalf("%d statements, %v", len(stmts), err)
	}
	if _, err := execStmt(ctx, s, stmts[1], nil); sqlstate(err) != pgerr.UndefinedParameter {
		t.Errorf("$2 in the second statement: %v", err)
	}
}

func TestParameters(t *testing.T) {
	_, s := loaded(t)
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, "SELECT tenant FROM llm_calls WHERE latency_ms > $1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 1 {
		t.Fatalf("%d statements", len(stmts))
	}
	st := stmts[0]
	if len(st.ParamTypes) != 1 || st.ParamTypes[0].OID() != types.OIDInt4 {
		t.Fatalf("ParamTypes %v, want [int4]", st.ParamTypes)
	}
	if len(st.Columns) != 1 || st.Columns[0].Name != "tenant" || st.Columns[0].Type.OID() != types.OIDText {
		t.Fatalf("Columns %+v", st.Columns)
	}
	for _, limit := range []int64{200, 100, 0, 1000} {
		r, err := execStmt(ctx, s, st, []types.Datum{types.Int(types.TInt4, limit)})
		if err != nil {
			t.Fatal(err)
		}
		want := pick(intCmp(cLatency, func(f float64) bool { return f > float64(limit) }), cTenant)
		sortRows(r.rows)
		sortRows(want)
		if !reflect.DeepEqual(nonNil(r.rows), want) {
			t.Errorf("$1 = %d: got\n%swant\n%s", limit, show(r.rows), show(want))
		}
	}
	// A NULL parameter matches nothing.
	r, err := execStmt(ctx, s, st, []types.Datum{types.NullOf(types.TInt4)})
	if err != nil || len(r.rows) != 0 {
		t.Errorf("NULL parameter: %v %v", r.rows, err)
	}
	// Too few parameters is a protocol violation.
	if _, err := s.Execute(ctx, st, nil); sqlstate(err) != pgerr.ProtocolViolation {
		t.Errorf("no parameters: %v", err)
	}

	// Types the client names win; text parameters compare with text.
	stmts, err = s.Prepare(ctx, "SELECT count(*) FROM llm_calls WHERE tenant = $1 AND ts >= $2", []uint32{0, types.OIDTimestampTZ})
	if err != nil {
		t.Fatal(err)
	}
	st = stmts[0]
	if st.ParamTypes[0].OID() != types.OIDText || st.ParamTypes[1].OID() != types.OIDTimestampTZ {
		t.Fatalf("ParamTypes %v", st.ParamTypes)
	}
	day3, err := types.ParseTimestamp("2026-11-29 00:00:00+00", true, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	r, err = execStmt(ctx, s, st, []types.Datum{types.TextDatum("globex"), {T: types.TTimestampTZ, I: day3}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(pick(func(r [7]string) bool {
		return r[cTenant] == "globex" && strings.HasPrefix(r[cTS], "2026-11-29")
	}, cTS))
	if r.rows[0][0] != strconv.Itoa(n) {
		t.Errorf("count %s, want %d", r.rows[0][0], n)
	}

	// INSERT with parameters.
	stmts, err = s.Prepare(ctx, "INSERT INTO llm_calls (ts, tenant, prompt_tokens) VALUES ($1, $2, $3)", nil)
	if err != nil {
		t.Fatal(err)
	}
	st = stmts[0]
	wantOIDs := []uint32{types.OIDTimestampTZ, types.OIDText, types.OIDInt4}
	for i, pt := range st.ParamTypes {
		if pt.OID() != wantOIDs[i] {
			t.Errorf("insert $%d type %v, want oid %d", i+1, pt, wantOIDs[i])
		}
	}
	r, err = execStmt(ctx, s, st, []types.Datum{{T: types.TTimestampTZ, I: day3 + 1234}, types.TextDatum("param"), types.Int(types.TInt4, 7)})
	if err != nil {
		t.Fatal(err)
	}
	if r.tag != "INSERT 0 1" {
		t.Errorf("tag %q", r.tag)
	}
	// 1234 µs rounds to 1 ms at TIMESTAMP(3).
	got := mustRun(t, s, "SELECT ts, prompt_tokens FROM llm_calls WHERE tenant = 'param'")
	if want := [][]string{{"2026-11-29 00:00:00.001+00", "7"}}; !reflect.DeepEqual(got.rows, want) {
		t.Errorf("got %q, want %q", got.rows, want)
	}
}

func sortRows(rows [][]string) {
	sort.Slice(rows, func(i, j int) bool { return strings.Join(rows[i], "\x01") < strings.Join(rows[j], "\x01") })
}

func nonNil(rows [][]string) [][]string {
	if rows == nil {
		return [][]string{}
	}
	return rows
}

// TestMultiStatement runs several statements in one query string, as the
// simple protocol sends them: every statement is prepared before the first
// runs.
func TestMultiStatement(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	rs, err := runSQL(context.Background(), s, "SELECT 1; SELECT 2, 3;")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].rows[0][0] != "1" || rs[1].rows[0][1] != "3" {
		t.Fatalf("got %+v", rs)
	}
	// PostgreSQL runs "CREATE TABLE t; INSERT INTO t …" sent as one
	// simple query: each statement is analysed just before it runs.
	rs, err = runSQL(context.Background(), s, "CREATE TABLE m1 (a INT); INSERT INTO m1 VALUES (1); SELECT a FROM m1")
	if err != nil {
		t.Fatalf("CREATE TABLE then INSERT in one simple query fails: %v (SQLSTATE %s)", err, sqlstate(err))
	}
	if got := rs[len(rs)-1].rows; len(got) != 1 || got[0][0] != "1" {
		t.Errorf("got %v", got)
	}
}

// TestErrorPositionAfterMultibyte checks positions in a statement that
// follows one with multi-byte characters: PostgreSQL counts characters of
// the whole query string.
func TestErrorPositionAfterMultibyte(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	q := "SELECT 'ééé';   CREATE TABLE nope.t1 (a INT)"
	_, err := runSQL(context.Background(), s, q)
	pe := pgerr.From(err)
	if pe.Code != pgerr.UndefinedSchema {
		t.Fatalf("SQLSTATE %s (%v), want 3F000", pe.Code, err)
	}
	want := len([]rune(q[:strings.Index(q, "nope")])) + 1
	if pe.Position != want {
		t.Fatalf("position %d, want %d: engine.fullQueryOf pads the trimmed statement text with Offset bytes, "+
			"so CharPos counts bytes of earlier statements and the text is shifted by the leading whitespace", pe.Position, want)
	}
}

// CASE evaluates a THEN only for the rows that reach it.
func TestCaseIsLazy(t *testing.T) {
	_, s := openSession(t)
	mustRun(t, s, "CREATE TABLE z (x INT)")
	mustRun(t, s, "INSERT INTO z VALUES (0), (2), (NULL), (4)")
	got := mustRun(t, s, "SELECT CASE WHEN x = 0 THEN -1 WHEN x IS NULL THEN -2 ELSE 8 / x END FROM z ORDER BY x NULLS FIRST").rows
	want := [][]string{{"-2"}, {"-1"}, {"4"}, {"2"}}
	if show(got) != show(want) {
		t.Fatalf("got\n%s\nwant\n%s", show(got), show(want))
	}
}

// Subqueries: scalar, EXISTS and IN, uncorrelated and correlated, with
// results worked out by hand from the four rows.
func TestSubqueries(t *testing.T) {
	_, s := openSession(t)
	mustRun(t, s, "CREATE TABLE t1(a INTEGER, b INTEGER, c INTEGER)")
	mustRun(t, s, "INSERT INTO t1 VALUES (104,100,102),(105,108,106),(113,112,114),(118,117,119)")
	cases := []struct {
		sql  string
		want [][]string
	}{
		// avg(c) = 110.25
		{"SELECT CASE WHEN c > (SELECT avg(c) FROM t1) THEN a*2 ELSE b*10 END FROM t1 ORDER BY 1",
			[][]string{{"226"}, {"236"}, {"1000"}, {"1080"}}},
		{"SELECT a, (SELECT count(*) FROM t1 AS x WHERE x.b < t1.b) FROM t1 ORDER BY 1",
			[][]string{{"104", "0"}, {"105", "1"}, {"113", "2"}, {"118", "3"}}},
		{"SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t1 AS x WHERE x.b < t1.b) ORDER BY 1",
			[][]string{{"105"}, {"113"}, {"118"}}},
		{"SELECT a FROM t1 WHERE a NOT IN (SELECT c + 2 FROM t1) ORDER BY 1",
			[][]string{{"105"}, {"113"}, {"118"}}},
		// Nested: the innermost refers to the outermost row.
		{"SELECT a FROM t1 WHERE (SELECT count(*) FROM t1 AS x WHERE x.a < (SELECT max(y.a) FROM t1 AS y WHERE y.a <= t1.a)) >= 2 ORDER BY 1",
			[][]string{{"113"}, {"118"}}},
	}
	for _, c := range cases {
		got := mustRun(t, s, c.sql).rows
		if show(got) != show(c.want) {
			t.Errorf("%s\ngot\n%s\nwant\n%s", c.sql, show(got), show(c.want))
		}
	}
	if _, err := runSQL(context.Background(), s, "SELECT (SELECT a FROM t1)"); sqlstate(err) != pgerr.CardinalityViolation {
		t.Fatalf("scalar subquery of 4 rows: %v, want 21000", err)
	}
	if r := mustRun(t, s, "SELECT (SELECT count(*) FROM t1)"); r.cols[0].Name != "count" {
		t.Fatalf("scalar subquery column named %q, want count", r.cols[0].Name)
	}
}

// Joins and set operations, results worked out by hand.
func TestJoinsAndSetOperations(t *testing.T) {
	_, s := openSession(t)
	mustRun(t, s, "CREATE TABLE j1 (a INT, b INT)")
	mustRun(t, s, "INSERT INTO j1 VALUES (1, 10), (2, 20), (3, 30), (4, NULL)")
	mustRun(t, s, "CREATE TABLE j2 (a INT, x TEXT)")
	mustRun(t, s, "INSERT INTO j2 VALUES (1, 'one'), (3, 'three'), (9, 'nine')")
	cases := []struct {
		sql  string
		want [][]string
	}{
		{"SELECT j1.a, x FROM j1, j2 WHERE j1.a = j2.a ORDER BY 1", [][]string{{"1", "one"}, {"3", "three"}}},
		{"SELECT j1.a, x FROM j1 JOIN j2 ON j1.a = j2.a AND x <> 'one'", [][]string{{"3", "three"}}},
		{"SELECT j1.a, x FROM j1 LEFT JOIN j2 ON j1.a = j2.a ORDER BY 1",
			[][]string{{"1", "one"}, {"2", null}, {"3", "three"}, {"4", null}}},
		{"SELECT j2.a, b FROM j1 RIGHT JOIN j2 ON j1.a = j2.a ORDER BY 1",
			[][]string{{"1", "10"}, {"3", "30"}, {"9", null}}},
		{"SELECT j1.a, j2.a FROM j1 FULL JOIN j2 ON j1.a = j2.a ORDER BY 1 NULLS FIRST, 2",
			[][]string{{null, "9"}, {"1", "1"}, {"2", null}, {"3", "3"}, {"4", null}}},
		{"SELECT count(*) FROM j1 AS p, j1 AS q, j1 AS r WHERE p.a < q.a AND q.a < r.a", [][]string{{"4"}}},
		{"SELECT n FROM (SELECT a * 2 AS n FROM j1 WHERE b IS NOT NULL) AS d ORDER BY n DESC", [][]string{{"6"}, {"4"}, {"2"}}},
		{"SELECT a FROM j1 UNION SELECT a FROM j2 ORDER BY 1", [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"9"}}},
		{"SELECT a FROM j1 UNION ALL SELECT a FROM j2 ORDER BY 1", [][]string{{"1"}, {"1"}, {"2"}, {"3"}, {"3"}, {"4"}, {"9"}}},
		{"SELECT a FROM j1 INTERSECT SELECT a FROM j2 ORDER BY 1", [][]string{{"1"}, {"3"}}},
		{"SELECT a FROM j1 EXCEPT SELECT a FROM j2 ORDER BY 1", [][]string{{"2"}, {"4"}}},
		{"SELECT x FROM (VALUES (1), (1), (2)) AS v(x) EXCEPT ALL SELECT 1", [][]string{{"1"}, {"2"}}},
		{"SELECT x FROM (VALUES (1), (1), (2)) AS v(x) INTERSECT ALL SELECT x FROM (VALUES (1), (1), (1)) AS w(x)", [][]string{{"1"}, {"1"}}},
	}
	for _, c := range cases {
		got := mustRun(t, s, c.sql).rows
		g, w := show(got), show(c.want)
		if strings.Contains(c.sql, "EXCEPT ALL") || strings.Contains(c.sql, "INTERSECT ALL") {
			g, w = show(sortedRows(got)), show(sortedRows(c.want))
		}
		if g != w {
			t.Errorf("%s\ngot\n%s\nwant\n%s", c.sql, g, w)
		}
	}
}

func sortedRows(rows [][]string) [][]string {
	out := append([][]string(nil), rows...)
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "|") < strings.Join(out[j], "|") })
	return out
}

func TestNullif(t *testing.T) {
	_, s := openSession(t)
	r := mustRun(t, s, "SELECT NULLIF(1, 1), NULLIF(2, 1), NULLIF('a', 'b')")
	if show(r.rows) != show([][]string{{null, "2", "a"}}) || r.cols[0].Name != "nullif" {
		t.Fatalf("got %s (column %q)", show(r.rows), r.cols[0].Name)
	}
}

// TestPreparedResultTypeChange: a prepared SELECT whose table was dropped
// and created again with other columns is refused (0A000, as PostgreSQL's
// "cached plan must not change result type"), since the client decodes rows
// by the description it got at Prepare; one that keeps its shape runs.
func TestPreparedResultTypeChange(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, openEngine(t))
	mustRun(t, s, "CREATE TABLE rt (a int4, b text)")
	mustRun(t, s, "INSERT INTO rt VALUES (1, 'one')")
	sts, err := s.Prepare(ctx, "SELECT * FROM rt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := execStmt(ctx, s, sts[0], nil); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "DROP TABLE rt")
	mustRun(t, s, "CREATE TABLE rt (a int4, b text)")
	mustRun(t, s, "INSERT INTO rt VALUES (2, 'two')")
	if r, err := execStmt(ctx, s, sts[0], nil); err != nil || len(r.rows) != 1 || r.rows[0][0] != "2" {
		t.Fatalf("same shape: %v, %v", r, err)
	}
	mustRun(t, s, "DROP TABLE rt")
	mustRun(t, s, "CREATE TABLE rt (a int8, b text)")
	if _, err := execStmt(ctx, s, sts[0], nil); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Fatalf("int4 column now int8: %v, want 0A000", err)
	}
	mustRun(t, s, "DROP TABLE rt")
	mustRun(t, s, "CREATE TABLE rt (a int4, c text)")
	if _, err := execStmt(ctx, s, sts[0], nil); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Fatalf("column renamed: %v, want 0A000", err)
	}
}
