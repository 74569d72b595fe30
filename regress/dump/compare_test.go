package dump

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

// plainSchema has nothing PostgreSQL lacks: its pg_dump -s must read the
// same from Loam's catalogs as from PostgreSQL's.
var plainSchema = []string{
	`CREATE SCHEMA app`,
	`CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', price numeric(10,2), created timestamptz DEFAULT now(), UNIQUE (name))`,
	`COMMENT ON TABLE items IS 'the items'`,
	`COMMENT ON COLUMN items.name IS 'its name'`,
	`CREATE TABLE app.log (n bigint GENERATED ALWAYS AS IDENTITY, msg varchar(20), at date)`,
	`CREATE SEQUENCE app.s START 10`,
	`CREATE VIEW item_names AS SELECT items.name FROM items`,
	`GRANT SELECT ON items TO reader`,
	`INSERT INTO items (name, price) VALUES ('a', 1.5), ('b', NULL)`,
}

// normalDump is a dump without what differs by server, not by schema:
// the version line, \restrict keys, and layout (PostgreSQL deparses a
// view over several lines; Loam keeps its text on one).
func normalDump(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "-- Dumped from database version") || strings.HasPrefix(l, `\restrict`) || strings.HasPrefix(l, `\unrestrict`) {
			continue
		}
		keep = append(keep, l)
	}
	return regexp.MustCompile(`\s+`).ReplaceAllString(strings.Join(keep, "\n"), " ")
}

func TestSchemaDumpMatchesPostgres(t *testing.T) {
	lo := loamURL(loamtest.Start(t, loamtest.Binary(t)))
	execAll(t, lo, append([]string{`CREATE ROLE reader`}, plainSchema...))
	pgURL := pgtest.Database(t)
	db := pgURL[strings.LastIndex(pgURL, "/")+1:]
	if i := strings.Index(db, "?"); i >= 0 {
		db = db[:i]
	}
	// The same objects owned by a role named loam, as on Loam.
	execAll(t, pgURL, append([]string{
		`DO $$ BEGIN CREATE ROLE loam; EXCEPTION WHEN duplicate_object THEN END $$`,
		`DO $$ BEGIN CREATE ROLE reader; EXCEPTION WHEN duplicate_object THEN END $$`,
		`GRANT CREATE ON DATABASE "` + db + `" TO loam`, `GRANT CREATE ON SCHEMA public TO loam`, `SET ROLE loam`,
	}, append(plainSchema, `RESET ROLE`, `REVOKE CREATE ON SCHEMA public FROM loam`)...))
	pgDump := pgBin(t, "pg_dump")
	want, got := normalDump(run(t, pgDump, "-s", pgURL)), normalDump(run(t, pgDump, "-s", lo))
	if want != got {
		t.Errorf("pg_dump -s differs\n--- PostgreSQL\n%s\n--- Loam\n%s", want, got)
	}
}
