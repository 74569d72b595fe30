package parse

import (
	"slices"
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// RefStmt is ALTER TABLE t CREATE|DROP BRANCH|TAG name, the DDL of
// Iceberg's snapshot references in Spark's syntax (Trino has none):
//
//	ALTER TABLE [IF EXISTS] t CREATE BRANCH|TAG [IF NOT EXISTS] name [AS OF VERSION n] [RETAIN n DAYS]
//	ALTER TABLE [IF EXISTS] t DROP BRANCH|TAG [IF EXISTS] name
//
// PostgreSQL's grammar has no such ALTER TABLE action: the statement is
// blanked out before pg_query parses the query, and Parse hands it on as
// an AlterTableStmt without commands, with Ref set.
type RefStmt struct {
	Relation *pg_query.RangeVar
	// MissingTableOk is ALTER TABLE IF EXISTS.
	MissingTableOk bool
	Create         bool // else DROP
	Tag            bool // else BRANCH
	Name           string
	NamePos        int  // 1-based character position of the name
	IfExists       bool // DROP … IF EXISTS
	IfNotExists    bool // CREATE … IF NOT EXISTS
	// Version is AS OF VERSION n; nil for the current snapshot.
	Version *int64
	// RetainDays is RETAIN n DAYS; 0 when not given.
	RetainDays int
	start, end int // byte offsets of the statement's text
}

// What is "BRANCH" or "TAG".
func (r *RefStmt) What() string {
	if r.Tag {
		return "TAG"
	}
	return "BRANCH"
}

// splitRefStmt recognizes a statement's tokens as a RefStmt, nil when
// they are something else.
func splitRefStmt(query string, toks []*pg_query.ScanToken) (*RefStmt, error) {
	if len(toks) < 5 || toks[0].Token != pg_query.Token_ALTER || toks[1].Token != pg_query.Token_TABLE {
		return nil, nil
	}
	r := &RefStmt{start: int(toks[0].Start), end: int(toks[len(toks)-1].End)}
	i := 2
	if i+1 < len(toks) && toks[i].Token == pg_query.Token_IF_P && toks[i+1].Token == pg_query.Token_EXISTS {
		r.MissingTableOk = true
		i += 2
	}
	if i < len(toks) && toks[i].Token == pg_query.Token_ONLY {
		i++
	}
	if i >= len(toks) || !isIdent(toks[i]) {
		return nil, nil
	}
	rv := &pg_query.RangeVar{Relname: identText(query, toks[i]), Inh: true, Relpersistence: "p", Location: toks[i].Start}
	i++
	for i+1 < len(toks) && toks[i].Token == pg_query.Token_ASCII_46 && isIdent(toks[i+1]) {
		rv.Catalogname, rv.Schemaname, rv.Relname = rv.Schemaname, rv.Relname, identText(query, toks[i+1])
		i += 2
	}
	if i+1 >= len(toks) || (toks[i].Token != pg_query.Token_CREATE && toks[i].Token != pg_query.Token_DROP) {
		return nil, nil
	}
	switch lowerText(query, toks[i+1]) {
	case "branch":
	case "tag":
		r.Tag = true
	default:
		return nil, nil
	}
	r.Relation = rv
	r.Create = toks[i].Token == pg_query.Token_CREATE
	i += 2
	rest := toks[i:]
	k := 0
	switch {
	case r.Create && len(rest) >= 3 && rest[0].Token == pg_query.Token_IF_P && rest[1].Token == pg_query.Token_NOT && rest[2].Token == pg_query.Token_EXISTS:
		r.IfNotExists = true
		k = 3
	case !r.Create && len(rest) >= 2 && rest[0].Token == pg_query.Token_IF_P && rest[1].Token == pg_query.Token_EXISTS:
		r.IfExists = true
		k = 2
	}
	if k >= len(rest) || !isIdent(rest[k]) {
		return nil, refSyntax(query, toks, rest, k, "a "+strings.ToLower(r.What())+" name")
	}
	r.Name = identText(query, rest[k])
	r.NamePos = CharPos(query, int(rest[k].Start))
	k++
	for k < len(rest) {
		switch {
		case r.Create && r.Version == nil && k+3 < len(rest) && rest[k].Token == pg_query.Token_AS && rest[k+1].Token == pg_query.Token_OF &&
			rest[k+2].Token == pg_query.Token_VERSION_P && (rest[k+3].Token == pg_query.Token_ICONST || rest[k+3].Token == pg_query.Token_FCONST):
			n, err := strconv.ParseInt(tokText(query, rest[k+3]), 10, 64)
			if err != nil {
				return nil, errAt(query, rest[k+3], pgerr.InvalidParameterValue, "invalid snapshot ID %s", tokText(query, rest[k+3]))
			}
			r.Version = &n
			k += 4
		case r.Create && r.RetainDays == 0 && k+2 < len(rest) && lowerText(query, rest[k]) == "retain" && rest[k+1].Token == pg_query.Token_ICONST &&
			lowerText(query, rest[k+2]) == "days":
			n, err := strconv.Atoi(tokText(query, rest[k+1]))
			if err != nil || n <= 0 {
				return nil, errAt(query, rest[k+1], pgerr.InvalidParameterValue, "RETAIN needs a positive number of days")
			}
			r.RetainDays = n
			k += 3
		default:
			return nil, refSyntax(query, toks, rest, k, "")
		}
	}
	return r, nil
}

func refSyntax(query string, toks, rest []*pg_query.ScanToken, k int, want string) error {
	if k >= len(rest) {
		e := pgerr.New(pgerr.SyntaxError, "syntax error at end of input")
		if want != "" {
			e.Message += ": expected " + want
		}
		e.Position = CharPos(query, int(toks[len(toks)-1].End))
		return e
	}
	if want != "" {
		return errAt(query, rest[k], pgerr.SyntaxError, "syntax error at or near %q: expected %s", tokText(query, rest[k]), want)
	}
	return errAt(query, rest[k], pgerr.SyntaxError, "syntax error at or near %q", tokText(query, rest[k]))
}

// refNode is the statement node a RefStmt stands in the parse as.
func (r *RefStmt) node() *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_AlterTableStmt{AlterTableStmt: &pg_query.AlterTableStmt{
		Relation: r.Relation, Objtype: pg_query.ObjectType_OBJECT_TABLE, MissingOk: r.MissingTableOk}}}
}

// withRefStmts puts the RefStmts, which pg_query did not see, among the
// parsed statements in the order of the text.
func withRefStmts(query string, out []Statement, refs []*RefStmt) []Statement {
	for _, r := range refs {
		st := Statement{Text: query[r.start:r.end], Offset: r.start, Node: r.node(), Ref: r}
		i, _ := slices.BinarySearchFunc(out, r.start, func(s Statement, off int) int { return s.Offset - off })
		out = slices.Insert(out, i, st)
	}
	return out
}
