package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

func copyIn(t *testing.T, s *engine.Session, stmt string, data io.Reader) (string, error) {
	t.Helper()
	sts, err := s.Prepare(context.Background(), stmt, nil)
	if err != nil {
		return "", err
	}
	if sts[0].Copy == nil || !sts[0].Copy.In {
		t.Fatalf("%s: Statement.Copy = %+v, want a COPY FROM", stmt, sts[0].Copy)
	}
	return s.CopyIn(context.Background(), sts[0], data)
}

func copyOut(t *testing.T, s *engine.Session, stmt string) string {
	t.Helper()
	sts, err := s.Prepare(context.Background(), stmt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := s.CopyOut(context.Background(), sts[0], &buf); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return buf.String()
}

const copyTable = `CREATE TABLE c (id INT NOT NULL, name TEXT, score DOUBLE, ts TIMESTAMPTZ, v VARCHAR(5))`

func TestCopyFormats(t *testing.T) {
	cases := []struct {
		name, stmt, data string
		want             [][]string
	}{
		{"text", `COPY c FROM STDIN`,
			"1\tann\t1.5\t2026-11-29 10:00:00+00\tx\n2\t\\N\t\\N\t\\N\t\\N\n3\ttab\\there\t-2\t2026-11-29T12:00:00Z\tabc\n\\.\n",
			[][]string{{"1", "ann", "1.5", "2026-11-29 10:00:00+00", "x"}, {"2", null, null, null, null}, {"3", "tab\there", "-2", "2026-11-29 12:00:00+00", "abc"}}},
		{"csv with header", `COPY c FROM STDIN WITH (FORMAT csv, HEADER)`,
			"id,name,score,ts,v\n1,\"a, \"\"quoted\"\" name\",2,,\n2,\"\",,2026-01-01 00:00:00+00,\"mul\nl\"\n",
			[][]string{{"1", `a, "quoted" name`, "2", null, null}, {"2", "", null, "2026-01-01 00:00:00+00", "mul\nl"}}},
		{"column list", `COPY c (name, id) FROM STDIN (FORMAT csv, DELIMITER '|', NULL 'NA')`,
			"bob|7\nNA|8\n",
			[][]string{{"7", "bob", null, null, null}, {"8", null, null, null, null}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, s := openSession(t)
			mustRun(t, s, copyTable)
			tag, err := copyIn(t, s, c.stmt, strings.NewReader(c.data))
			if err != nil {
				t.Fatalf("copy: %v", err)
			}
			if want := fmt.Sprintf("COPY %d", len(c.want)); tag != want {
				t.Fatalf("tag %q, want %q", tag, want)
			}
			got := mustRun(t, s, `SELECT * FROM c ORDER BY id`).rows
			if show(got) != show(c.want) {
				t.Fatalf("rows\n%s\nwant\n%s", show(got), show(c.want))
			}
		})
	}
}

func openSession(t *testing.T) (*engine.Engine, *engine.Session) {
	e := openEngine(t)
	return e, newSession(t, e)
}

// A bad row anywhere fails the whole COPY, with the line in the context
// (quoting the value or line, as PostgreSQL does), and nothing of it
// becomes visible.
func TestCopyIsAtomic(t *testing.T) {
	var big strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&big, "%d\tn%d\t%d\t\\N\t\\N\n", i, i, i)
	}
	good := big.String()
	cases := []struct {
		name, data, code, where string
	}{
		{"bad integer", good + "x\ta\t1\t\\N\t\\N\n", pgerr.InvalidTextRepresentation, `COPY c, line 100001, column id: "x"`},
		{"too many columns", good + "1\ta\t1\t\\N\t\\N\textra\n", pgerr.BadCopyFileFormat, "COPY c, line 100001: \"1\ta\t1\t\\N\t\\N\textra\""},
		{"too few columns", good + "1\ta\n", pgerr.BadCopyFileFormat, "COPY c, line 100001: \"1\ta\""},
		{"null into not null", good + "\\N\ta\t1\t\\N\t\\N\n", pgerr.NotNullViolation, "COPY c, line 100001: \"\\N\ta\t1\t\\N\t\\N\""},
		{"bad timestamp", "1\ta\t1\tsoon\t\\N\n", pgerr.InvalidDatetimeFormat, `COPY c, line 1, column ts: "soon"`},
		{"too long varchar", "1\ta\t1\t\\N\ttoolong\n", pgerr.StringDataRightTruncation, `COPY c, line 1, column v: "toolong"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, s := openSession(t)
			mustRun(t, s, copyTable)
			_, err := copyIn(t, s, `COPY c FROM STDIN`, strings.NewReader(c.data))
			pe := pgerr.From(err)
			if err == nil || pe.Code != c.code || pe.Where != c.where {
				t.Fatalf("got %v (code %s, where %q); want %s at %q", err, sqlstate(err), pe.Where, c.code, c.where)
			}
			if n := mustRun(t, s, `SELECT count(*) FROM c`).rows[0][0]; n != "0" {
				t.Fatalf("%s rows visible after a failed COPY", n)
			}
			mustRun(t, s, "CHECKPOINT")
			if n := mustRun(t, s, `SELECT count(*) FROM c`).rows[0][0]; n != "0" {
				t.Fatalf("%s rows in Iceberg after a failed COPY", n)
			}
		})
	}
}

func TestCopyOutRoundTrip(t *testing.T) {
	_, s := openSession(t)
	mustRun(t, s, copyTable)
	data := "1\tann\t1.5\t2026-11-29 10:00:00+00\tx\n2\t\\N\t\\N\t\\N\t\\N\n3\ttab\\there\\\\\t-2\t2026-11-29 12:00:00+00\ta,b\n"
	if _, err := copyIn(t, s, `COPY c FROM STDIN`, strings.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if got := copyOut(t, s, `COPY (SELECT * FROM c ORDER BY id) TO STDOUT`); got != data {
		t.Fatalf("text out\n%q\nwant\n%q", got, data)
	}
	// In CSV only the delimiter, quotes and line breaks force quoting.
	want := "id,name\n1,ann\n2,\n3,tab\there\\\n"
	if got := copyOut(t, s, `COPY (SELECT id, name FROM c ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)`); got != want {
		t.Fatalf("csv out\n%q\nwant\n%q", got, want)
	}
	if got := copyOut(t, s, `COPY c (id) TO STDOUT`); len(strings.Split(strings.TrimSpace(got), "\n")) != 3 {
		t.Fatalf("COPY c (id) TO STDOUT = %q", got)
	}
}
