package engine

import "testing"

func TestViewText(t *testing.T) {
	for _, c := range []struct{ stmt, want string }{
		{`CREATE VIEW v AS SELECT 1`, `SELECT 1`},
		{`create or replace view v (a, b) as select x as a, y from t;`, `select x as a, y from t`},
		{`CREATE VIEW "as" AS WITH w AS (SELECT 1 AS x) SELECT x FROM w`, `WITH w AS (SELECT 1 AS x) SELECT x FROM w`},
		{"CREATE VIEW s.v AS\n  VALUES (1), (2) ;", `VALUES (1), (2)`},
	} {
		got, err := viewText(c.stmt)
		if err != nil || got != c.want {
			t.Errorf("viewText(%q) = %q, %v; want %q", c.stmt, got, err, c.want)
		}
	}
}
