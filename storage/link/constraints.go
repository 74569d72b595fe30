package link

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/apache/iceberg-go/table"
)

// UniqueProperty is the table property holding a table's UNIQUE
// constraints, as JSON: [{"name": "t_a_key", "fields": [2]}, …], the
// columns by Iceberg field ID. A PRIMARY KEY is the schema's
// identifier-field-ids, which other engines understand; UNIQUE has no
// Iceberg form.
const UniqueProperty = "loam.unique"

// PrimaryKeyNameProperty names a table's primary key constraint when
// CREATE TABLE named it (CONSTRAINT name PRIMARY KEY); without it the
// name is PostgreSQL's default, <table>_pkey.
const PrimaryKeyNameProperty = "loam.pkey-name"

// MergeProperty is WITH (merge = 'last_non_null') of a keyed table: an
// insert of an existing key sets only the columns it gives non-NULL
// values and keeps the others. MergeLastNonNull is its one value.
const (
	MergeProperty    = "loam.merge"
	MergeLastNonNull = "last_non_null"
)

// KeyConstraint is a PRIMARY KEY or UNIQUE constraint: no two live rows
// of the table have equal values in its columns, none of them NULL.
type KeyConstraint struct {
	Name    string `json:"name"`
	Primary bool   `json:"-"`
	Fields  []int  `json:"fields"` // Iceberg field IDs
	// NullsNotDistinct is UNIQUE NULLS NOT DISTINCT: NULL equals NULL.
	NullsNotDistinct bool `json:"nulls_not_distinct,omitempty"`
}

// EncodeUnique is UniqueProperty's value for the constraints cs.
func EncodeUnique(cs []KeyConstraint) string {
	b, _ := json.Marshal(cs)
	return string(b)
}

// Constraints are the key constraints of tbl, named ns.name: its primary
// key first, then its UNIQUE constraints in the order declared.
// A constraint one of whose columns was dropped is gone, as PostgreSQL
// drops an index with its column.
func Constraints(tbl *table.Table, name string) []KeyConstraint {
	var out []KeyConstraint
	props := tbl.Properties()
	sc := tbl.Schema()
	whole := func(ids []int) bool {
		for _, id := range ids {
			if _, ok := sc.FindFieldByID(id); !ok {
				return false
			}
		}
		return true
	}
	if ids := sc.IdentifierFieldIDs; len(ids) > 0 && whole(ids) {
		n := props[PrimaryKeyNameProperty]
		if n == "" {
			n = truncName(name, len("_pkey")) + "_pkey"
		}
		out = append(out, KeyConstraint{Name: n, Primary: true, Fields: append([]int(nil), ids...)})
	}
	if v := props[UniqueProperty]; v != "" {
		var us []KeyConstraint
		if json.Unmarshal([]byte(v), &us) == nil {
			for _, u := range us {
				if whole(u.Fields) {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// truncName cuts an identifier so that it and a suffix of so many bytes
// fit in NAMEDATALEN-1 bytes, on a character boundary, as PostgreSQL does.
func truncName(s string, suffix int) string {
	for len(s)+suffix > 63 {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}
