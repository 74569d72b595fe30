package parse

import (
	"strings"

	"github.com/loamdb/loam/pgerr"
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// dropOids is what an ALTER TABLE's SET PARTITIONED BY (…) or SET SORTED
// BY (…) is replaced with for pg_query: PostgreSQL's grammar still takes
// SET WITHOUT OIDS (a no-op), so the statement parses as an ALTER TABLE
// with an AT_DropOids action in that place, which the engine reads as the
// clause kept in Statement.Table.
const dropOids = "SET WITHOUT OIDS"

// splitAlterClauses finds SET PARTITIONED BY (…) and SET SORTED BY (…)
// among the actions of an ALTER TABLE statement, parses them, and puts
// dropOids (padded with spaces, so offsets stay) in their place in
// blanked. An empty list (SET SORTED BY ()) makes the table unpartitioned
// or unsorted.
func splitAlterClauses(query string, toks []*pg_query.ScanToken, blanked []byte) (*TableClauses, error) {
	if len(toks) < 3 || toks[0].Token != pg_query.Token_ALTER || toks[1].Token != pg_query.Token_TABLE {
		return nil, nil
	}
	var tc *TableClauses
	depth := 0
	for j := 2; j < len(toks); j++ {
		switch toks[j].Token {
		case pg_query.Token_ASCII_40:
			depth++
			continue
		case pg_query.Token_ASCII_41:
			depth--
			continue
		}
		if depth != 0 || toks[j].Token != pg_query.Token_SET || j+3 >= len(toks) {
			continue
		}
		word := lowerText(query, toks[j+1])
		if (word != "partitioned" && word != "sorted") || lowerText(query, toks[j+2]) != "by" {
			continue
		}
		if toks[j+3].Token != pg_query.Token_ASCII_40 {
			return nil, errAt(query, toks[j+1], pgerr.SyntaxError, "syntax error: expected %s BY (…)", strings.ToUpper(word))
		}
		close := matchParen(toks, j+3)
		if close < 0 {
			return nil, errAt(query, toks[j+1], pgerr.SyntaxError, "syntax error: unbalanced parentheses in %s BY", strings.ToUpper(word))
		}
		if tc == nil {
			tc = &TableClauses{start: int(toks[0].Start)}
		}
		items := splitItems(toks[j+4 : close])
		var err error
		if word == "partitioned" {
			if tc.SetPartition {
				return nil, errAt(query, toks[j+1], pgerr.SyntaxError, "conflicting or redundant SET PARTITIONED BY")
			}
			tc.SetPartition = true
			err = tc.parsePartition(query, items, toks[j+1])
		} else {
			if tc.SetSort {
				return nil, errAt(query, toks[j+1], pgerr.SyntaxError, "conflicting or redundant SET SORTED BY")
			}
			tc.SetSort = true
			err = tc.parseSort(query, items, toks[j+1])
		}
		if err != nil {
			return nil, err
		}
		from, to := toks[j].Start, toks[close].End
		if int(to-from) < len(dropOids) {
			return nil, errAt(query, toks[j], pgerr.SyntaxError, "syntax error: write SET %s BY ( … ) with spaces", strings.ToUpper(word))
		}
		blank(blanked, toks[j], toks[close])
		copy(blanked[from:], dropOids)
		j = close
	}
	return tc, nil
}

// joinAlterClauses is one statement's SET (…) options (splitAlterOptions)
// and SET PARTITIONED BY / SET SORTED BY together; either may be nil.
func joinAlterClauses(opts, clauses *TableClauses) *TableClauses {
	if opts == nil {
		return clauses
	}
	if clauses != nil {
		opts.Partition, opts.Sort = clauses.Partition, clauses.Sort
		opts.SetPartition, opts.SetSort = clauses.SetPartition, clauses.SetSort
	}
	return opts
}
