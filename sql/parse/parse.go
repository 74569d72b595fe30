// Package parse turns query text into statements: PostgreSQL's grammar
// through pg_query, and Loam's table clauses (PARTITIONED BY, SORTED BY,
// WITH (… ON col)) split off beforehand with pg_query's scanner, since the
// Postgres grammar cannot parse them.
package parse

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/loamdb/loam/pgerr"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
)

// Statement is one statement of a query string.
type Statement struct {
	// Text is the statement's own text as the user wrote it.
	Text string
	// Offset is the byte offset of Text within the whole query; node
	// locations from pg_query are offsets within the whole query too.
	Offset int
	Node   *pg_query.Node
	// Table holds the Loam clauses of a CREATE TABLE, or of an ALTER
	// TABLE: the options of SET (…) with their ON columns, and SET
	// PARTITIONED BY / SET SORTED BY; nil otherwise.
	Table *TableClauses
	// Ref is ALTER TABLE … CREATE|DROP BRANCH|TAG (refs.go); Node is then
	// an AlterTableStmt without commands.
	Ref *RefStmt
}

// Parse splits query into statements and parses each. An empty query (only
// whitespace, comments and semicolons) yields none.
func Parse(query string) ([]Statement, error) {
	toks, err := pg_query.Scan(query)
	if err != nil {
		return nil, syntaxError(query, err)
	}
	tokens := toks.Tokens
	blanked := []byte(query)
	var clauses []*TableClauses
	var refs []*RefStmt
	var travel []AsOf
	for _, span := range statementSpans(tokens) {
		stoks := tokens[span[0]:span[1]]
		rs, err := splitRefStmt(query, stoks)
		if err != nil {
			return nil, err
		}
		if rs != nil {
			blank(blanked, stoks[0], stoks[len(stoks)-1])
			refs = append(refs, rs)
			continue
		}
		tc, err := splitTableClauses(query, stoks, blanked)
		if err != nil {
			return nil, err
		}
		if tc == nil {
			tc = splitAlterOptions(query, tokens[span[0]:span[1]], blanked)
			ac, err := splitAlterClauses(query, stoks, blanked)
			if err != nil {
				return nil, err
			}
			tc = joinAlterClauses(tc, ac)
		}
		if tc != nil {
			clauses = append(clauses, tc)
		}
		tt, err := splitTimeTravel(query, stoks, blanked)
		if err != nil {
			return nil, err
		}
		travel = append(travel, tt...)
	}
	tree, err := pg_query.Parse(string(blanked))
	if err != nil {
		return nil, syntaxError(query, err)
	}
	if err := checkTimeTravel(tree, travel); err != nil {
		return nil, err
	}
	out := make([]Statement, 0, len(tree.Stmts))
	for _, raw := range tree.Stmts {
		start := int(raw.StmtLocation)
		end := start + int(raw.StmtLen)
		if raw.StmtLen == 0 {
			end = len(query)
		}
		st := Statement{Text: strings.TrimSpace(query[start:end]), Offset: start, Node: raw.Stmt}
		for _, tc := range clauses {
			if tc.start >= start && tc.start < end {
				st.Table = tc
			}
		}
		out = append(out, st)
	}
	return withRefStmts(query, out, refs), nil
}

// statementSpans returns [from, to) token index ranges of each statement,
// split at top-level semicolons.
func statementSpans(tokens []*pg_query.ScanToken) [][2]int {
	var spans [][2]int
	from := 0
	for i, t := range tokens {
		if t.Token == pg_query.Token_ASCII_59 {
			if i > from {
				spans = append(spans, [2]int{from, i})
			}
			from = i + 1
		}
	}
	if from < len(tokens) {
		spans = append(spans, [2]int{from, len(tokens)})
	}
	return spans
}

// syntaxError turns a pg_query error into 42601 (or the grammar's own
// code) with the cursor position PostgreSQL would report (characters,
// 1-based).
func syntaxError(query string, err error) error {
	var pe *parser.Error
	if !errors.As(err, &pe) {
		return pgerr.Wrap(pgerr.SyntaxError, err, "syntax error")
	}
	code := pgerr.SyntaxError
	if strings.HasPrefix(pe.Message, "frame ") {
		// The grammar's checks of a window frame's bounds (frame start
		// cannot be UNBOUNDED FOLLOWING, …) are windowing errors.
		code = pgerr.WindowingError
	}
	if strings.HasPrefix(pe.Message, "role name ") && strings.HasSuffix(pe.Message, " is reserved") {
		// CREATE ROLE public/none: the grammar refuses them as
		// reserved names (42939), not as syntax.
		code = "42939"
	}
	e := pgerr.New(code, "%s", pe.Message)
	if pe.Cursorpos > 0 {
		e.Position = pe.Cursorpos
	}
	return e
}

// CharPos converts a 0-based byte offset into PostgreSQL's 1-based
// character position.
func CharPos(query string, byteOff int) int {
	if byteOff > len(query) {
		byteOff = len(query)
	}
	if byteOff < 0 {
		return 0
	}
	return utf8.RuneCountInString(query[:byteOff]) + 1
}
