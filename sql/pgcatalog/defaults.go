package pgcatalog

import "strings"

// prettyMark separates a stored default's pretty form, as an SQL comment
// so the whole still parses.
const prettyMark = "\n--pretty "

// DefaultText is a stored DEFAULT as pg_get_expr prints it, pretty or not.
func DefaultText(stored string, pretty bool) string {
	plain, pp, ok := strings.Cut(stored, prettyMark)
	if ok && pretty {
		return pp
	}
	return plain
}

// StoredDefault is how a DEFAULT is stored: its deparsed text, then its
// pretty form when that differs (DefaultText reads either).
func StoredDefault(plain, pretty string) string {
	if pretty == plain {
		return plain
	}
	return plain + prettyMark + pretty
}
