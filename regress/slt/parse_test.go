package slt

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
)

const script = `# a comment
hash-threshold 4

statement ok
CREATE TABLE t(a INTEGER,
# a comment inside a record
b TEXT)

skipif postgresql
statement ok
not sql at all

onlyif sqlite
query I nosort
SELECT 1
----
1

onlyif postgresql
skipif mysql
query IT rowsort lbl
SELECT a, b FROM t
----
1
x

query R
SELECT 1.5
----

statement error 42P01
SELECT * FROM nowhere

halt

statement ok
DROP TABLE t
`

func TestParse(t *testing.T) {
	recs, err := Parse(strings.NewReader(script), "script")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 9 {
		t.Fatalf("got %d records, want 9: %+v", len(recs), recs)
	}
	if r := recs[0]; r.Kind != HashThreshold || r.Threshold != 4 || r.Line != 2 {
		t.Errorf("record 0: %+v", r)
	}
	if r := recs[1]; r.Kind != Statement || r.ExpectError || r.SQL != "CREATE TABLE t(a INTEGER,\nb TEXT)" || r.Line != 4 {
		t.Errorf("record 1: %+v", r)
	}
	if !recs[2].Skipped(Engine) || !recs[3].Skipped(Engine) || recs[4].Skipped(Engine) || !recs[4].Skipped("mysql") {
		t.Errorf("skipif/onlyif: %v %v %v", recs[2].Skipped(Engine), recs[3].Skipped(Engine), recs[4].Skipped(Engine))
	}
	if r := recs[4]; r.Kind != Query || r.Types != "IT" || r.Sort != RowSort || r.Label != "lbl" ||
		r.SQL != "SELECT a, b FROM t" || strings.Join(r.Expected, ",") != "1,x" || !r.HasDash {
		t.Errorf("record 4: %+v", r)
	}
	if r := recs[5]; r.Kind != Query || r.Sort != NoSort || len(r.Expected) != 0 || !r.HasDash {
		t.Errorf("record 5: %+v", r)
	}
	if r := recs[6]; r.Kind != Statement || !r.ExpectError || r.ErrorCode != "42P01" {
		t.Errorf("record 6: %+v", r)
	}
	if recs, err := Parse(strings.NewReader("statement error relation \"t\" does not exist\nSELECT 1\n"), "s"); err != nil ||
		recs[0].ErrorText != `relation "t" does not exist` || recs[0].ErrorCode != "" {
		t.Errorf("statement error with a message: %+v, %v", recs, err)
	}
	if recs[7].Kind != Halt {
		t.Errorf("record 7: %+v", recs[7])
	}

	for _, bad := range []string{
		"statement maybe\nSELECT 1",
		"statement ok 42P01\nSELECT 1",
		"query X\nSELECT 1",
		"query I sometimes\nSELECT 1",
		"frobnicate",
		"statement ok",
		"skipif postgresql",
		"hash-threshold many",
	} {
		if _, err := Parse(strings.NewReader(bad), "bad"); err == nil {
			t.Errorf("Parse(%q) did not fail", bad)
		}
	}
}

func TestRender(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		typ  byte
		want string
	}{
		{nil, 'I', "NULL"}, {nil, 'R', "NULL"}, {nil, 'T', "NULL"},
		{[]byte("42"), 'I', "42"},
		{[]byte("-7"), 'I', "-7"},
		{[]byte("3.9"), 'I', "3"},
		{[]byte("-3.9"), 'I', "-3"},
		{[]byte("123.0000000000000000"), 'I', "123"},
		{[]byte("1e3"), 'I', "1000"},
		{[]byte("t"), 'I', "1"},
		{[]byte("abc"), 'I', "0"},
		{[]byte("12abc"), 'I', "12"},
		{[]byte("2"), 'R', "2.000"},
		{[]byte("0.0625"), 'R', "0.062"}, // half to even, as glibc's printf
		{[]byte("-1.23456"), 'R', "-1.235"},
		{[]byte("102.5000000000000000"), 'R', "102.500"},
		{[]byte(""), 'T', "(empty)"},
		{[]byte("a b"), 'T', "a b"},
		{[]byte("a\tb\x01"), 'T', "a@b@"},
		{[]byte("17"), 'T', "17"},
	} {
		if got := Render(c.in, c.typ); got != c.want {
			t.Errorf("Render(%q, %c) = %q, want %q", c.in, c.typ, got, c.want)
		}
	}
}

func TestSort(t *testing.T) {
	vals := []string{"9", "b", "10", "a", "10", "NULL", "1", "z"}
	SortValues(vals, 2, RowSort)
	if got := strings.Join(vals, " "); got != "1 z 10 NULL 10 a 9 b" {
		t.Errorf("rowsort: %s", got)
	}
	vals = []string{"9", "b", "10", "a"}
	SortValues(vals, 2, ValueSort)
	if got := strings.Join(vals, " "); got != "10 9 a b" {
		t.Errorf("valuesort: %s", got)
	}
	vals = []string{"9", "b", "10", "a"}
	SortValues(vals, 2, NoSort)
	if got := strings.Join(vals, " "); got != "9 b 10 a" {
		t.Errorf("nosort: %s", got)
	}
}

func TestMatch(t *testing.T) {
	vals := []string{"1", "a b", "2", "c"}
	// md5 of "1\na b\n2\nc\n"
	const hash = "4 values hashing to 66e903aaffb21a46626f51dc42691756"
	if got := HashValues(vals); got != hash {
		t.Fatalf("HashValues = %s", got)
	}
	for _, c := range []struct {
		exp       []string
		threshold int
		want      bool
	}{
		{[]string{"1", "a b", "2", "c"}, 0, true},
		{[]string{"1", "a b", "2", "c"}, 2, true},
		{[]string{hash}, 0, true},
		{[]string{hash}, 2, true},
		{[]string{"1", "a b", "2"}, 0, false},
		{[]string{"1", "a b", "2", "d"}, 0, false},
		{[]string{"4 values hashing to 00000000000000000000000000000000"}, 2, false},
		{nil, 0, false},
	} {
		if ok, _ := Match(c.exp, vals, 2, c.threshold); ok != c.want {
			t.Errorf("Match(%q, threshold %d) = %v, want %v", c.exp, c.threshold, ok, c.want)
		}
	}
	// one row per line
	if ok, _ := Match([]string{"1 x", "2\ty"}, []string{"1", "x", "2", "y"}, 2, 0); !ok {
		t.Error("rows per line did not match")
	}
	if ok, _ := Match(nil, nil, 1, 0); !ok {
		t.Error("empty result did not match nothing expected")
	}
}

// TestPostgresNegative checks that the runner fails what it should, on a
// throwaway PostgreSQL (dev only, SLT_POSTGRES=1).
func TestPostgresNegative(t *testing.T) {
	if os.Getenv("SLT_POSTGRES") != "1" {
		t.Skip("set SLT_POSTGRES=1 to run the files on a throwaway PostgreSQL (meta/pgtest)")
	}
	const bad = `statement ok
CREATE TABLE t(a INTEGER, b TEXT)

statement ok
INSERT INTO t VALUES(1, 'x'), (2, ''), (NULL, NULL)

statement error
SELECT * FROM t

statement ok
SELECT * FROM nowhere

statement error 42P02
SELECT * FROM nowhere

statement error 42P01
SELECT * FROM nowhere

query I
SELECT * FROM nowhere
----

query I rowsort
SELECT a FROM t
----
1
2

query IT rowsort
SELECT a FROM t
----
1
2
NULL

query T rowsort
SELECT b FROM t
----
x
NULL

query I nosort
SELECT a FROM t ORDER BY a
----
2
1
NULL

query R
SELECT 1.0006
----
1.000

hash-threshold 1

query I nosort
SELECT a FROM t ORDER BY a
----
3 values hashing to 00000000000000000000000000000000

query I
SELECT pg_sleep(3)
----
NULL

query I
SELECT 1
----
1
`
	recs, err := Parse(strings.NewReader(bad), "bad")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ConnConfig(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{RecordTimeout: time.Second, MaxFailures: 100,
		Connect: func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, cfg.Copy()) }}
	res := r.Run(context.Background(), "bad", recs)
	if res.Passed != 4 || res.Failed != 11 || res.TimedOut != 1 || res.Aborted != nil {
		t.Errorf("passed %d failed %d timed out %d aborted %v; want 4, 11, 1, nil", res.Passed, res.Failed, res.TimedOut, res.Aborted)
		for _, f := range res.Failures {
			t.Log(f)
		}
	}
}
