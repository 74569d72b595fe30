package pgcatalog

import (
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// serialSequence is pg_get_serial_sequence(table, column): the sequence
// the column owns as schema.name, NULL when it owns none.
func serialSequence(src Source, rels []relation, table, column string) (types.Datum, error) {
	schema, name := splitQualified(table)
	var tbl *relation
	for _, ns := range append([]string{schema}, src.SearchPath()...) {
		for i := range rels {
			if r := &rels[i]; r.ns == ns && r.name == name && r.kind != "S" && tbl == nil {
				tbl = r
			}
		}
		if schema != "" || tbl != nil {
			break
		}
	}
	if tbl == nil {
		return types.Datum{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", table)
	}
	found := false
	for _, c := range tbl.cols {
		found = found || c.name == column
	}
	if !found {
		return types.Datum{}, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", column, tbl.name)
	}
	if q := sequenceOwners(rels)[tbl.ns+"."+tbl.name+"."+column]; q != nil {
		return types.TextDatum(q.Namespace + "." + q.Name), nil
	}
	return types.NullOf(types.TText), nil
}

// splitQualified reads a possibly schema-qualified name as regclass input
// does: unquoted parts lower-cased.
func splitQualified(s string) (schema, name string) {
	part := func(p string) string {
		if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
			return strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		}
		return strings.ToLower(p)
	}
	quoted := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == '.' && !quoted:
			return part(s[:i]), part(s[i+1:])
		}
	}
	return "", part(s)
}
