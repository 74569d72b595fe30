package pgcatalog

import "testing"

func TestQualifyNextval(t *testing.T) {
	for _, c := range []struct{ def, ns, want string }{
		{`nextval('t_id_seq'::regclass)`, "public", `nextval('public.t_id_seq'::regclass)`},
		{`nextval('app.s'::regclass)`, "public", `nextval('app.s'::regclass)`},
		{`nextval('"Odd"'::regclass)`, "My Schema", `nextval('"My Schema"."Odd"'::regclass)`},
		{`now()`, "public", `now()`},
	} {
		if got := qualifyNextval(c.def, c.ns); got != c.want {
			t.Errorf("qualifyNextval(%q, %q) = %q, want %q", c.def, c.ns, got, c.want)
		}
	}
}

func TestQualifyViewSQL(t *testing.T) {
	have := map[string]bool{"public.events": true, "app.calls": true, "app.events": true}
	for _, c := range []struct{ def, ns, want string }{
		{`SELECT tenant FROM events`, "public", `SELECT tenant FROM public.events`},
		// The view's own schema first, then public.
		{`SELECT * FROM events JOIN calls USING (id)`, "app", `SELECT * FROM app.events JOIN app.calls USING (id)`},
		// A CTE's name is not a table's; an unknown name stays as written.
		{`WITH events AS (SELECT 1) SELECT * FROM events, nosuch`, "public", `WITH events AS (SELECT 1) SELECT * FROM events, nosuch`},
	} {
		got, err := qualifyViewSQL(c.def, c.ns, have)
		if err != nil || got != c.want {
			t.Errorf("qualifyViewSQL(%q, %q) = %q, %v; want %q", c.def, c.ns, got, err, c.want)
		}
	}
}
