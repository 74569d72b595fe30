package engine_test

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

func TestAggregateErrors(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (x INT, s TEXT, b BOOLEAN)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'a', true), (2, 'b', false)")
	cases := []struct {
		query string
		code  string
	}{
		{"SELECT sum(count(*)) FROM t", pgerr.GroupingError},
		{"SELECT count(DISTINCT max(x)) FROM t", pgerr.GroupingError},
		{"SELECT count(*) FILTER (WHERE count(*) > 1) FROM t", pgerr.GroupingError},
		{"SELECT count(DISTINCT *) FROM t", pgerr.SyntaxError},
		{"SELECT stddev(s) FROM t", pgerr.UndefinedFunction},
		{"SELECT bool_and(x) FROM t", pgerr.UndefinedFunction},
		{"SELECT string_agg(x, ',') FROM t", pgerr.UndefinedFunction},
		{"SELECT string_agg(s) FROM t", pgerr.UndefinedFunction},
		{"SELECT percentile_cont(0.5) FROM t", pgerr.UndefinedFunction},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FROM t", pgerr.UndefinedFunction},
		{"SELECT sum(x) WITHIN GROUP (ORDER BY x) FROM t", pgerr.UndefinedFunction},
		{"SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM t", pgerr.NumericValueOutOfRange},
		{"SELECT percentile_disc(-1) WITHIN GROUP (ORDER BY x) FROM t", pgerr.NumericValueOutOfRange},
		{"SELECT approx_percentile(x, 2) FROM t", pgerr.NumericValueOutOfRange},
		{"SELECT string_agg(DISTINCT s, ',' ORDER BY x) FROM t", pgerr.InvalidColumnReference},
		{"SELECT count(*) FILTER (WHERE x) FROM t", pgerr.DatatypeMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			_, err := runSQL(context.Background(), s, tc.query)
			if got := sqlstate(err); got != tc.code {
				t.Fatalf("SQLSTATE %s (%v), want %s", got, err, tc.code)
			}
		})
	}
}

func TestAggregateResultTypes(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (i INT, l BIGINT, f DOUBLE PRECISION, s TEXT, b BOOLEAN, ts TIMESTAMPTZ)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 2, 0.5, 'a b', true, '2024-01-01 00:00:00+00')")
	r := mustRun(t, s, `SELECT array_agg(i), array_agg(l), array_agg(f), array_agg(s), array_agg(b), array_agg(ts),
		stddev(i), variance(f), percentile_disc(0.5) WITHIN GROUP (ORDER BY ts), count(DISTINCT s),
		approx_count_distinct(s), approx_quantile(i, 0.5) FROM t`)
	oids := []uint32{1007, 1016, 1022, 1009, 1000, 1185, 1700, 701, 1184, 20, 20, 701}
	names := []string{"array_agg", "array_agg", "array_agg", "array_agg", "array_agg", "array_agg",
		"stddev", "variance", "percentile_disc", "count", "approx_count_distinct", "approx_quantile"}
	want := []string{"{1}", "{2}", "{0.5}", `{"a b"}`, "{t}", `{"2024-01-01 00:00:00+00"}`, null, null,
		"2024-01-01 00:00:00+00", "1", "1", "1"}
	for i, c := range r.cols {
		if c.Type.OID() != oids[i] || c.Name != names[i] || r.rows[0][i] != want[i] {
			t.Errorf("column %d: %s oid %d value %q, want %s oid %d value %q", i, c.Name, c.Type.OID(), r.rows[0][i], names[i], oids[i], want[i])
		}
	}
}

// approx_* are not PostgreSQL's: check their error against exact answers
// on 10^5 rows built by a cross join.
func TestApproxAggregates(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE d (v INT)")
	mustRun(t, s, "INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	r := mustRun(t, s, `SELECT approx_count_distinct(x), count(DISTINCT x), approx_percentile(x, 0.95), approx_quantile(x, 0.5),
		percentile_cont(0.95) WITHIN GROUP (ORDER BY x), approx_count_distinct(x % 1000)
		FROM (SELECT a.v*10000 + b.v*1000 + c.v*100 + e.v*10 + f.v AS x FROM d a, d b, d c, d e, d f) t`)
	row := r.rows[0]
	num := func(i int) float64 {
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			t.Fatalf("column %d: %q", i, row[i])
		}
		return v
	}
	check := func(what string, got, want float64) {
		if math.Abs(got-want) > 0.02*want {
			t.Errorf("%s = %v, want %v within 2%%", what, got, want)
		}
	}
	if row[1] != "100000" || math.Abs(num(4)-94999.05) > 1e-6 {
		t.Fatalf("exact answers: %v", row)
	}
	check("approx_count_distinct", num(0), 100000)
	check("approx_percentile(0.95)", num(2), 94999.05)
	check("approx_quantile(0.5)", num(3), 49999.5)
	check("approx_count_distinct(x % 1000)", num(5), 1000)
}

// A percentile's fraction may be a parameter: it is typed float8 at
// prepare time and read at execution.
func TestPercentileParameter(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (x INT)")
	mustRun(t, s, "INSERT INTO t VALUES (1), (2), (3), (4)")
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, "SELECT percentile_cont($1) WITHIN GROUP (ORDER BY x), percentile_disc($1) WITHIN GROUP (ORDER BY x) FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := stmts[0].ParamTypes; len(got) != 1 || got[0] != types.TFloat8 {
		t.Fatalf("param types %v", got)
	}
	r, err := execStmt(ctx, s, stmts[0], []types.Datum{types.Float8Datum(0.5)})
	if err != nil {
		t.Fatal(err)
	}
	if r.rows[0][0] != "2.5" || r.rows[0][1] != "2" {
		t.Fatalf("got %v", r.rows)
	}
}
