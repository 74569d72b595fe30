package parse

import (
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// TableClauses are the Loam clauses after a CREATE TABLE's column list.
type TableClauses struct {
	Partition []PartitionField
	Sort      []SortField
	Options   []Option
	// SetPartition and SetSort mark ALTER TABLE … SET PARTITIONED BY and
	// SET SORTED BY (sql/parse/alterclauses.go), whose lists may be empty.
	SetPartition, SetSort bool
	start                 int // byte offset of the CREATE keyword, to match statements
}

// PartitionField is one entry of PARTITIONED BY: a transform of a column.
type PartitionField struct {
	Transform string // identity, year, month, day, hour, bucket, truncate
	Param     int    // N of bucket(N, col), W of truncate(W, col)
	Column    string
	Pos       int // 1-based character position of the column name
}

// SortField is one entry of SORTED BY.
type SortField struct {
	Column     string
	Desc       bool
	NullsFirst bool
	Pos        int
}

// Option is one `key = 'value' [ON column]` of WITH (…).
type Option struct {
	Key    string
	Value  string
	Column string // the ON column, "" when absent
	Pos    int    // position of the value
	ColPos int    // position of the ON column
}

// splitTableClauses finds the Loam clauses of a CREATE TABLE statement,
// parses them, and blanks them out of blanked (same length, spaces) so that
// pg_query sees a plain CREATE TABLE with unchanged offsets.
func splitTableClauses(query string, toks []*pg_query.ScanToken, blanked []byte) (*TableClauses, error) {
	if len(toks) < 3 || toks[0].Token != pg_query.Token_CREATE {
		return nil, nil
	}
	// CREATE [TEMP|UNLOGGED…] TABLE [IF NOT EXISTS] name ( … )
	i := 1
	for i < len(toks) && toks[i].Token != pg_query.Token_TABLE {
		if toks[i].Token == pg_query.Token_ASCII_40 {
			return nil, nil
		}
		i++
	}
	// TABLE [IF NOT EXISTS] name, then the column list or, for CREATE
	// TABLE … AS query, optional column names. CREATE TABLE … AS has its
	// clauses before AS: CREATE TABLE t [(a, b)] PARTITIONED BY (a) AS
	// SELECT …; the query's own words are not looked at.
	i++
	if i+2 < len(toks) && toks[i].Token == pg_query.Token_IF_P {
		i += 3
	}
	for i+2 < len(toks) && toks[i+1].Token == pg_query.Token_ASCII_46 {
		i += 2 // schema.name
	}
	end := i // the name
	if i+1 < len(toks) && toks[i+1].Token == pg_query.Token_ASCII_40 {
		if end = matchParen(toks, i+1); end < 0 {
			return nil, nil // pg_query will report the syntax error
		}
	}
	tc := &TableClauses{start: int(toks[0].Start)}
	found := false
	for j := end + 1; j < len(toks); {
		word := lowerText(query, toks[j])
		switch {
		case toks[j].Token == pg_query.Token_AS:
			j = len(toks) // the query of CREATE TABLE … AS
		case word == "partitioned" || word == "sorted":
			if j+2 >= len(toks) || lowerText(query, toks[j+1]) != "by" || toks[j+2].Token != pg_query.Token_ASCII_40 {
				return nil, errAt(query, toks[j], pgerr.SyntaxError, "syntax error: expected %s BY (…)", strings.ToUpper(word))
			}
			close := matchParen(toks, j+2)
			if close < 0 {
				return nil, errAt(query, toks[j], pgerr.SyntaxError, "syntax error: unbalanced parentheses in %s BY", strings.ToUpper(word))
			}
			if close == j+3 {
				return nil, errAt(query, toks[j], pgerr.SyntaxError, "syntax error: %s BY needs at least one column", strings.ToUpper(word))
			}
			items := splitItems(toks[j+3 : close])
			var err error
			if word == "partitioned" {
				err = tc.parsePartition(query, items, toks[j])
			} else {
				err = tc.parseSort(query, items, toks[j])
			}
			if err != nil {
				return nil, err
			}
			blank(blanked, toks[j], toks[close])
			found = true
			j = close + 1
		case toks[j].Token == pg_query.Token_WITH && j+1 < len(toks) && toks[j+1].Token == pg_query.Token_ASCII_40:
			close := matchParen(toks, j+1)
			if close < 0 {
				return nil, errAt(query, toks[j], pgerr.SyntaxError, "syntax error: unbalanced parentheses in WITH")
			}
			if err := tc.parseOptions(query, splitItems(toks[j+2:close]), toks[j]); err != nil {
				return nil, err
			}
			blank(blanked, toks[j], toks[close])
			found = true
			j = close + 1
		default:
			j++
		}
	}
	if !found {
		return nil, nil
	}
	return tc, nil
}

func matchParen(toks []*pg_query.ScanToken, open int) int {
	if open >= len(toks) || toks[open].Token != pg_query.Token_ASCII_40 {
		return -1
	}
	depth := 0
	for k := open; k < len(toks); k++ {
		switch toks[k].Token {
		case pg_query.Token_ASCII_40:
			depth++
		case pg_query.Token_ASCII_41:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// splitItems splits a parenthesised list at top-level commas.
func splitItems(toks []*pg_query.ScanToken) [][]*pg_query.ScanToken {
	var items [][]*pg_query.ScanToken
	depth, from := 0, 0
	for k, t := range toks {
		switch t.Token {
		case pg_query.Token_ASCII_40:
			depth++
		case pg_query.Token_ASCII_41:
			depth--
		case pg_query.Token_ASCII_44:
			if depth == 0 {
				items = append(items, toks[from:k])
				from = k + 1
			}
		}
	}
	if from < len(toks) || len(toks) > 0 {
		items = append(items, toks[from:])
	}
	return items
}

func blank(b []byte, from, to *pg_query.ScanToken) {
	for k := from.Start; k < to.End; k++ {
		if b[k] != '\n' {
			b[k] = ' '
		}
	}
}

func tokText(query string, t *pg_query.ScanToken) string { return query[t.Start:t.End] }

func lowerText(query string, t *pg_query.ScanToken) string {
	return strings.ToLower(tokText(query, t))
}

// identText returns an identifier as PostgreSQL folds it: quoted kept,
// unquoted lower-cased.
func identText(query string, t *pg_query.ScanToken) string {
	s := tokText(query, t)
	if strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && len(s) >= 2 {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

func isIdent(t *pg_query.ScanToken) bool {
	return t.Token == pg_query.Token_IDENT || t.KeywordKind != pg_query.KeywordKind_NO_KEYWORD
}

func errAt(query string, t *pg_query.ScanToken, code, format string, args ...any) error {
	e := pgerr.New(code, format, args...)
	e.Position = CharPos(query, int(t.Start))
	return e
}

var transforms = map[string]bool{"identity": true, "year": true, "month": true, "day": true, "hour": true, "bucket": true, "truncate": true}

func (tc *TableClauses) parsePartition(query string, items [][]*pg_query.ScanToken, kw *pg_query.ScanToken) error {
	for _, it := range items {
		if len(it) == 0 {
			return errAt(query, kw, pgerr.SyntaxError, "syntax error: empty entry in PARTITIONED BY")
		}
		if len(it) == 1 {
			if !isIdent(it[0]) {
				return errAt(query, it[0], pgerr.SyntaxError, "syntax error at or near %q in PARTITIONED BY", tokText(query, it[0]))
			}
			tc.Partition = append(tc.Partition, PartitionField{Transform: "identity", Column: identText(query, it[0]), Pos: CharPos(query, int(it[0].Start))})
			continue
		}
		name := lowerText(query, it[0])
		if it[1].Token != pg_query.Token_ASCII_40 || it[len(it)-1].Token != pg_query.Token_ASCII_41 {
			return errAt(query, it[0], pgerr.SyntaxError, "syntax error at or near %q in PARTITIONED BY", tokText(query, it[1]))
		}
		if !transforms[name] {
			return errAt(query, it[0], pgerr.SyntaxError, "unknown partition transform %q", name)
		}
		args := splitItems(it[2 : len(it)-1])
		pf := PartitionField{Transform: name}
		want := 1
		if name == "bucket" || name == "truncate" {
			want = 2
		}
		if len(args) != want {
			return errAt(query, it[0], pgerr.SyntaxError, "partition transform %s takes %d argument(s), got %d", name, want, len(args))
		}
		if want == 2 {
			if len(args[0]) != 1 || args[0][0].Token != pg_query.Token_ICONST {
				return errAt(query, it[0], pgerr.SyntaxError, "partition transform %s needs an integer width first, as in %s(16, col)", name, name)
			}
			n, err := strconv.Atoi(tokText(query, args[0][0]))
			if err != nil || n <= 0 {
				return errAt(query, args[0][0], pgerr.SyntaxError, "partition transform %s needs a positive width", name)
			}
			pf.Param = n
		}
		col := args[len(args)-1]
		if len(col) != 1 || !isIdent(col[0]) {
			return errAt(query, it[0], pgerr.SyntaxError, "partition transform %s needs a column name", name)
		}
		pf.Column = identText(query, col[0])
		pf.Pos = CharPos(query, int(col[0].Start))
		tc.Partition = append(tc.Partition, pf)
	}
	return nil
}

func (tc *TableClauses) parseSort(query string, items [][]*pg_query.ScanToken, kw *pg_query.ScanToken) error {
	for _, it := range items {
		if len(it) == 0 || !isIdent(it[0]) {
			return errAt(query, kw, pgerr.SyntaxError, "syntax error in SORTED BY: expected a column name")
		}
		sf := SortField{Column: identText(query, it[0]), Pos: CharPos(query, int(it[0].Start))}
		rest := it[1:]
		nullsSet := false
		for k := 0; k < len(rest); k++ {
			switch w := lowerText(query, rest[k]); w {
			case "asc":
			case "desc":
				sf.Desc = true
			case "nulls":
				if k+1 >= len(rest) {
					return errAt(query, rest[k], pgerr.SyntaxError, "syntax error in SORTED BY: NULLS FIRST or NULLS LAST")
				}
				switch lowerText(query, rest[k+1]) {
				case "first":
					sf.NullsFirst = true
				case "last":
				default:
					return errAt(query, rest[k+1], pgerr.SyntaxError, "syntax error in SORTED BY: NULLS FIRST or NULLS LAST")
				}
				nullsSet = true
				k++
			default:
				return errAt(query, rest[k], pgerr.SyntaxError, "syntax error at or near %q in SORTED BY", tokText(query, rest[k]))
			}
		}
		if !nullsSet {
			sf.NullsFirst = sf.Desc // PostgreSQL's default: NULLS LAST for ASC, FIRST for DESC
		}
		tc.Sort = append(tc.Sort, sf)
	}
	return nil
}

func (tc *TableClauses) parseOptions(query string, items [][]*pg_query.ScanToken, kw *pg_query.ScanToken) error {
	for _, it := range items {
		// A namespaced key, toast.autovacuum_enabled = false: one of
		// PostgreSQL's storage parameters for the table's TOAST table.
		prefix := ""
		if len(it) >= 5 && isIdent(it[0]) && it[1].Token == pg_query.Token_ASCII_46 && isIdent(it[2]) {
			prefix = identText(query, it[0]) + "."
			it = it[2:]
		}
		if len(it) < 3 || it[1].Token != pg_query.Token_ASCII_61 {
			at := kw
			if len(it) > 0 {
				at = it[0]
			}
			return errAt(query, at, pgerr.SyntaxError, "syntax error in WITH: expected key = 'value' [ON column]")
		}
		opt := Option{Key: prefix + identText(query, it[0]), Pos: CharPos(query, int(it[2].Start))}
		v := tokText(query, it[2])
		switch it[2].Token {
		case pg_query.Token_SCONST:
			opt.Value = unquoteString(v)
		default:
			opt.Value = v
		}
		rest := it[3:]
		if len(rest) > 0 {
			if len(rest) != 2 || rest[0].Token != pg_query.Token_ON || !isIdent(rest[1]) {
				return errAt(query, rest[0], pgerr.SyntaxError, "syntax error at or near %q in WITH", tokText(query, rest[0]))
			}
			opt.Column = identText(query, rest[1])
			opt.ColPos = CharPos(query, int(rest[1].Start))
		}
		tc.Options = append(tc.Options, opt)
	}
	return nil
}

func unquoteString(s string) string {
	if strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) >= 2 {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}
