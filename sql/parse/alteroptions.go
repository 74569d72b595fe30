package parse

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// splitAlterOptions finds the `ON column` of the options of ALTER TABLE …
// SET (key = 'value' ON column, …), which the Postgres grammar cannot
// parse, records every option of the SET list, and blanks only the ON
// parts out of blanked: pg_query then parses a plain SET (…) whose
// options the engine matches with these by key. Nil when the statement
// is no ALTER TABLE or has no SET (…) with an option of that shape.
func splitAlterOptions(query string, toks []*pg_query.ScanToken, blanked []byte) *TableClauses {
	if len(toks) < 4 || toks[0].Token != pg_query.Token_ALTER || toks[1].Token != pg_query.Token_TABLE {
		return nil
	}
	tc := &TableClauses{start: int(toks[0].Start)}
	for j := 2; j+1 < len(toks); j++ {
		if toks[j].Token != pg_query.Token_SET || toks[j+1].Token != pg_query.Token_ASCII_40 {
			continue
		}
		if j > 0 && toks[j-1].Token == pg_query.Token_ASCII_44 {
			continue // not a command's SET, a list's
		}
		close := matchParen(toks, j+1)
		if close < 0 {
			return nil // pg_query will report the syntax error
		}
		for _, it := range splitItems(toks[j+2 : close]) {
			if len(it) < 3 || it[1].Token != pg_query.Token_ASCII_61 {
				continue
			}
			opt := Option{Key: identText(query, it[0]), Pos: CharPos(query, int(it[2].Start))}
			opt.Value = tokText(query, it[2])
			if it[2].Token == pg_query.Token_SCONST {
				opt.Value = unquoteString(opt.Value)
			}
			if rest := it[3:]; len(rest) == 2 && rest[0].Token == pg_query.Token_ON && isIdent(rest[1]) {
				opt.Column = identText(query, rest[1])
				opt.ColPos = CharPos(query, int(rest[1].Start))
				blank(blanked, rest[0], rest[1])
			}
			tc.Options = append(tc.Options, opt)
		}
		j = close
	}
	if len(tc.Options) == 0 {
		return nil
	}
	return tc
}
