package parse

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loamdb/loam/pgerr"
)

const columns = `CREATE TABLE llm_calls (ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING, prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT)`

const (
	partClause = `PARTITIONED BY (day(ts))`
	sortClause = `SORTED BY (tenant, model, ts)`
	withClause = `WITH (retention = '180 days' ON ts)`
)

// pos is the 1-based character position of the n-th (0-based) occurrence
// of sub in s.
func pos(t *testing.T, s, sub string, n int) int {
	t.Helper()
	off := 0
	for ; n >= 0; n-- {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			t.Fatalf("%q not in %q", sub, s)
		}
		off += i
		if n > 0 {
			off += len(sub)
		}
	}
	return utf8.RuneCountInString(s[:off]) + 1
}

func parseOne(t *testing.T, q string) Statement {
	t.Helper()
	stmts, err := Parse(q)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	if len(stmts) != 1 {
		t.Fatalf("Parse(%q): %d statements", q, len(stmts))
	}
	if stmts[0].Node == nil || stmts[0].Node.GetCreateStmt() == nil {
		t.Fatalf("Parse(%q): not a CreateStmt: %v", q, stmts[0].Node)
	}
	return stmts[0]
}

// wantPart, wantSort and wantOpts are the parsed forms of the three
// clauses, positions filled in for query q.
func wantPart(t *testing.T, q string) []PartitionField {
	return []PartitionField{{Transform: "day", Column: "ts", Pos: pos(t, q, "ts))", 0)}}
}

func wantSort(t *testing.T, q string) []SortField {
	return []SortField{
		{Column: "tenant", Pos: pos(t, q, "tenant, model, ts)", 0)},
		{Column: "model", Pos: pos(t, q, "model, ts)", 0)},
		{Column: "ts", Pos: pos(t, q, "ts)", strings.Count(q[:strings.Index(q, "SORTED")], "ts)"))},
	}
}

func wantOpts(t *testing.T, q string) []Option {
	return []Option{{Key: "retention", Value: "180 days", Column: "ts", Pos: pos(t, q, "'180 days'", 0), ColPos: pos(t, q, "ON ts", 0) + 3}}
}

// TestClauseSubsets parses the statement with every subset of its three
// clauses, in every order.
func TestClauseSubsets(t *testing.T) {
	clauses := []string{partClause, sortClause, withClause}
	for mask := 0; mask < 1<<len(clauses); mask++ {
		var chosen []int
		for i := range clauses {
			if mask&(1<<i) != 0 {
				chosen = append(chosen, i)
			}
		}
		for _, perm := range permutations(chosen) {
			parts := []string{columns}
			for _, i := range perm {
				parts = append(parts, clauses[i])
			}
			for _, sep := range []string{" ", "\n  ", "\t"} {
				q := strings.Join(parts, sep)
				t.Run(q, func(t *testing.T) {
					st := parseOne(t, q)
					if mask == 0 {
						if st.Table != nil {
							t.Fatalf("Table = %+v for a plain CREATE TABLE", st.Table)
						}
						return
					}
					if st.Table == nil {
						t.Fatal("Table is nil")
					}
					var wp []PartitionField
					var ws []SortField
					var wo []Option
					if mask&1 != 0 {
						wp = wantPart(t, q)
					}
					if mask&2 != 0 {
						ws = wantSort(t, q)
					}
					if mask&4 != 0 {
						wo = wantOpts(t, q)
					}
					if !reflect.DeepEqual(st.Table.Partition, wp) {
						t.Errorf("Partition %+v, want %+v", st.Table.Partition, wp)
					}
					if !reflect.DeepEqual(st.Table.Sort, ws) {
						t.Errorf("Sort %+v, want %+v", st.Table.Sort, ws)
					}
					if !reflect.DeepEqual(st.Table.Options, wo) {
						t.Errorf("Options %+v, want %+v", st.Table.Options, wo)
					}
					if st.Text != q || st.Offset != 0 {
						t.Errorf("Text %q Offset %d", st.Text, st.Offset)
					}
					// The column list reached pg_query intact.
					cs := st.Node.GetCreateStmt()
					if cs.Relation.Relname != "llm_calls" || len(cs.TableElts) != 7 {
						t.Errorf("CreateStmt %s with %d columns", cs.Relation.Relname, len(cs.TableElts))
					}
					if len(cs.Options) != 0 {
						t.Errorf("WITH options leaked to pg_query: %v", cs.Options)
					}
				})
			}
		}
	}
}

func permutations(xs []int) [][]int {
	if len(xs) <= 1 {
		return [][]int{append([]int(nil), xs...)}
	}
	var out [][]int
	for i := range xs {
		rest := append(append([]int(nil), xs[:i]...), xs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]int{xs[i]}, p...))
		}
	}
	return out
}

func TestClauseForms(t *testing.T) {
	cases := []struct {
		name  string
		query string
		part  []PartitionField
		sort  []SortField
		opts  []Option
	}{
		{
			name:  "quoted identifiers",
			query: `CREATE TABLE t ("Ts" TIMESTAMPTZ, "My ""Col""" TEXT) PARTITIONED BY (hour("Ts")) SORTED BY ("My ""Col""" DESC) WITH (retention = '7 days' ON "Ts")`,
			part:  []PartitionField{{Transform: "hour", Column: "Ts"}},
			sort:  []SortField{{Column: `My "Col"`, Desc: true, NullsFirst: true}},
			opts:  []Option{{Key: "retention", Value: "7 days", Column: "Ts"}},
		},
		{
			name:  "unquoted identifiers fold to lower case",
			query: `CREATE TABLE t (TS TIMESTAMPTZ) PARTITIONED BY (DAY(TS)) SORTED BY (TS) WITH (RETENTION = '1 day' ON TS)`,
			part:  []PartitionField{{Transform: "day", Column: "ts"}},
			sort:  []SortField{{Column: "ts"}},
			opts:  []Option{{Key: "retention", Value: "1 day", Column: "ts"}},
		},
		{
			name:  "bucket and truncate",
			query: `CREATE TABLE t (tenant TEXT, model TEXT) PARTITIONED BY (bucket(16, tenant), truncate(4, model))`,
			part: []PartitionField{
				{Transform: "bucket", Param: 16, Column: "tenant"},
				{Transform: "truncate", Param: 4, Column: "model"},
			},
		},
		{
			name:  "identity and every time transform",
			query: `CREATE TABLE t (a TIMESTAMP, b TEXT) PARTITIONED BY (b, year(a), month(a), day(a), hour(a), identity(b))`,
			part: []PartitionField{
				{Transform: "identity", Column: "b"},
				{Transform: "year", Column: "a"},
				{Transform: "month", Column: "a"},
				{Transform: "day", Column: "a"},
				{Transform: "hour", Column: "a"},
				{Transform: "identity", Column: "b"},
			},
		},
		{
			name:  "sort directions and nulls",
			query: `CREATE TABLE t (a INT, b INT, c INT, d INT) SORTED BY (a DESC NULLS FIRST, b ASC NULLS FIRST, c DESC NULLS LAST, d ASC)`,
			sort: []SortField{
				{Column: "a", Desc: true, NullsFirst: true},
				{Column: "b", NullsFirst: true},
				{Column: "c", Desc: true},
				{Column: "d"},
			},
		},
		{
			name:  "several options, one without ON",
			query: `CREATE TABLE t (ts TIMESTAMPTZ) WITH (commit_interval = '30 seconds', retention = '1 year' ON ts)`,
			opts: []Option{
				{Key: "commit_interval", Value: "30 seconds"},
				{Key: "retention", Value: "1 year", Column: "ts"},
			},
		},
		{
			name:  "option with doubled quote",
			query: `CREATE TABLE t (ts TIMESTAMPTZ) WITH (note = 'it''s')`,
			opts:  []Option{{Key: "note", Value: "it's"}},
		},
		{
			name:  "IF NOT EXISTS and schema-qualified",
			query: `CREATE TABLE IF NOT EXISTS s.t (ts TIMESTAMPTZ) PARTITIONED BY (day(ts))`,
			part:  []PartitionField{{Transform: "day", Column: "ts"}},
		},
		{
			name:  "multi-byte characters before the clause",
			query: `CREATE TABLE t ("été" TIMESTAMPTZ) PARTITIONED BY (day("été"))`,
			part:  []PartitionField{{Transform: "day", Column: "été"}},
		},
		{
			name:  "comments between clauses",
			query: "CREATE TABLE t (ts TIMESTAMPTZ) -- PARTITIONED BY (week(ts))\n/* SORTED BY (nope) */ SORTED BY (ts)",
			sort:  []SortField{{Column: "ts"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := parseOne(t, tc.query)
			if st.Table == nil {
				t.Fatal("Table is nil")
			}
			// Positions are checked below against the text; compare the rest.
			tbl := *st.Table
			tbl.Partition = append([]PartitionField(nil), tbl.Partition...)
			tbl.Sort = append([]SortField(nil), tbl.Sort...)
			tbl.Options = append([]Option(nil), tbl.Options...)
			for i := range tbl.Partition {
				tbl.Partition[i].Pos = 0
			}
			for i := range tbl.Sort {
				tbl.Sort[i].Pos = 0
			}
			for i := range tbl.Options {
				tbl.Options[i].Pos, tbl.Options[i].ColPos = 0, 0
			}
			if len(tbl.Partition) == 0 {
				tbl.Partition = nil
			}
			if len(tbl.Sort) == 0 {
				tbl.Sort = nil
			}
			if len(tbl.Options) == 0 {
				tbl.Options = nil
			}
			if !reflect.DeepEqual(tbl.Partition, tc.part) {
				t.Errorf("Partition %+v, want %+v", tbl.Partition, tc.part)
			}
			if !reflect.DeepEqual(tbl.Sort, tc.sort) {
				t.Errorf("Sort %+v, want %+v", st.Table.Sort, tc.sort)
			}
			if !reflect.DeepEqual(tbl.Options, tc.opts) {
				t.Errorf("Options %+v, want %+v", st.Table.Options, tc.opts)
			}
			// Every position (1-based, in characters) points at the token
			// naming the column, or at the option's quoted value.
			runes := []rune(tc.query)
			at := func(p int, s string) {
				t.Helper()
				if p < 1 || p > len(runes) {
					t.Errorf("position %d out of range for %q", p, s)
					return
				}
				rest := string(runes[p-1:])
				quoted := `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
				if !strings.HasPrefix(strings.ToLower(rest), s) && !strings.HasPrefix(rest, quoted) {
					t.Errorf("position %d points at %.10q, want %q", p, rest, s)
				}
			}
			for _, p := range st.Table.Partition {
				at(p.Pos, p.Column)
			}
			for _, s := range st.Table.Sort {
				at(s.Pos, s.Column)
			}
			for _, o := range st.Table.Options {
				at(o.Pos, "'")
				if o.Column != "" {
					at(o.ColPos, o.Column)
				}
			}
		})
	}
}

// TestNotSplit: statements whose text merely contains the clause words are
// left alone.
func TestNotSplit(t *testing.T) {
	cases := []string{
		`SELECT 'PARTITIONED BY (day(ts))' AS x`,
		`SELECT 1 -- PARTITIONED BY (day(ts))`,
		`CREATE TABLE t (note TEXT DEFAULT 'PARTITIONED BY (week(x))')`,
		`CREATE TABLE t (ts TIMESTAMPTZ) /* PARTITIONED BY (week(ts)) SORTED BY (nope) WITH (x = 'y') */`,
		`CREATE TABLE t (ts TIMESTAMPTZ) -- WITH (retention = 'soon' ON ts)`,
		`CREATE TABLE "PARTITIONED BY" (ts TIMESTAMPTZ)`,
		`CREATE TABLE t AS SELECT 1 AS partitioned`,
		`CREATE SCHEMA partitioned`,
		`CREATE INDEX i ON t (a) WITH (fillfactor = 70)`,
		`INSERT INTO t VALUES ('SORTED BY (x)')`,
		`SELECT $$ PARTITIONED BY (week(ts)) $$`,
	}
	for _, q := range cases {
		t.Run(q, func(t *testing.T) {
			stmts, err := Parse(q)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(stmts) != 1 {
				t.Fatalf("%d statements", len(stmts))
			}
			if stmts[0].Table != nil {
				t.Errorf("Table = %+v, want nil", stmts[0].Table)
			}
			if stmts[0].Text != q {
				t.Errorf("Text %q", stmts[0].Text)
			}
		})
	}
	// A string default containing the words does not hide real clauses.
	q := `CREATE TABLE t (note TEXT DEFAULT 'PARTITIONED BY (week(x))', ts TIMESTAMPTZ) PARTITIONED BY (day(ts))`
	st := parseOne(t, q)
	if st.Table == nil || len(st.Table.Partition) != 1 || st.Table.Partition[0].Transform != "day" {
		t.Fatalf("Table %+v", st.Table)
	}
}

func TestMultipleStatements(t *testing.T) {
	q := "SELECT 1;\n" + columns + " " + partClause + ";  /* c */ SELECT 'a;b';" +
		"CREATE TABLE u (x INT) SORTED BY (x DESC);;\nSELECT 2"
	stmts, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	// A statement's Text keeps a comment that precedes it (only
	// whitespace is trimmed).
	texts := []string{"SELECT 1", columns + " " + partClause, "/* c */ SELECT 'a;b'", "CREATE TABLE u (x INT) SORTED BY (x DESC)", "SELECT 2"}
	if len(stmts) != len(texts) {
		t.Fatalf("%d statements, want %d: %+v", len(stmts), len(texts), stmts)
	}
	for i, st := range stmts {
		if st.Text != texts[i] {
			t.Errorf("statement %d: Text %q, want %q", i, st.Text, texts[i])
		}
		if st.Node == nil {
			t.Errorf("statement %d: nil Node", i)
		}
		// Offset is where the statement's span starts; its text follows
		// after at most whitespace and comments.
		if st.Offset > len(q) || !strings.Contains(q[st.Offset:], st.Text) {
			t.Errorf("statement %d: Offset %d does not precede %q", i, st.Offset, st.Text)
		}
		if i == 0 && st.Offset != 0 {
			t.Errorf("first Offset %d", st.Offset)
		}
	}
	if stmts[1].Table == nil || len(stmts[1].Table.Partition) != 1 || stmts[1].Table.Sort != nil {
		t.Errorf("statement 1 Table %+v", stmts[1].Table)
	}
	if stmts[3].Table == nil || len(stmts[3].Table.Sort) != 1 || !stmts[3].Table.Sort[0].Desc || stmts[3].Table.Partition != nil {
		t.Errorf("statement 3 Table %+v", stmts[3].Table)
	}
	for _, i := range []int{0, 2, 4} {
		if stmts[i].Table != nil {
			t.Errorf("statement %d Table %+v", i, stmts[i].Table)
		}
	}
	// Clause positions are relative to the whole query string.
	if p := stmts[1].Table.Partition[0].Pos; p != pos(t, q, "ts))", 0) {
		t.Errorf("partition Pos %d, want %d", p, pos(t, q, "ts))", 0))
	}
	if p := stmts[3].Table.Sort[0].Pos; p != pos(t, q, "x DESC", 0) {
		t.Errorf("sort Pos %d, want %d", p, pos(t, q, "x DESC", 0))
	}
}

func TestEmpty(t *testing.T) {
	for _, q := range []string{"", "   ", ";", " ; ;\n", "-- only a comment", "/* c */ ;"} {
		stmts, err := Parse(q)
		if err != nil || len(stmts) != 0 {
			t.Errorf("Parse(%q) = %d statements, %v; want none", q, len(stmts), err)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		query string
		code  string
		at    string // the text Position points at
		nth   int    // which occurrence of at
	}{
		{columns + " PARTITIONED BY (week(ts))", pgerr.SyntaxError, "week", 0},
		{columns + " SORTED BY (tenant) PARTITIONED BY (WEEK(ts))", pgerr.SyntaxError, "WEEK", 0},
		{"SELECT 1; " + columns + " PARTITIONED BY (week(ts))", pgerr.SyntaxError, "week", 0},
		{"SELECT 'été'; " + columns + " PARTITIONED BY (week(ts))", pgerr.SyntaxError, "week", 0},
		{columns + " PARTITIONED BY (bucket(ts))", pgerr.SyntaxError, "bucket", 0},
		{columns + " PARTITIONED BY (bucket(0, ts))", pgerr.SyntaxError, "0, ts", 0},
		{columns + " PARTITIONED BY (bucket(x, ts))", pgerr.SyntaxError, "bucket", 0},
		{columns + " PARTITIONED BY (truncate(4))", pgerr.SyntaxError, "truncate", 0},
		{columns + " PARTITIONED BY (day(ts, model))", pgerr.SyntaxError, "day(ts, model)", 0},
		{columns + " PARTITIONED BY (day(1))", pgerr.SyntaxError, "day(1)", 0},
		{columns + " PARTITIONED BY (day(ts),)", pgerr.SyntaxError, "PARTITIONED", 0},
		{columns + " PARTITIONED BY (ts model)", pgerr.SyntaxError, "ts model", 0},
		{columns + " PARTITIONED BY (day(ts)", pgerr.SyntaxError, "PARTITIONED", 0},
		{columns + " PARTITIONED (day(ts))", pgerr.SyntaxError, "PARTITIONED", 0},
		{columns + " PARTITIONED BY day(ts)", pgerr.SyntaxError, "PARTITIONED", 0},
		{columns + " SORTED BY (ts UP)", pgerr.SyntaxError, "UP", 0},
		{columns + " SORTED BY (ts NULLS)", pgerr.SyntaxError, "NULLS", 0},
		{columns + " SORTED BY (ts NULLS MIDDLE)", pgerr.SyntaxError, "MIDDLE", 0},
		{columns + " SORTED BY (1)", pgerr.SyntaxError, "SORTED", 0},
		{columns + " WITH (retention)", pgerr.SyntaxError, "retention", 0},
		{columns + " WITH (retention = '1 day' AT ts)", pgerr.SyntaxError, "AT ts", 0},
		{columns + " WITH (retention = '1 day' ON)", pgerr.SyntaxError, "ON)", 0},
		{columns + " WITH (retention = '1 day' ON ts", pgerr.SyntaxError, "WITH", 1},
		{"SELEC 1", pgerr.SyntaxError, "SELEC", 0},
		{"SELECT 1; SELECT FROM WHERE", pgerr.SyntaxError, "WHERE", 0},
		{"SELECT 'unterminated", pgerr.SyntaxError, "'unterminated", 0},
		{columns + " BANANA", pgerr.SyntaxError, "BANANA", 0},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			stmts, err := Parse(tc.query)
			if err == nil {
				t.Fatalf("no error; %d statements", len(stmts))
			}
			pe := pgerr.From(err)
			if pe.Code != tc.code {
				t.Fatalf("SQLSTATE %s (%v), want %s", pe.Code, err, tc.code)
			}
			if want := pos(t, tc.query, tc.at, tc.nth); pe.Position != want {
				t.Errorf("Position %d, want %d (%q); message %q", pe.Position, want, tc.at, pe.Message)
			}
		})
	}
}

// TestEmptyLists: an empty PARTITIONED BY () or SORTED BY () should be a
// syntax error (an empty entry such as "(a,)" is one), not silently mean
// "unpartitioned" / "unsorted".
func TestEmptyLists(t *testing.T) {
	for _, clause := range []string{"PARTITIONED BY ()", "SORTED BY ()"} {
		stmts, err := Parse(columns + " " + clause)
		if err == nil {
			t.Fatalf("%s is accepted silently (Table %+v)", clause, stmts[0].Table)
		}
		if pgerr.From(err).Code != pgerr.SyntaxError {
			t.Errorf("%s: %v", clause, err)
		}
	}
}

func TestCharPos(t *testing.T) {
	q := "SELECT 'é', x"
	cases := []struct{ off, want int }{{0, 1}, {7, 8}, {8, 9}, {10, 10}, {13, 13}, {len(q), 14}, {len(q) + 5, 14}, {-1, 0}}
	for _, c := range cases {
		if got := CharPos(q, c.off); got != c.want {
			t.Errorf("CharPos(%q, %d) = %d, want %d", q, c.off, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		";",
		"SELECT 1",
		"SELECT 1; SELECT 2",
		columns + " " + partClause + " " + sortClause + " " + withClause,
		columns + " " + withClause + " " + partClause,
		`CREATE TABLE t ("Ts" TIMESTAMPTZ) PARTITIONED BY (bucket(16, "Ts"), truncate(4, x)) SORTED BY (x DESC NULLS FIRST)`,
		"CREATE TABLE t (a INT) PARTITIONED BY (",
		"CREATE TABLE t (a INT) PARTITIONED BY ()",
		"CREATE TABLE t (a INT) PARTITIONED BY (day(a),)",
		"CREATE TABLE t (a INT) PARTITIONED BY (day(",
		"CREATE TABLE t (a INT) SORTED BY (a NULLS",
		"CREATE TABLE t (a INT) WITH (x = ",
		"CREATE TABLE t (a INT) WITH (x = 'y' ON",
		"CREATE TABLE t (a INT) WITH ((",
		"CREATE TABLE t (a INT) PARTITIONED BY (bucket(99999999999999999999, a))",
		"CREATE TABLE (",
		"CREATE TABLE t",
		"CREATE (",
		"CREATE TABLE t (a INT) PARTITIONED",
		"CREATE TABLE t (a INT) SORTED BY",
		"SELECT 'PARTITIONED BY (x)' -- SORTED BY",
		"CREATE TABLE t (a INT) /* x */ PARTITIONED /* y */ BY /* z */ (a)",
		"CREATE TABLE t (a INT) PARTITIONED BY (é(a))\nSORTED BY (\"é\")",
		"CREATE TABLE t (a INT);CREATE TABLE u (b INT) PARTITIONED BY (b);SELECT 1",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		stmts, err := Parse(q)
		if err != nil {
			pe := pgerr.From(err)
			if pe.Code == "" {
				t.Fatalf("error without SQLSTATE: %v", err)
			}
			if pe.Position < 0 || pe.Position > utf8.RuneCountInString(q)+1 {
				t.Fatalf("Position %d out of range for %d characters", pe.Position, utf8.RuneCountInString(q))
			}
			return
		}
		for i, st := range stmts {
			if st.Node == nil {
				t.Fatalf("statement %d has nil Node", i)
			}
			if st.Offset < 0 || st.Offset > len(q) {
				t.Fatalf("statement %d Offset %d", i, st.Offset)
			}
			if st.Table != nil {
				for _, p := range st.Table.Partition {
					if p.Pos < 1 || p.Column == "" {
						t.Fatalf("partition field %+v", p)
					}
				}
			}
		}
	})
}
