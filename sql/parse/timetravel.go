package parse

import (
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// AsOfKind says what a time-travel clause selects a snapshot by.
type AsOfKind byte

const (
	// AsOfTimestamp is FOR TIMESTAMP AS OF expr: the snapshot current then.
	AsOfTimestamp AsOfKind = iota + 1
	// AsOfVersion is FOR VERSION AS OF n | 'name': a snapshot ID, or a
	// branch or tag.
	AsOfVersion
)

// AsOf is one of Trino's time-travel clauses after a table name in FROM:
// FROM t FOR TIMESTAMP AS OF expr [alias], FROM t FOR VERSION AS OF n
// [alias]. PostgreSQL's grammar has no such clause, so it is blanked out
// before pg_query parses the statement, and found again by the offset of
// the table name, which is the RangeVar's Location.
type AsOf struct {
	Kind AsOfKind
	// Table is the byte offset of the table name in the query.
	Table int
	// Pos is the 1-based character position of FOR, for errors.
	Pos int
	// Snapshot is VERSION AS OF's snapshot ID, when Ref is "".
	Snapshot int64
	// Ref is VERSION AS OF's branch or tag name.
	Ref string
	// Expr is TIMESTAMP AS OF's expression; its locations are offsets in
	// the whole query, like those of the statement's own nodes.
	Expr *pg_query.Node
}

// TimeTravel finds the time-travel clauses of every statement in query,
// by the offset of the table name each follows. Parse has reported what
// is wrong with them; here such clauses are left out. The planner calls
// it on the query it plans rather than being handed Parse's result, since
// its many child planners share only the query text.
func TimeTravel(query string) map[int]AsOf {
	if !mayTimeTravel(query) {
		return nil
	}
	toks, err := pg_query.Scan(query)
	if err != nil {
		return nil
	}
	blanked := []byte(query)
	out := map[int]AsOf{}
	for _, span := range statementSpans(toks.Tokens) {
		found, _ := splitTimeTravel(query, toks.Tokens[span[0]:span[1]], blanked)
		for _, a := range found {
			out[a.Table] = a
		}
	}
	return out
}

// mayTimeTravel is a cheap test that query has no time-travel clause:
// it lacks one of the words FOR, AS and OF, in any case.
func mayTimeTravel(query string) bool {
	return containsFold(query, "for") && containsFold(query, "as") && containsFold(query, "of")
}

// containsFold reports whether s holds word (lower-case ASCII) in any case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		k := 0
		for k < len(word) && s[i+k]|0x20 == word[k] {
			k++
		}
		if k == len(word) {
			return true
		}
	}
	return false
}

// splitTimeTravel finds the time-travel clauses of one statement's tokens
// and blanks them out of blanked.
func splitTimeTravel(query string, toks []*pg_query.ScanToken, blanked []byte) ([]AsOf, error) {
	var out []AsOf
	for j := 0; j+3 < len(toks); j++ {
		if toks[j].Token != pg_query.Token_FOR || toks[j+2].Token != pg_query.Token_AS || toks[j+3].Token != pg_query.Token_OF {
			continue
		}
		var kind AsOfKind
		switch toks[j+1].Token {
		case pg_query.Token_TIMESTAMP:
			kind = AsOfTimestamp
		case pg_query.Token_VERSION_P:
			kind = AsOfVersion
		default:
			continue // FOR UPDATE, FOR SHARE … are PostgreSQL's
		}
		what := "FOR " + strings.ToUpper(tokText(query, toks[j+1])) + " AS OF"
		name, ok := tableNameBefore(toks, j)
		if !ok {
			return nil, errAt(query, toks[j], pgerr.SyntaxError, "syntax error at or near \"FOR\": %s must follow a table name in FROM", what)
		}
		a := AsOf{Kind: kind, Table: int(toks[name].Start), Pos: CharPos(query, int(toks[j].Start))}
		start := j + 4
		if start >= len(toks) {
			return nil, errAt(query, toks[j], pgerr.SyntaxError, "syntax error at end of input: %s needs a value", what)
		}
		var end int // exclusive
		var err error
		if kind == AsOfVersion {
			end, err = a.parseVersion(query, toks, start)
		} else {
			end, err = a.parseTimestamp(query, toks, start)
		}
		if err != nil {
			return nil, err
		}
		blank(blanked, toks[j], toks[end-1])
		out = append(out, a)
		j = end - 1
	}
	return out, nil
}

// tableNameBefore finds the start of the (possibly qualified) table name
// ending just before token j, which must stand where a FROM item starts.
func tableNameBefore(toks []*pg_query.ScanToken, j int) (int, bool) {
	k := j - 1
	if k < 1 || !isIdent(toks[k]) {
		return 0, false
	}
	for k >= 2 && toks[k-1].Token == pg_query.Token_ASCII_46 && isIdent(toks[k-2]) {
		k -= 2 // schema.name
	}
	if k < 1 {
		return 0, false
	}
	switch toks[k-1].Token {
	case pg_query.Token_FROM, pg_query.Token_JOIN, pg_query.Token_ASCII_44, pg_query.Token_ONLY:
		return k, true
	}
	return 0, false
}

// parseVersion reads VERSION AS OF's value: a snapshot ID or a quoted
// branch or tag name.
func (a *AsOf) parseVersion(query string, toks []*pg_query.ScanToken, i int) (int, error) {
	t := toks[i]
	switch t.Token {
	case pg_query.Token_SCONST:
		a.Ref = unquoteString(tokText(query, t))
		return i + 1, nil
	case pg_query.Token_ICONST, pg_query.Token_FCONST:
		// The scanner makes an integer beyond int4 an FCONST.
		n, err := strconv.ParseInt(tokText(query, t), 10, 64)
		if err != nil {
			return 0, errAt(query, t, pgerr.InvalidParameterValue, "invalid snapshot ID %s", tokText(query, t))
		}
		a.Snapshot = n
		return i + 1, nil
	}
	return 0, errAt(query, t, pgerr.SyntaxError, "syntax error at or near %q: FOR VERSION AS OF needs a snapshot ID or a quoted branch or tag name", tokText(query, t))
}

// parseTimestamp reads TIMESTAMP AS OF's expression. Its end is found as
// Trino's grammar would: the longest run of tokens that is one expression,
// up to the first token that cannot continue one in a FROM item (a comma,
// a closing parenthesis, JOIN, WHERE, AS …); what follows it (an alias) is
// left in place.
func (a *AsOf) parseTimestamp(query string, toks []*pg_query.ScanToken, i int) (int, error) {
	stop := len(toks)
	depth := 0
scan:
	for k := i; k < len(toks); k++ {
		switch t := toks[k].Token; {
		case t == pg_query.Token_ASCII_40:
			depth++
		case t == pg_query.Token_ASCII_41:
			if depth == 0 {
				stop = k
				break scan
			}
			depth--
		case depth > 0:
		case endsFromItem(toks, k):
			stop = k
			break scan
		}
	}
	for end := stop; end > i && stop-end < 64; end-- {
		if e := exprAt(query, toks[i], toks[end-1]); e != nil {
			a.Expr = e
			return end, nil
		}
	}
	return 0, errAt(query, toks[i], pgerr.SyntaxError, "syntax error at or near %q: FOR TIMESTAMP AS OF needs a timestamp expression", tokText(query, toks[i]))
}

// endsFromItem says whether token k, outside parentheses, cannot be part
// of TIMESTAMP AS OF's expression.
func endsFromItem(toks []*pg_query.ScanToken, k int) bool {
	switch toks[k].Token {
	case pg_query.Token_ASCII_44, pg_query.Token_ASCII_59,
		pg_query.Token_JOIN, pg_query.Token_INNER_P, pg_query.Token_CROSS, pg_query.Token_NATURAL, pg_query.Token_FULL,
		pg_query.Token_ON, pg_query.Token_USING, pg_query.Token_WHERE, pg_query.Token_GROUP_P, pg_query.Token_HAVING,
		pg_query.Token_ORDER, pg_query.Token_LIMIT, pg_query.Token_OFFSET, pg_query.Token_FETCH, pg_query.Token_UNION,
		pg_query.Token_INTERSECT, pg_query.Token_EXCEPT, pg_query.Token_WINDOW, pg_query.Token_FOR, pg_query.Token_AS,
		pg_query.Token_RETURNING, pg_query.Token_TABLESAMPLE:
		return true
	case pg_query.Token_LEFT, pg_query.Token_RIGHT:
		// LEFT JOIN, but left(s, n) is a function.
		return k+1 >= len(toks) || toks[k+1].Token != pg_query.Token_ASCII_40
	}
	return false
}

// exprAt parses the tokens from..to as one expression, with its locations
// where they are in query: the text is parsed padded with blanks to its
// offset. Nil when they are not one expression.
func exprAt(query string, from, to *pg_query.ScanToken) *pg_query.Node {
	const head = "SELECT ("
	if int(from.Start) < len(head) {
		return nil
	}
	text := head + strings.Repeat(" ", int(from.Start)-len(head)) + query[from.Start:to.End] + ")"
	tree, err := pg_query.Parse(text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) != 0 {
		return nil
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil || rt.Val == nil {
		return nil
	}
	return rt.Val
}

// checkTimeTravel fails a clause whose table name did not parse as a
// table reference (SELECT a, b FOR VERSION AS OF 1 FROM t): the planner
// finds clauses by their RangeVar, and would pass over such a one.
func checkTimeTravel(tree *pg_query.ParseResult, found []AsOf) error {
	if len(found) == 0 {
		return nil
	}
	locs := map[int]bool{}
	rangeVarLocations(tree.ProtoReflect(), locs)
	for _, a := range found {
		if !locs[a.Table] {
			e := pgerr.New(pgerr.SyntaxError, "syntax error at or near \"FOR\": time travel must follow a table name in FROM")
			e.Position = a.Pos
			return e
		}
	}
	return nil
}

// rangeVarLocations collects the locations of a parse tree's RangeVars.
func rangeVarLocations(m protoreflect.Message, out map[int]bool) {
	if rv, ok := m.Interface().(*pg_query.RangeVar); ok {
		out[int(rv.Location)] = true
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() || fd.Message() == nil:
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				rangeVarLocations(l.Get(i).Message(), out)
			}
		default:
			rangeVarLocations(v.Message(), out)
		}
		return true
	})
}
