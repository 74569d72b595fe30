package engine

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/apache/iceberg-go"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Table properties of keyed tables.
const (
	PropMerge        = link.MergeProperty
	MergeLastNonNull = link.MergeLastNonNull
)

// uniqueDef is a UNIQUE constraint of CREATE TABLE: its name, if given,
// and its columns.
type uniqueDef struct {
	name             string
	cols             []string
	pos              int
	nullsNotDistinct bool
}

// checkKeyConstraint refuses what Loam's keys do not do: constraints
// checked at commit (DEFERRABLE) and INCLUDE columns.
func checkKeyConstraint(con *pg.Constraint, at func(int32) int) error {
	if con.Deferrable || con.Initdeferred {
		return pgerr.New(pgerr.FeatureNotSupported, "DEFERRABLE %s constraints are not supported", parse.ConstraintName(con.Contype)).WithPosition(at(con.Location))
	}
	if len(con.Including) > 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "INCLUDE columns of a %s constraint are not supported", parse.ConstraintName(con.Contype)).WithPosition(at(con.Location))
	}
	return nil
}

// keyProperties are the table properties that carry nt's key
// constraints beside the schema's identifier fields (the primary key):
// the UNIQUE constraints by field ID, a primary key's given name, and
// format version 3 (deletion vectors) for a keyed table, whose upserts
// delete rows.
func keyProperties(nt newTable, pkey []int) (iceberg.Properties, error) {
	props := iceberg.Properties{}
	if len(pkey) == 0 && len(nt.uniques) == 0 {
		return props, nil
	}
	props["format-version"] = "3"
	taken := map[string]bool{}
	if len(pkey) > 0 {
		name := nt.pkeyName
		if name == "" {
			name = truncIdent(nt.name, len("_pkey")) + "_pkey"
		}
		// Kept, as PostgreSQL keeps its index's name when the table is
		// renamed.
		props[link.PrimaryKeyNameProperty] = name
		taken[name] = true
	}
	var cons []link.KeyConstraint
	for _, u := range nt.uniques {
		c := link.KeyConstraint{Name: u.name, NullsNotDistinct: u.nullsNotDistinct}
		for _, col := range u.cols {
			i, ok := nt.byName[col]
			if !ok {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", col).WithPosition(u.pos)
			}
			c.Fields = append(c.Fields, nt.fields[i].ID)
		}
		if c.Name == "" {
			c.Name = uniqueName(nt.name, u.cols, taken)
		}
		if taken[c.Name] {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", c.Name)
		}
		taken[c.Name] = true
		cons = append(cons, c)
	}
	if len(cons) > 0 {
		props[link.UniqueProperty] = link.EncodeUnique(cons)
	}
	return props, nil
}

// uniqueName is PostgreSQL's name for a UNIQUE constraint of table on
// cols: table_col1_col2_key, cut to 63 bytes, with a number added while
// the name is taken.
func uniqueName(table string, cols []string, taken map[string]bool) string {
	base := table + "_" + strings.Join(cols, "_")
	for n := 0; ; n++ {
		label := "key"
		if n > 0 {
			label += strconv.Itoa(n)
		}
		name := truncIdent(base, len(label)+1) + "_" + label
		if !taken[name] {
			return name
		}
	}
}

// truncIdent cuts an identifier so that it and a suffix of so many bytes
// fit in NAMEDATALEN-1 bytes, on a character boundary.
func truncIdent(s string, suffix int) string {
	for len(s)+suffix > 63 {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// keyOption takes WITH (format_version = 2|3) and WITH (merge =
// 'last_non_null').
func keyOption(o parse.Option, props iceberg.Properties) error {
	if o.Column != "" {
		return pgerr.New(pgerr.SyntaxError, "%s takes no ON column", o.Key).WithPosition(o.ColPos)
	}
	switch o.Key {
	case "format_version":
		if o.Value != "2" && o.Value != "3" {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid format_version %q: Loam writes Iceberg format versions 2 and 3", o.Value).WithPosition(o.Pos)
		}
		props["format-version"] = o.Value
	case "merge":
		if o.Value != MergeLastNonNull {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid merge %q: the one merge rule is 'last_non_null'", o.Value).WithPosition(o.Pos)
		}
		props[PropMerge] = o.Value
	}
	return nil
}

// checkMerge refuses merge = 'last_non_null' on a table without a key.
func checkMerge(tc *parse.TableClauses, props iceberg.Properties, pkey []int) error {
	if props[PropMerge] == "" || len(pkey) > 0 || props[link.UniqueProperty] != "" {
		return nil
	}
	pos := 0
	for _, o := range tc.Options {
		if o.Key == "merge" {
			pos = o.Pos
		}
	}
	return pgerr.New(pgerr.InvalidTableDefinition, "merge = 'last_non_null' needs a PRIMARY KEY or UNIQUE constraint: it merges the rows of one key").WithPosition(pos)
}

var keyOwners atomic.Uint64

// ownerOfKeys is the session's identity in key indexes: a transaction
// block's statements each write through their own link transactions,
// which must see each other's keys and deletes as one transaction's. It
// never equals a link transaction's ID (the top bit).
func (s *Session) ownerOfKeys() uint64 {
	if s.keyOwner == 0 {
		s.keyOwner = 1<<63 | keyOwners.Add(1)
	}
	return s.keyOwner
}

// lockUpsert takes the row lock (dml.go) for an INSERT that may replace
// rows: ON CONFLICT … DO UPDATE, or any INSERT into a merge =
// 'last_non_null' table. It deletes the rows it replaces by row id, which
// must stay valid until its transaction ends. DO NOTHING deletes nothing
// and takes no lock.
func (s *Session) lockUpsert(ctx context.Context, ps parse.Statement) error {
	n := ps.Node
	if ex := n.GetExplainStmt(); ex != nil {
		if opts, err := explainOpts(ex); err != nil || !opts.analyze {
			return nil
		}
		n = ex.Query
	}
	ins := n.GetInsertStmt()
	if ins == nil || ps.Ref != nil {
		return nil
	}
	if oc := ins.OnConflictClause; oc != nil {
		if oc.Action != pg.OnConflictAction_ONCONFLICT_UPDATE {
			return nil
		}
		return s.lockRows(ctx, ins.Relation)
	}
	return s.lockMergeCopy(ctx, ins.Relation)
}

// lockMergeCopy takes the row lock (dml.go) for an INSERT or COPY FROM
// into a merge = 'last_non_null' table, which replaces the rows of keys
// it meets.
func (s *Session) lockMergeCopy(ctx context.Context, rv *pg.RangeVar) error {
	if rv == nil {
		return nil
	}
	cat := s.catalog()
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	cat.release()
	if err != nil || mergeConflict(ti) == nil {
		return nil
	}
	return s.lockTable(ctx, link.Key{NS: ti.Namespace, Name: ti.Name})
}

// mergeConflict is the upsert of a COPY into ti when ti is a merge =
// 'last_non_null' table, else nil.
func mergeConflict(ti *plan.TableInfo) *exec.Conflict {
	if ti == nil || ti.Table == nil || ti.ViewSQL != "" || ti.Sequence || ti.Ref != "" ||
		ti.Table.Properties()[link.MergeProperty] != link.MergeLastNonNull {
		return nil
	}
	cons := link.Constraints(ti.Table, ti.Name)
	if len(cons) == 0 {
		return nil
	}
	names := make([]string, len(cons))
	for i, c := range cons {
		names[i] = c.Name
	}
	return exec.MergeConflict(ti.Types, names)
}
