package plan

import (
	"context"
	"testing"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/sql/parse"
)

// TestCorrelatedPlannedOnce: a correlated subquery or LATERAL item over
// N outer rows is planned once, its outer references read from the
// context per row (it was planned again for each of the N rows); nested
// correlation two levels deep too. A clause that needs an outer value
// while planning (a percentile's fraction) falls back to planning per row.
func TestCorrelatedPlannedOnce(t *testing.T) {
	const outer = "(VALUES (1), (2), (3), (4), (5)) t(x)"
	for _, c := range []struct {
		name, query, want string
		plannings         int64
	}{
		{"scalar", "SELECT x, (SELECT count(*) FROM generate_series(1, 10) g WHERE g <= t.x) FROM " + outer,
			"1 1 2 2 3 3 4 4 5 5", 1},
		{"exists", "SELECT x FROM " + outer + " WHERE EXISTS (SELECT 1 FROM (VALUES (2), (4)) u(y) WHERE u.y = t.x)",
			"2 4", 1},
		{"in", "SELECT x FROM " + outer + " WHERE x IN (SELECT y FROM (VALUES (2), (3)) u(y) WHERE y < t.x + 1)",
			"2 3", 1},
		{"array", "SELECT ARRAY(SELECT g FROM generate_series(1, 10) g WHERE g < t.x ORDER BY g) FROM " + outer + " WHERE x < 4",
			"{} {1} {1,2}", 1},
		{"nested", "SELECT (SELECT (SELECT t.x * 10 + u.y) FROM (VALUES (1)) u(y)) FROM " + outer,
			"11 21 31 41 51", 2},
		{"lateral", "SELECT x, s FROM " + outer + ", LATERAL (SELECT sum(g) AS s FROM generate_series(1, 10) g WHERE g <= t.x) l",
			"1 1 2 3 3 6 4 10 5 15", 1},
		{"lateral function", "SELECT x, g FROM " + outer + ", generate_series(t.x, 2) g",
			"1 1 1 2 2 2", 1},
		{"limit", "SELECT (SELECT count(*) FROM (SELECT g FROM generate_series(1, 10) g LIMIT t.x) s) FROM " + outer,
			"1 2 3 4 5", 1},
		{"lateral limit", "SELECT x, g FROM " + outer + ", LATERAL (SELECT g FROM generate_series(1, 10) g OFFSET 8 - t.x LIMIT t.x - 2) l WHERE x > 3",
			"4 5 4 6 5 4 5 5 5 6", 1},
		{"fallback", "SELECT (SELECT percentile_disc(t.x / 5.0) WITHIN GROUP (ORDER BY g) FROM generate_series(1, 10) g) FROM " + outer,
			"2 4 6 8 10", 1 + 5},
		// The LATERAL item reads no item left of it, so it is the
		// subquery's planning that needed t.x: the subquery falls back.
		{"fallback through lateral", "SELECT (SELECT p FROM (VALUES (1)) u(k), LATERAL (SELECT percentile_disc(t.x / 5.0) WITHIN GROUP (ORDER BY g) AS p FROM generate_series(1, 10) g) l) FROM " + outer,
			"2 4 6 8 10", 2 + 5*2},
	} {
		t.Run(c.name, func(t *testing.T) {
			stmts, err := parse.Parse(c.query)
			if err != nil {
				t.Fatal(err)
			}
			before := planned.Load()
			p := New(context.Background(), noTables{}, &expr.Ctx{Loc: time.UTC, Now: time.Now()}, c.query, nil, nil)
			q, err := p.Select(stmts[0].Node.GetSelectStmt())
			if err != nil {
				t.Fatal(err)
			}
			if got := runText(t, q); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if n := planned.Load() - before; n != c.plannings {
				t.Errorf("%d plannings of the inner side over 5 outer rows, want %d", n, c.plannings)
			}
		})
	}
}

// BenchmarkCorrelatedCrossJoin is the shape regress/difffuzz/KNOWN.md
// recorded as past 30 s (105 ms on PostgreSQL): a correlated
// (SELECT bool_or(…) FROM t0 WHERE t0.a = d4.c3) over a cross join of
// 330,000 rows. Planned per outer row it took minutes; planned once, with
// its rows kept by the outer value it reads, it runs 7 times.
func BenchmarkCorrelatedCrossJoin(b *testing.B) {
	const query = `SELECT count(*) FROM (SELECT x % 7 AS c3 FROM generate_series(1, 600) x, generate_series(1, 550) y) d4
		WHERE (SELECT bool_or(t0.b) FROM (VALUES (1, true), (2, false), (3, NULL), (4, true), (5, false)) t0(a, b) WHERE t0.a = d4.c3)`
	stmts, err := parse.Parse(query)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		p := New(context.Background(), noTables{}, &expr.Ctx{Loc: time.UTC, Now: time.Now()}, query, nil, nil)
		q, err := p.Select(stmts[0].Node.GetSelectStmt())
		if err != nil {
			b.Fatal(err)
		}
		if got := runText(b, q); got != "94600" {
			b.Fatalf("got %s", got)
		}
	}
}
